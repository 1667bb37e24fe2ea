// Command sqsfake serves an in-memory, deterministic Amazon SQS over HTTP, for tests written in
// any language and for trying SQS code locally. It speaks both of SQS's wire protocols —
// awsJson1_0, which every current AWS SDK uses, and the older query protocol (Action=…,
// answered in XML) of older SDKs and hand-written scripts — so the AWS CLI, boto3 and any
// SDK work against it with an endpoint URL. A first session, from a clone of the repository:
//
//	go build -o bin/sqsfake ./cmd/sqsfake    # once; or go install ./cmd/sqsfake
//	bin/sqsfake -clock virtual -queues jobs &
//	SQSFAKE_PID=$!
//	until curl -sf http://127.0.0.1:9324/_sqsfake/health >/dev/null; do sleep 0.1; done
//	export AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test  # any keys: signatures are not checked
//	aws sqs send-message --endpoint-url http://127.0.0.1:9324 --region us-east-1 \
//	    --queue-url http://127.0.0.1:9324/123456789012/jobs --message-body hi
//	curl -s -X POST -H 'X-Sqsfake-Control: 1' 'http://127.0.0.1:9324/_sqsfake/advance?d=30s'
//	kill $SQSFAKE_PID; wait $SQSFAKE_PID     # SIGTERM: a graceful stop, exit status 0
//
// A script stops the server by its own PID, as here. At a terminal, go run ./cmd/sqsfake
// works too, and Ctrl-C stops it; but go run runs the server as its child process, so a
// script's kill $! signals the go command, not the server: SIGTERM ends go and leaves the
// server running (the next start fails: the address is in use), and go run ignores SIGINT.
//
// With -clock virtual, time stands still until POST /_sqsfake/advance moves it, so a test
// in another language is as deterministic as one in Go; the control endpoints below also
// wait for long polls to park and show the fake's state. A mistake in a flag or a control
// request is refused with a line that names the flag or parameter, the value and what it
// wants.
//
// Flags:
//
//	-addr 127.0.0.1:9324   where to listen; loopback only unless -allow-remote; port 0
//	                       picks a free port, which the banner names
//	-allow-remote          serve on a non-loopback address (without -credentials the fake
//	                       checks no signature); a wildcard address prints a warning and
//	                       the addresses it serves
//	-credentials FILE      signed mode: verify every SQS request's SigV4 signature against
//	                       the access keys of FILE (a JSON array, see credentials.go), which
//	                       also give each key's account and principal; without it any
//	                       signature passes and a 12-digit access key id names the account
//	-control-token TOKEN   in signed mode, what control requests must send as the value of
//	                       X-Sqsfake-Control; without it signed mode closes the control
//	                       endpoints (but health). Needs -credentials
//	-endpoint URL          the base of the queue URLs it hands out (default: http://<addr>)
//	-region us-east-1      the region of queue URLs and ARNs
//	-account 123456789012  the account of queue URLs and ARNs
//	-clock real|virtual    real: time passes as on AWS (the default); virtual: time stands
//	                       still at 2025-01-01T00:00:00Z until POST /_sqsfake/advance moves it
//	-queues a,b,c.fifo     queues to create at start (a .fifo name creates a FIFO queue)
//	-purge-cooldown 60s    how long after a PurgeQueue another of the same queue fails with
//	                       PurgeQueueInProgress, as on SQS; 0 switches it off
//	-seed N                the seed of message ids, receipt handles and request ids
//	-sns-http-hosts h1,h2  hosts besides loopback that SNS may POST to for http/https
//	                       subscriptions; * for any host. Without it a subscription to
//	                       another host is refused (Invalid parameter: Unreachable Endpoint)
//	-v                     log every request to stderr
//
// The clock is real by default because a server someone starts by hand should behave as SQS
// does: a received message comes back when its visibility timeout passes, and a long poll
// returns after its wait time. A test suite that wants determinism starts the server with
// -clock virtual and moves time itself; then nothing happens in time until it does — a long
// poll waits until the clock is advanced past its wait time or a message arrives.
//
// The server answers only requests whose Host is a loopback name or address (localhost,
// 127.0.0.0/8, [::1], on any port) or the host of -endpoint, unless -allow-remote: a web page
// that reaches it by DNS rebinding is refused with 403 (AccessDenied to SQS clients), and so
// is any request whose Origin or Sec-Fetch-Site shows a page of another site (SDKs, the CLI
// and curl send neither): a query-protocol GET or form post needs no CORS preflight.
//
// Control endpoints, under a path no SQS request uses (JSON answers). Every one but health
// and the console's page needs the header X-Sqsfake-Control: 1, which a page of another site
// cannot make a browser send; a control request whose Origin or Sec-Fetch-Site shows another
// site is refused (403). In signed mode (-credentials) they read and reset every account, so
// the header must carry the -control-token the server was started with, and without one they
// (and the console's JSON endpoints) are closed (403):
//
//	curl -X POST -H 'X-Sqsfake-Control: 1' 'http://127.0.0.1:9324/_sqsfake/advance?d=30s'
//
//	GET  /_sqsfake/health                     200 when the server is up
//	GET  /_sqsfake/state                      the clock, SNS's topics, every queue with its attributes, tags, counters and messages
//	GET  /_sqsfake/state?queue=q&limit=1000&after=N
//	                                          one queue; at most limit messages a queue (1000 by
//	                                          default, up to 10000), "truncated" and the cursor
//	                                          "next" when more follow, which after takes
//	GET  /_sqsfake/topics                     SNS: every topic with its attributes, tags and subscriptions
//	                                          (pending ones with their tokens), and every publication
//	                                          with what became of it for each subscription;
//	                                          ?published=false leaves the publications out
//	POST /_sqsfake/advance?d=30s              move the virtual clock (409 with -clock real)
//	GET  /_sqsfake/pollers?n=1&timeout=10s    wait until n receives are parked in long polls
//	GET  /_sqsfake/idle?calls=N&timeout=10s   wait until N calls have begun and each has returned or parked
//	POST /_sqsfake/reset                      back to the state at start: a fresh fake, a fresh clock
//	GET  /_sqsfake/console/                   the console, a page for a browser (docs/console.md);
//	                                          its JSON endpoints are under /_sqsfake/console/api/
//
// GET /_sqsfake/idle answers {"calls": C, "pollers": P}: C calls have begun since start or
// reset (the start-up queues' CreateQueue calls and refused requests included), P are parked.
// With ?calls=N it first waits until N calls have begun and every call has either returned
// or is waiting on the clock — a long poll parked — up to timeout (10 s by default; 408
// after). That is the race-free way to move the clock after a poll started elsewhere, whether
// it parked or returned at once: read C, start the poll, wait for calls=C+1, then advance.
//
// SNS's http and https subscriptions get real POSTs from the server (package snsfake, "HTTP/S
// endpoints"): the SubscriptionConfirmation at Subscribe, then each notification, retried by
// the DeliveryPolicy as the server's clock moves — with -clock virtual, at the instants
// POST /_sqsfake/advance passes, never in real time — so a test in any language points a
// subscription at a listener of its own on 127.0.0.1, confirms it by GETting the SubscribeURL
// (which names this server) and watches every attempt in GET /_sqsfake/topics. The POSTs
// follow no redirect, read at most 64 KiB of an answer and wait at most 15 s for it, and
// reach loopback addresses only, unless -sns-http-hosts names others.
//
// SIGINT or SIGTERM shut the server down gracefully: it stops accepting connections, answers
// the long polls still waiting as SQS answers a wait that ends with nothing to deliver (an
// empty ReceiveMessage, 200), lets other requests finish, and exits with status 0.
// All state is in memory: when the server stops, its queues and messages are gone.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go"
	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
	"github.com/sqsfake/sqsfake/internal/guard"
	"github.com/sqsfake/sqsfake/internal/reqlog"
	"github.com/sqsfake/sqsfake/snsfake"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "sqsfake:", err)
		os.Exit(2)
	}
}

// config is the command line.
type config struct {
	addr, endpoint   string
	region, account  string
	clock            string
	purgeCooldown    time.Duration
	queues           []string
	seed             uint64
	allowRemote, log bool
	credentialsFile  string
	credentials      []sqsfake.Credential // read from credentialsFile
	controlToken     string               // in signed mode, the value of X-Sqsfake-Control that control requests need
	snsHTTPHosts     []string             // -sns-http-hosts: hosts besides loopback SNS may POST to; "*" any
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var queues, snsHosts string
	fs := flag.NewFlagSet("sqsfake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:9324", "`host:port` to listen on; loopback only unless -allow-remote")
	fs.Var(boolFlag{&c.allowRemote}, "allow-remote", "allow a non-loopback -addr (without -credentials the fake checks no signature)")
	fs.StringVar(&c.credentialsFile, "credentials", "", "signed mode: verify each request's SigV4 signature against the access keys of this JSON `file`")
	fs.StringVar(&c.controlToken, "control-token", "", "in signed mode (-credentials), the `token` control requests must send as the value of X-Sqsfake-Control; without it they are refused (but /_sqsfake/health)")
	fs.StringVar(&c.endpoint, "endpoint", "", "the `URL` queue URLs name (default http://<addr>)")
	fs.StringVar(&c.region, "region", sqsfake.DefaultRegion, "the `region` of queue URLs and ARNs")
	fs.StringVar(&c.account, "account", sqsfake.DefaultAccountID, "the 12-digit `account` of queue URLs and ARNs")
	fs.StringVar(&c.clock, "clock", "real", "`real` (time passes) or virtual (time moves only on POST /_sqsfake/advance)")
	fs.StringVar(&queues, "queues", "", "comma-separated queue `names` to create at start; name.fifo creates a FIFO queue")
	c.purgeCooldown = sqsfake.DefaultPurgeCooldown
	fs.Var(durationFlag{&c.purgeCooldown}, "purge-cooldown", "the `duration` after a PurgeQueue during which another PurgeQueue of the same queue fails with PurgeQueueInProgress, as on SQS (0: no cooldown)")
	fs.Var(uintFlag{&c.seed}, "seed", "the `seed` of message ids, receipt handles and request ids (0: the fake's default)")
	fs.StringVar(&snsHosts, "sns-http-hosts", "", "comma-separated `hosts` besides loopback that SNS may POST to for http/https subscriptions; * for any")
	fs.Var(boolFlag{&c.log}, "v", "log every request to stderr")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: sqsfake [flags]\n\nServes an in-memory Amazon SQS (awsJson1_0 and query protocols) for tests. Flags:")
		fs.PrintDefaults()
	}
	if err := parseQuietly(fs, args, stderr); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q: sqsfake takes flags only, such as -queues %s to create a queue (sqsfake -h lists them)", fs.Args(), fs.Arg(0))
	}
	if c.clock != "real" && c.clock != "virtual" {
		return c, fmt.Errorf("-clock %q: want real or virtual", c.clock)
	}
	if c.controlToken != "" && c.credentialsFile == "" {
		return c, errors.New("-control-token needs -credentials: without signed mode the control endpoints need only the header " + controlHeader + ": 1")
	}
	if c.credentialsFile != "" {
		creds, err := readCredentials(c.credentialsFile)
		if err != nil {
			return c, fmt.Errorf("-credentials %s", err)
		}
		c.credentials = creds
	}
	// The fake's options check the flags that set them.
	if err := sqsfake.CheckOptions(c.options()...); err != nil {
		return c, flagError(err)
	}
	for _, q := range strings.Split(queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.queues = append(c.queues, q)
		}
	}
	for _, h := range strings.Split(snsHosts, ",") {
		if h = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(h), ".")); h != "" {
			if strings.ContainsAny(h, ":/@ ") && net.ParseIP(h) == nil {
				return c, fmt.Errorf("-sns-http-hosts %q: want host names or IP addresses without port or scheme, or *", h)
			}
			c.snsHTTPHosts = append(c.snsHTTPHosts, h)
		}
	}
	return c, checkListenAddr(c.addr, c.allowRemote)
}

// parseQuietly parses args into fs. The flag package prints an error and the whole usage on
// any mistake; here only -h prints the usage, to stderr, and a mistake is returned alone, with
// a pointer to -h, so that the one line that says what is wrong is not lost above the usage.
func parseQuietly(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	var out bytes.Buffer
	fs.SetOutput(&out)
	err := fs.Parse(args)
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		stderr.Write(out.Bytes())
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		if near := nearestFlag(fs, name); near != "" {
			return fmt.Errorf("%s; did you mean -%s? (sqsfake -h lists the flags)", msg, near)
		}
	}
	return fmt.Errorf("%s (sqsfake -h lists the flags)", msg)
}

// nearestFlag returns the flag of fs whose name is closest to name, if it is close: one
// name a prefix of the other, or at most two edits apart; "" otherwise.
func nearestFlag(fs *flag.FlagSet, name string) string {
	best, bestDist := "", 3
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(strings.ToLower(name), f.Name)
		if strings.HasPrefix(f.Name, name) || strings.HasPrefix(name, f.Name) {
			d = min(d, 1)
		}
		if d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// durationFlag is a time.Duration flag whose refusal says what a duration is: the flag
// package's own says "parse error", and a bare number — the likeliest mistake — has no unit.
type durationFlag struct{ d *time.Duration }

func (f durationFlag) String() string {
	if f.d == nil {
		return ""
	}
	return f.d.String()
}

func (f durationFlag) Set(s string) error {
	d, err := parseDuration(s, "60s")
	if err != nil {
		return err
	}
	*f.d = d
	return nil
}

// parseDuration parses a Go duration. Its error says what went wrong in words: a bare
// number — the likeliest mistake — has no unit; otherwise it shows a duration like example.
func parseDuration(s, example string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err == nil {
		return d, nil
	}
	if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
		return 0, fmt.Errorf("a duration needs its unit: %ss for seconds, or %sm for minutes", s, s)
	}
	return 0, fmt.Errorf("want a duration with its unit, such as %s, 1m30s or 500ms", example)
}

// uintFlag is a uint64 flag whose refusal says what it takes.
type uintFlag struct{ n *uint64 }

func (f uintFlag) String() string {
	if f.n == nil {
		return ""
	}
	return strconv.FormatUint(*f.n, 10)
}

func (f uintFlag) Set(s string) error {
	n, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want a whole number from 0 to %d", uint64(math.MaxUint64))
	}
	*f.n = n
	return nil
}

// boolFlag is a bool flag whose refusal says what it takes.
type boolFlag struct{ b *bool }

func (f boolFlag) IsBoolFlag() bool { return true }

func (f boolFlag) String() string {
	if f.b == nil {
		return ""
	}
	return strconv.FormatBool(*f.b)
}

func (f boolFlag) Set(s string) error {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false; the flag alone means true")
	}
	*f.b = b
	return nil
}

// optionFlags names the flag that sets each option the server checks with
// sqsfake.CheckOptions.
var optionFlags = map[string]string{
	"WithRegion":        "-region",
	"WithAccountID":     "-account",
	"WithEndpoint":      "-endpoint",
	"WithPurgeCooldown": "-purge-cooldown",
	"WithCredentials":   "-credentials",
}

// flagWants words what a flag allows where its option's words are Go's.
var flagWants = map[string]string{
	"WithPurgeCooldown": "0 (no cooldown) or 1ms or more, such as 60s; SQS's is 60s",
}

// flagError words an option's error as an error of the flag that set the option.
func flagError(err error) error {
	var oe *sqsfake.OptionError
	if errors.As(err, &oe) && optionFlags[oe.Option] != "" {
		return fmt.Errorf("%s %s: want %s", optionFlags[oe.Option], oe.Value, cmp.Or(flagWants[oe.Option], oe.Want))
	}
	return err
}

// checkListenAddr refuses an address that is not loopback unless remote access is allowed:
// anyone who can reach the server can read and change its queues.
func checkListenAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: want host:port, such as 127.0.0.1:9324 (port 0 picks a free port)", addr)
	}
	switch n, err := strconv.ParseUint(port, 10, 64); {
	case err != nil && !isDigits(port):
		return fmt.Errorf("-addr %s: port %q is not a number; want a port from 1 to 65535, or 0 for a free port", addr, port)
	case err != nil || n > 65535:
		return fmt.Errorf("-addr %s: port %s is out of range; want a port from 1 to 65535, or 0 for a free port", addr, port)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	if host == "" {
		return fmt.Errorf("-addr %s names no host, which listens on every network interface; give a loopback host, such as 127.0.0.1:%s, or pass -allow-remote to serve other hosts (without -credentials neither its queues nor its control endpoints need a credential)", addr, port)
	}
	return fmt.Errorf("-addr %s is not a loopback address; without -credentials neither its queues nor its control endpoints need a credential, so pass -allow-remote to serve other hosts", addr)
}

// isDigits reports whether s is one or more ASCII digits.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// listenError says why the server could not listen on addr, and what to do about it.
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("-addr %s is in use: another sqsfake may still be running (a `go run` stopped by its own PID leaves its server running); stop that one, or pass another -addr, such as 127.0.0.1:0 for a free port", addr)
	}
	return fmt.Errorf("-addr %s: %v", addr, err)
}

// run serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return listenError(cfg.addr, err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !cfg.allowRemote && !addr.IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("-addr %s resolved to %s, which is not loopback; pass -allow-remote to serve other hosts", cfg.addr, addr)
	}
	endpointGiven := cfg.endpoint != ""
	if cfg.endpoint == "" {
		host := addr.IP.String()
		if addr.IP.IsUnspecified() {
			host = "localhost"
		}
		cfg.endpoint = "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
	}
	srv, err := newServer(cfg)
	if err != nil {
		ln.Close()
		return err
	}
	if cfg.log {
		srv.logger = log.New(stderr, "sqsfake: ", log.LstdFlags|log.Lmicroseconds)
	}

	base, cancelBase := context.WithCancelCause(context.Background())
	defer cancelBase(nil)
	hs := &http.Server{
		Handler: srv,
		// The handler reads each request's whole body before it answers, and bodies are
		// capped (sqsfake.MaxRequestBytes). There is no write timeout: a long poll on the
		// virtual clock waits until the clock is moved.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		// Longer than the SDKs' own idle timeout (90 s), so that clients close idle
		// connections first and never reuse one the server is closing.
		IdleTimeout:    5 * time.Minute,
		MaxHeaderBytes: 1 << 20,
		BaseContext:    func(net.Listener) context.Context { return base },
		ErrorLog:       log.New(stderr, "sqsfake: http: ", log.LstdFlags),
	}
	// The banner is written at once, so that a reader that waits for its first line has the
	// whole of it.
	banner := fmt.Sprintf("sqsfake: serving SQS at %s (region %s, account %s, %s clock)\n", cfg.endpoint, cfg.region, cfg.account, cfg.clock)
	if endpointGiven && !addr.IP.IsUnspecified() {
		banner += fmt.Sprintf("sqsfake: listening on %s\n", addr) // -addr with port 0 picks a free one
	}
	fmt.Fprint(stdout, banner)
	if addr.IP.IsUnspecified() {
		warnWildcard(stderr, cfg.addr, addr, interfaceIPs(), cfg.endpoint, endpointGiven)
	}

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Long polls on a virtual clock would wait forever: end them as SQS ends a wait with
	// nothing to deliver, with an empty 200 (the cause tells the fake it is a shutdown, not a
	// client that went away), then let the rest finish.
	cancelBase(http.ErrServerClosed)
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = hs.Shutdown(shutdown)
	<-served
	fmt.Fprintln(stdout, "sqsfake: stopped")
	return err
}

// warnWildcard warns that a wildcard -addr (0.0.0.0, ::, or no host: Go listens on both
// IPv4 and IPv6 for each) serves every interface, and says where the server can be reached:
// the interface addresses ips of the listener's family, loopback first, without link-local
// IPv6 addresses (they need a zone).
func warnWildcard(w io.Writer, given string, addr *net.TCPAddr, ips []net.IP, endpoint string, endpointGiven bool) {
	fmt.Fprintf(w, "sqsfake: warning: -addr %s with -allow-remote serves every network interface of this machine, and without -credentials neither its queues nor its control endpoints need a credential: anyone who can reach it can read and change its queues\n", given)
	var serving []net.IP
	for _, ip := range ips {
		if ip.IsLinkLocalUnicast() || ip.To4() == nil && addr.IP.To4() != nil {
			continue // an IPv4 wildcard does not serve IPv6
		}
		serving = append(serving, ip)
	}
	rank := func(ip net.IP) int {
		r := 0
		if !ip.IsLoopback() {
			r += 2
		}
		if ip.To4() == nil {
			r++
		}
		return r
	}
	slices.SortFunc(serving, func(a, b net.IP) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return bytes.Compare(a.To16(), b.To16())
	})
	urls := make([]string, len(serving))
	for i, ip := range serving {
		urls[i] = "http://" + net.JoinHostPort(ip.String(), strconv.Itoa(addr.Port))
	}
	fmt.Fprintf(w, "sqsfake: listening on %s: %s\n", addr, strings.Join(urls, ", "))
	if !endpointGiven {
		fmt.Fprintf(w, "sqsfake: queue URLs name %s; for clients on other machines, pass -endpoint with a name they reach this machine by\n", endpoint)
	}
}

// interfaceIPs returns the addresses of the machine's network interfaces that are up.
func interfaceIPs() []net.IP {
	ifaces, err := net.Interfaces()
	if err != nil {
		return nil
	}
	var ips []net.IP
	for _, iface := range ifaces {
		if iface.Flags&net.FlagUp == 0 {
			continue
		}
		addrs, err := iface.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok {
				ips = append(ips, n.IP)
			}
		}
	}
	return ips
}

// server is the HTTP handler of the command: SQS requests go to the current fake's Handler,
// /_sqsfake/ requests to the control endpoints.
type server struct {
	cfg          config
	endpointHost string // the host name of cfg.endpoint, in lower case
	logger       *log.Logger
	reset        sync.Mutex // one reset at a time
	resets       uint64     // resets so far, guarded by reset: the epoch of the next fake's receipt handles
	advance      sync.Mutex // one clock move at a time: its limit is checked, then applied
	cur          atomic.Pointer[instance]
}

// instance is one fake and its wire handler; a reset replaces it.
type instance struct {
	fake   *sqsfake.Fake
	topics *snsfake.Fake // SNS on the same fake
	wire   http.Handler
}

// controlPrefix is the path of the control endpoints; SQS requests never use it (they post to
// "/" or to a queue URL, "/<12-digit account>/<name>").
const controlPrefix = "/_sqsfake/"

func newServer(cfg config) (*server, error) {
	s := &server{cfg: cfg}
	if u, err := url.Parse(cfg.endpoint); err == nil {
		s.endpointHost = strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	}
	in, err := s.newInstance()
	if err != nil {
		return nil, err
	}
	s.cur.Store(in)
	return s, nil
}

// serverHistoryLimit bounds the server's event log (3 to 15 bytes an event, 52 at most:
// about 10 MB, 55 MB at worst), and serverCallLimit its call record (at most about 60 MB).
const (
	serverHistoryLimit = 1 << 20
	serverCallLimit    = 1 << 17
	// serverRecordBytes bounds SNS's publication record (snsfake.WithRecordBytes): the
	// newest publications in about 32 MiB, each with the first 4 KiB of each delivery's
	// body; GET /_sqsfake/topics answers about that much at most.
	serverRecordBytes = 32 << 20
)

// options are the options of the fake the command line describes.
func (c config) options() []sqsfake.Option {
	opts := []sqsfake.Option{
		sqsfake.WithRegion(c.region),
		sqsfake.WithAccountID(c.account),
		sqsfake.WithEndpoint(c.endpoint),
		sqsfake.WithPurgeCooldown(c.purgeCooldown),
		// A server runs for long: keep the last million events of message timelines
		// rather than every event since it started.
		sqsfake.WithHistoryLimit(serverHistoryLimit),
		// and the last 131,072 calls (about 72 bytes a call, and the strings each keeps: a
		// receipt handle, a body of up to 256 bytes).
		sqsfake.WithCallLimit(serverCallLimit),
	}
	if c.clock == "real" {
		opts = append(opts, sqsfake.WithClock(sqsfake.RealClock{}))
	}
	if c.seed != 0 {
		opts = append(opts, sqsfake.WithSeed(c.seed))
	}
	if c.credentials != nil {
		opts = append(opts, sqsfake.WithCredentials(c.credentials...))
	}
	return opts
}

// newInstance builds a fake as the command line describes it, with its start-up queues.
func (s *server) newInstance() (*instance, error) {
	// Each reset gives a new fake; its handles are those of a fake reset as often, so that no
	// handle issued before a reset names one of its messages.
	opts := append(s.cfg.options(), companion.WithEpoch(s.resets))
	if err := sqsfake.CheckOptions(opts...); err != nil {
		return nil, flagError(err) // the server reports it rather than let New panic
	}
	f := sqsfake.New(opts...)
	for _, name := range s.cfg.queues {
		in := &sqs.CreateQueueInput{QueueName: aws.String(name)}
		if strings.HasSuffix(name, ".fifo") {
			in.Attributes = map[string]string{"FifoQueue": "true"}
		}
		if _, err := f.CreateQueue(context.Background(), in); err != nil {
			return nil, queueFlagError(name, err)
		}
	}
	// SNS's wire beside SQS's on the one port (snsfake.Handler's routing rule).
	topics := snsfake.New(f, snsfake.WithRecordBytes(serverRecordBytes))
	// Its http/https subscriptions get real POSTs: loopback, and the hosts of -sns-http-hosts.
	topics.SetHTTPDelivery(snsfake.HTTPDelivery{Network: true, AllowHost: s.cfg.snsHostAllowed})
	return &instance{fake: f, topics: topics, wire: topics.Handler(f.Handler())}, nil
}

// snsHostAllowed reports whether -sns-http-hosts lets SNS POST to host (besides loopback,
// which it always may).
func (c config) snsHostAllowed(host string) bool {
	for _, h := range c.snsHTTPHosts {
		if h == "*" || h == host {
			return true
		}
	}
	return false
}

// queueFlagError words SQS's refusal of a -queues name as an error of the flag: the name and
// SQS's naming rule, without the SDK's wrapping of the error.
func queueFlagError(name string, err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		msg := ae.ErrorMessage()
		if !strings.HasSuffix(name, ".fifo") {
			msg += " (a name ending in .fifo creates a FIFO queue)"
		}
		return fmt.Errorf("-queues: SQS refuses the queue name %q: %s", name, msg)
	}
	return fmt.Errorf("-queues %s: %v", name, err)
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.logger != nil {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		w = rec
		ctx, note := reqlog.With(r.Context())
		r = r.WithContext(ctx)
		defer func() {
			what := r.Header.Get("X-Amz-Target")
			if what == "" {
				what = r.URL.Path
			}
			// The path, the target and the Action come from the client: quoted, they cannot
			// forge a line. A query request's Action is noted by the wire handler, which
			// read it from the query string or the form body.
			action := ""
			if note.Action != "" {
				action = " Action=" + strconv.Quote(note.Action)
			}
			outcome := strconv.Itoa(rec.status)
			if note.Gone != "" {
				// Not a server error: the client went away, and the answer reached no one.
				outcome = "client went away: " + note.Gone + " (its " + outcome + " answer reached no one)"
			}
			s.logger.Printf("%s %s %q%s → %s in %v", r.RemoteAddr, r.Method, what, action, outcome, time.Since(start).Round(time.Microsecond))
			for _, line := range note.Lines {
				s.logger.Printf("  %s", line)
			}
			if note.Omitted > 0 {
				s.logger.Printf("  … and %d more", note.Omitted)
			}
		}()
	}
	control := strings.HasPrefix(r.URL.Path, controlPrefix)
	if !s.hostAllowed(r.Host) {
		msg := "Host " + strconv.Quote(r.Host) + " is not this server's: it serves loopback names and addresses (localhost, 127.0.0.1, [::1]) and the host of -endpoint (" +
			s.endpointHost + "); pass -endpoint with the name clients use, or -allow-remote"
		if control {
			writeJSON(w, http.StatusForbidden, errorBody(msg))
		} else {
			writeAccessDenied(w, msg)
		}
		return
	}
	if control {
		s.control(w, r)
		return
	}
	if why := crossSite(r); why != "" {
		// A query-protocol GET or form post is a simple request, which a browser sends to any
		// site without asking: refused, a page of another site cannot drive the queues.
		writeAccessDenied(w, "SQS requests from a page of another site are refused (cross-site request: "+why+")")
		return
	}
	s.cur.Load().wire.ServeHTTP(w, r)
}

// hostAllowed reports whether a request's Host header names this server: a loopback name or
// address, or the host of -endpoint; with -allow-remote, any. A page on another site that
// reaches the server by DNS rebinding (its own name resolving to 127.0.0.1) sends its own
// name, so it is refused.
func (s *server) hostAllowed(hostport string) bool {
	if s.cfg.allowRemote {
		return true
	}
	host := guard.HostName(hostport)
	return guard.Loopback(host) || host != "" && host == s.endpointHost
}

// writeAccessDenied refuses an SQS request as SQS refuses one it does not authorize, so that
// SDKs show the message: HTTP 403 and the legacy code AccessDenied.
func writeAccessDenied(w http.ResponseWriter, msg string) {
	b, _ := json.Marshal(map[string]string{"__type": "com.amazon.coral.service#AccessDeniedException", "message": msg})
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.Header().Set("X-Amzn-Query-Error", "AccessDenied;Sender")
	w.WriteHeader(http.StatusForbidden)
	w.Write(b)
}

// controlHeader must be on every control request but GET /_sqsfake/health. A page on
// another site cannot make a browser send a custom header without the server's consent (a
// CORS preflight, which this server never grants), so a form post or a fetch from a web page
// cannot reset, advance or read the fake; curl, test suites and SDK-side helpers just add it.
const controlHeader = guard.ControlHeader

// crossSite explains why r comes from a page of another origin, or returns "" (see
// guard.CrossSite).
func crossSite(r *http.Request) string { return guard.CrossSite(r) }

// statusRecorder remembers the status a handler wrote, for the request log.
type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (r *statusRecorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

// control serves the control endpoints.
func (s *server) control(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, controlPrefix)
	if why := crossSite(r); why != "" {
		writeJSON(w, http.StatusForbidden, errorBody("control requests from a page of another site are refused (cross-site request: "+why+")"))
		return
	}
	if name == "console" || strings.HasPrefix(name, "console/") {
		// The fake's console (sqsfake.ConsolePath): its page is opened by typing its address,
		// which sends no control header; its JSON endpoints check the header themselves.
		s.cur.Load().wire.ServeHTTP(w, guard.WithServer(r, &guard.Server{Clock: s.cfg.clock,
			Advance: controlPrefix + "advance", Reset: controlPrefix + "reset", Token: s.cfg.controlToken,
			Topics: controlPrefix + "topics", Publications: controlPrefix + "publications"}))
		return
	}
	// Signed mode: the control endpoints read every account's messages and handles and
	// reset every account, so they need a secret too.
	if name != "health" {
		why := ""
		switch guard.Control(r, s.cfg.credentials != nil, s.cfg.controlToken) {
		case guard.NoHeader:
			why = "control requests need the header " + controlHeader + ": 1, which a page of another site cannot send"
		case guard.Closed:
			why = "in signed mode (-credentials) the control endpoints are closed unless the server is started with -control-token"
		case guard.WrongToken:
			why = "in signed mode control requests need the header " + controlHeader + ": <the -control-token>"
		}
		if why != "" {
			writeJSON(w, http.StatusForbidden, errorBody(why))
			return
		}
	}
	in := s.cur.Load()
	switch name {
	case "health":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}
	case "state":
		if allow(w, r, http.MethodGet) {
			s.state(w, r, in.fake, in.topics)
		}
	case "topics":
		if allow(w, r, http.MethodGet) {
			topicsEndpoint(w, r, in.topics)
		}
	case "publications":
		if allow(w, r, http.MethodGet) {
			publicationsEndpoint(w, r, in.topics)
		}
	case "advance":
		if !allow(w, r, http.MethodPost) {
			return
		}
		if s.cfg.clock != "virtual" {
			writeJSON(w, http.StatusConflict, errorBody("the server runs on the real clock; start it with -clock virtual to move time"))
			return
		}
		q := r.URL.Query()
		if !q.Has("d") {
			writeJSON(w, http.StatusBadRequest, errorBody("advance needs ?d=<duration>, how far to move the clock, such as ?d=30s"))
			return
		}
		d, err := parseDuration(q.Get("d"), "30s")
		if err == nil && d < 0 {
			err = errors.New("the clock cannot go back; want 0 or more")
		}
		if err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody(fmt.Sprintf("?d=%s: %v", q.Get("d"), err)))
			return
		}
		s.advance.Lock()
		defer s.advance.Unlock()
		if in.fake.Now().Add(d).After(sqsfake.LatestTime()) {
			writeJSON(w, http.StatusBadRequest, errorBody("the clock cannot move past "+sqsfake.LatestTime().Format(time.RFC3339)))
			return
		}
		in.fake.Advance(d)
		writeJSON(w, http.StatusOK, clockBody(in.fake))
	case "pollers":
		if !allow(w, r, http.MethodGet, http.MethodPost) {
			return
		}
		s.pollers(w, r, in.fake)
	case "idle":
		if allow(w, r, http.MethodGet, http.MethodPost) {
			s.idle(w, r, in.fake)
		}
	case "reset":
		if allow(w, r, http.MethodPost) {
			f, err := s.resetState(r.Context())
			if err != nil {
				writeJSON(w, http.StatusInternalServerError, errorBody(err.Error()))
				return
			}
			writeJSON(w, http.StatusOK, clockBody(f))
		}
	default:
		writeJSON(w, http.StatusNotFound, errorBody("no control endpoint "+strconv.Quote(r.URL.Path)+"; there are "+controlPrefix+"{health,state,advance,pollers,idle,reset} (go doc github.com/sqsfake/sqsfake/cmd/sqsfake)"))
	}
}

// pollers reports how many receives are parked in long polls; with n, it first waits until
// at least n are (up to timeout, 10 s by default), so a test can move the clock knowing
// that its poll has started.
func (s *server) pollers(w http.ResponseWriter, r *http.Request, f *sqsfake.Fake) {
	q := r.URL.Query()
	if q.Has("n") {
		n, err := strconv.Atoi(q.Get("n"))
		if err != nil || n < 0 {
			writeJSON(w, http.StatusBadRequest, errorBody("?n="+q.Get("n")+": want how many long polls to wait for, a whole number of 0 or more, such as ?n=1"))
			return
		}
		timeout, ok := waitTimeout(w, q)
		if !ok {
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		if err := f.WaitForPollers(ctx, n); err != nil {
			writeJSON(w, http.StatusRequestTimeout, map[string]any{"error": fmt.Sprintf("fewer than %d polls parked after %v", n, timeout), "pollers": f.Pollers()})
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]int{"pollers": f.Pollers()})
}

// waitTimeout reads the ?timeout= of a waiting endpoint, 10 s by default; on a bad value it
// answers 400 and returns false.
func waitTimeout(w http.ResponseWriter, q url.Values) (time.Duration, bool) {
	if !q.Has("timeout") {
		return 10 * time.Second, true
	}
	timeout, err := parseDuration(q.Get("timeout"), "5s")
	if err == nil && timeout < 0 {
		err = errors.New("want 0 or more")
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, errorBody(fmt.Sprintf("?timeout=%s: %v", q.Get("timeout"), err)))
		return 0, false
	}
	return timeout, true
}

// idle reports how many calls have begun and how many are parked; with calls=N, it first
// waits until N calls have begun and every call has returned or is waiting on the clock (up
// to timeout), so a test can move the clock knowing its poll got as far as it can.
func (s *server) idle(w http.ResponseWriter, r *http.Request, f *sqsfake.Fake) {
	q := r.URL.Query()
	answer := func(status int, errText string) {
		body := map[string]any{"calls": f.CallCount(), "pollers": f.Pollers()}
		if errText != "" {
			body["error"] = errText
		}
		writeJSON(w, status, body)
	}
	n := 0
	if q.Has("calls") {
		var err error
		if n, err = strconv.Atoi(q.Get("calls")); err != nil || n < 0 {
			writeJSON(w, http.StatusBadRequest, errorBody("?calls="+q.Get("calls")+": want how many calls must have begun, a whole number of 0 or more: the calls of an earlier answer plus those you started since"))
			return
		}
	}
	timeout, ok := waitTimeout(w, q)
	if !ok {
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	if err := f.WaitForCalls(ctx, n); err != nil {
		answer(http.StatusRequestTimeout, err.Error())
		return
	}
	answer(http.StatusOK, "")
}

// resetState replaces the fake with a fresh one, as at start. The old fake's queues are
// deleted first, which ends its parked long polls with empty results.
func (s *server) resetState(ctx context.Context) (*sqsfake.Fake, error) {
	s.reset.Lock()
	defer s.reset.Unlock()
	s.resets++
	fresh, err := s.newInstance()
	if err != nil {
		s.resets--
		return nil, err
	}
	old := s.cur.Swap(fresh)
	urls, err := allQueueURLs(ctx, old.fake)
	if err != nil {
		return nil, err
	}
	for _, u := range urls {
		if _, err := old.fake.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(u)}); err != nil {
			return nil, err
		}
	}
	return fresh.fake, nil
}

// The bounds of GET /_sqsfake/state: messages a queue by default, and at most.
const (
	stateLimit    = 1000
	stateMaxLimit = 10000
)

// stateHead is the answer of GET /_sqsfake/state but its queues.
type stateHead struct {
	Now      time.Time `json:"now"`
	Clock    string    `json:"clock"`
	Region   string    `json:"region"`
	Account  string    `json:"account"`
	Endpoint string    `json:"endpoint"`
	Pollers  int       `json:"pollers"`
	// Topics are SNS's topics with their subscriptions (GET /_sqsfake/topics adds the
	// publications).
	Topics []snsfake.TopicInfo `json:"topics"`
}

// pageHead is a queue of the answer but its messages, which follow it.
type pageHead struct {
	companion.QueuePage
	Messages []sqsfake.MessageInfo `json:"messages,omitempty"` // always nil: hides the page's
}

// state answers GET /_sqsfake/state: the clock and the server's settings, then each queue
// (?queue= one, by name, URL or ARN) with its attributes, tags, counters and up to ?limit=
// messages (1000 by default) in arrival order, "truncated" when more follow and "next" the
// cursor that ?after= takes to page on. The answer is streamed queue by queue and message by
// message, and each queue is read from the fake on its own, so its memory is a page's
// whatever the queues hold. It reads state without making SQS calls, so it does not move the
// fake's request ids.
func (s *server) state(w http.ResponseWriter, r *http.Request, f *sqsfake.Fake, topics *snsfake.Fake) {
	q := r.URL.Query()
	for _, k := range []string{"queue", "limit", "after"} {
		if len(q[k]) > 1 {
			writeJSON(w, http.StatusBadRequest, errorBody("?"+k+"= is given "+strconv.Itoa(len(q[k]))+" times; give it once"))
			return
		}
	}
	limit := stateLimit
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		if err != nil || n < 0 || n > stateMaxLimit {
			writeJSON(w, http.StatusBadRequest, errorBody("?limit="+q.Get("limit")+": want how many messages to list a queue, from 0 to "+strconv.Itoa(stateMaxLimit)))
			return
		}
		limit = n
	}
	var after uint64
	if q.Has("after") {
		var err error
		if after, err = strconv.ParseUint(q.Get("after"), 10, 64); err != nil {
			writeJSON(w, http.StatusBadRequest, errorBody("?after="+q.Get("after")+": want the \"next\" cursor of an earlier answer, a whole number"))
			return
		}
		if !q.Has("queue") {
			writeJSON(w, http.StatusBadRequest, errorBody("?after= pages through one queue: give ?queue=<name>&after=<the queue's \"next\">"))
			return
		}
	}
	head := stateHead{Now: f.Now().UTC(), Clock: s.cfg.clock, Region: companion.Region(f), Account: companion.AccountID(f),
		Endpoint: s.cfg.endpoint, Pollers: f.Pollers(), Topics: topics.Topics()}
	var names []string
	var first *companion.QueuePage
	if q.Has("queue") {
		page, err := companion.Page(f, q.Get("queue"), after, limit)
		if err != nil {
			writeJSON(w, http.StatusNotFound, errorBody("?queue="+strings.TrimPrefix(err.Error(), "sqsfake: ")))
			return
		}
		first = &page
	} else {
		names = companion.QueueARNs(f) // ARNs: one name may be a queue in several accounts and regions
	}

	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	b, _ := marshalIndent(head, "", "  ")
	bw.Write(bytes.TrimSuffix(b, []byte("\n}")))
	bw.WriteString(",\n  \"queues\": [")
	n := 0
	write := func(page *companion.QueuePage) {
		if n > 0 {
			bw.WriteByte(',')
		}
		n++
		bw.WriteString("\n    ")
		writePage(bw, page)
	}
	if first != nil {
		write(first)
	}
	for _, name := range names {
		if r.Context().Err() != nil {
			return // the client went away
		}
		if page, err := companion.Page(f, name, 0, limit); err == nil { // not deleted since QueueARNs
			write(&page)
		}
	}
	if n > 0 {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	bw.Flush()
}

// writePage writes a queue of the state's answer, its messages one by one, indented as the
// second level of the answer.
func writePage(w *bufio.Writer, page *companion.QueuePage) {
	const indent = "    "
	b, _ := marshalIndent(pageHead{QueuePage: *page}, indent, "  ")
	w.Write(bytes.TrimSuffix(b, []byte("\n"+indent+"}")))
	w.WriteString(",\n" + indent + "  \"messages\": [")
	for i := range page.Messages {
		if i > 0 {
			w.WriteByte(',')
		}
		b, _ := marshalIndent(&page.Messages[i], indent+"    ", "  ")
		w.WriteString("\n" + indent + "    ")
		w.Write(b)
	}
	if len(page.Messages) > 0 {
		w.WriteString("\n" + indent + "  ")
	}
	w.WriteString("]\n" + indent + "}")
}

// allQueueURLs lists every queue of f, page by page.
func allQueueURLs(ctx context.Context, f *sqsfake.Fake) ([]string, error) {
	var urls []string
	p := sqs.NewListQueuesPaginator(f, &sqs.ListQueuesInput{MaxResults: aws.Int32(1000)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		urls = append(urls, out.QueueUrls...)
	}
	sort.Strings(urls)
	return urls, nil
}

func clockBody(f *sqsfake.Fake) map[string]time.Time {
	return map[string]time.Time{"now": f.Now().UTC()}
}

func errorBody(msg string) map[string]string { return map[string]string{"error": msg} }

// allow answers 405 unless r uses one of methods.
func allow(w http.ResponseWriter, r *http.Request, methods ...string) bool {
	for _, m := range methods {
		if r.Method == m {
			return true
		}
	}
	w.Header().Set("Allow", strings.Join(methods, ", "))
	writeJSON(w, http.StatusMethodNotAllowed, errorBody(r.Method+" "+r.URL.Path+": use "+strings.Join(methods, " or ")))
	return false
}

// marshalIndent is json.MarshalIndent without HTML escaping: the answers are read by people
// and programs, never embedded in HTML, and "<duration>" should not read "\u003cduration\u003e".
func marshalIndent(v any, prefix, indent string) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := marshalIndent(v, "", "  ")
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"could not encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

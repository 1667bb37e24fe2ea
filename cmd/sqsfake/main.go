// Command sqsfake serves an in-memory, deterministic Amazon SQS over HTTP, for tests written in
// any language and for trying SQS code locally. It speaks SQS's wire protocol (awsJson1_0), so
// the AWS CLI, boto3 and every current AWS SDK work against it with an endpoint URL:
//
//	go run ./cmd/sqsfake -queues jobs,jobs-dlq
//	aws sqs send-message --endpoint-url http://127.0.0.1:9324 --region us-east-1 \
//	    --queue-url http://127.0.0.1:9324/123456789012/jobs --message-body hi
//
// Flags:
//
//	-addr 127.0.0.1:9324   where to listen; loopback only unless -allow-remote
//	-allow-remote          serve on a non-loopback address (the fake has no authentication)
//	-endpoint URL          the base of the queue URLs it hands out (default: http://<addr>)
//	-region us-east-1      the region of queue URLs and ARNs
//	-account 123456789012  the account of queue URLs and ARNs
//	-clock real|virtual    real: time passes as on AWS (the default); virtual: time stands
//	                       still at 2025-01-01T00:00:00Z until POST /_sqsfake/advance moves it
//	-queues a,b,c.fifo     queues to create at start (a .fifo name creates a FIFO queue)
//	-seed N                the seed of message ids, receipt handles and request ids
//	-v                     log every request to stderr
//
// The clock is real by default because a server someone starts by hand should behave as SQS
// does: a received message comes back when its visibility timeout passes, and a long poll
// returns after its wait time. A test suite that wants determinism starts the server with
// -clock virtual and moves time itself; then nothing happens in time until it does — a long
// poll waits until the clock is advanced past its wait time or a message arrives.
//
// Control endpoints, under a path no SQS request uses (JSON answers):
//
//	GET  /_sqsfake/health                     200 when the server is up
//	GET  /_sqsfake/state                      the clock, every queue with its attributes, tags, counters and messages
//	POST /_sqsfake/advance?d=30s              move the virtual clock (409 with -clock real)
//	GET  /_sqsfake/pollers?n=1&timeout=10s    wait until n receives are parked in long polls
//	GET  /_sqsfake/idle?calls=N&timeout=10s   wait until N calls have begun and each has returned or parked
//	POST /_sqsfake/reset                      back to the state at start: a fresh fake, a fresh clock
//
// GET /_sqsfake/idle answers {"calls": C, "pollers": P}: C calls have begun since start or
// reset (the start-up queues' CreateQueue calls and refused requests included), P are parked.
// With ?calls=N it first waits until N calls have begun and every call has either returned
// or is waiting on the clock — a long poll parked — up to timeout (10 s by default; 408
// after). That is the race-free way to move the clock after a poll started elsewhere, whether
// it parked or returned at once: read C, start the poll, wait for calls=C+1, then advance.
//
// SIGINT or SIGTERM shut the server down gracefully: it stops accepting connections, answers
// the long polls still waiting with 503 ServiceUnavailable, and lets other requests finish.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sqsfake/sqsfake"
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
	queues           []string
	seed             uint64
	allowRemote, log bool
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	var c config
	var queues string
	fs := flag.NewFlagSet("sqsfake", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:9324", "`host:port` to listen on; loopback only unless -allow-remote")
	fs.BoolVar(&c.allowRemote, "allow-remote", false, "allow a non-loopback -addr (the fake has no authentication)")
	fs.StringVar(&c.endpoint, "endpoint", "", "the `URL` queue URLs name (default http://<addr>)")
	fs.StringVar(&c.region, "region", sqsfake.DefaultRegion, "the `region` of queue URLs and ARNs")
	fs.StringVar(&c.account, "account", sqsfake.DefaultAccountID, "the 12-digit `account` of queue URLs and ARNs")
	fs.StringVar(&c.clock, "clock", "real", "`real` (time passes) or virtual (time moves only on POST /_sqsfake/advance)")
	fs.StringVar(&queues, "queues", "", "comma-separated queue `names` to create at start; name.fifo creates a FIFO queue")
	fs.Uint64Var(&c.seed, "seed", 0, "the `seed` of message ids, receipt handles and request ids (0: the fake's default)")
	fs.BoolVar(&c.log, "v", false, "log every request to stderr")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: sqsfake [flags]\n\nServes an in-memory Amazon SQS (awsJson1_0) for tests. Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if c.clock != "real" && c.clock != "virtual" {
		return c, fmt.Errorf("-clock %q: want real or virtual", c.clock)
	}
	if !regexp.MustCompile(`^[0-9]{12}$`).MatchString(c.account) {
		return c, fmt.Errorf("-account %q: want 12 digits", c.account)
	}
	// A region as AWS names them (us-east-1, us-gov-west-1, cn-northwest-1): it goes into
	// every queue URL and ARN.
	if !regexp.MustCompile(`^[a-z]{2,}(-[a-z]+)+-[0-9]+$`).MatchString(c.region) {
		return c, fmt.Errorf("-region %q: want a region such as us-east-1", c.region)
	}
	if c.endpoint != "" {
		u, err := url.Parse(c.endpoint)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return c, fmt.Errorf("-endpoint %q: want an http or https URL without a path, such as http://127.0.0.1:9324", c.endpoint)
		}
	}
	for _, q := range strings.Split(queues, ",") {
		if q = strings.TrimSpace(q); q != "" {
			c.queues = append(c.queues, q)
		}
	}
	return c, checkListenAddr(c.addr, c.allowRemote)
}

// checkListenAddr refuses an address that is not loopback unless remote access is allowed:
// anyone who can reach the server can read and change its queues.
func checkListenAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("-addr %q: %v", addr, err)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-addr %s is not a loopback address; the fake has no authentication, so pass -allow-remote to serve other hosts", addr)
}

// run serves until ctx ends, then shuts down gracefully.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	addr := ln.Addr().(*net.TCPAddr)
	if !cfg.allowRemote && !addr.IP.IsLoopback() {
		ln.Close()
		return fmt.Errorf("-addr %s resolved to %s, which is not loopback; pass -allow-remote to serve other hosts", cfg.addr, addr)
	}
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

	base, cancelBase := context.WithCancel(context.Background())
	defer cancelBase()
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
	fmt.Fprintf(stdout, "sqsfake: serving SQS at %s (region %s, account %s, %s clock)\n", cfg.endpoint, cfg.region, cfg.account, cfg.clock)

	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	// Long polls on a virtual clock would wait forever: end them, then let the rest finish.
	cancelBase()
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = hs.Shutdown(shutdown)
	<-served
	fmt.Fprintln(stdout, "sqsfake: stopped")
	return err
}

// server is the HTTP handler of the command: SQS requests go to the current fake's Handler,
// /_sqsfake/ requests to the control endpoints.
type server struct {
	cfg     config
	logger  *log.Logger
	reset   sync.Mutex // one reset at a time
	advance sync.Mutex // one clock move at a time: its limit is checked, then applied
	cur     atomic.Pointer[instance]
}

// instance is one fake and its wire handler; a reset replaces it.
type instance struct {
	fake *sqsfake.Fake
	wire http.Handler
}

// controlPrefix is the path of the control endpoints; SQS requests never use it (they post to
// "/" or to a queue URL, "/<12-digit account>/<name>").
const controlPrefix = "/_sqsfake/"

func newServer(cfg config) (*server, error) {
	s := &server{cfg: cfg}
	in, err := s.newInstance()
	if err != nil {
		return nil, err
	}
	s.cur.Store(in)
	return s, nil
}

// serverHistoryLimit bounds the server's event log (48 bytes an event: about 50 MB), and
// serverCallLimit its call record (at most about 60 MB).
const (
	serverHistoryLimit = 1 << 20
	serverCallLimit    = 1 << 17
)

// newInstance builds a fake as the command line describes it, with its start-up queues.
func (s *server) newInstance() (*instance, error) {
	opts := []sqsfake.Option{
		sqsfake.WithRegion(s.cfg.region),
		sqsfake.WithAccountID(s.cfg.account),
		sqsfake.WithEndpoint(s.cfg.endpoint),
		// A server runs for long: keep the last million events of message timelines
		// rather than every event since it started.
		sqsfake.WithHistoryLimit(serverHistoryLimit),
		// and the last 131,072 calls (about 72 bytes a call, and the strings each keeps: a
		// receipt handle, a body of up to 256 bytes).
		sqsfake.WithCallLimit(serverCallLimit),
	}
	if s.cfg.clock == "real" {
		opts = append(opts, sqsfake.WithClock(sqsfake.RealClock{}))
	}
	if s.cfg.seed != 0 {
		opts = append(opts, sqsfake.WithSeed(s.cfg.seed))
	}
	f := sqsfake.New(opts...)
	for _, name := range s.cfg.queues {
		in := &sqs.CreateQueueInput{QueueName: aws.String(name)}
		if strings.HasSuffix(name, ".fifo") {
			in.Attributes = map[string]string{"FifoQueue": "true"}
		}
		if _, err := f.CreateQueue(context.Background(), in); err != nil {
			return nil, fmt.Errorf("-queues: %v", err)
		}
	}
	return &instance{fake: f, wire: f.Handler()}, nil
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.logger != nil {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		w = rec
		defer func() {
			what := r.Header.Get("X-Amz-Target")
			if what == "" {
				what = r.URL.Path
			}
			s.logger.Printf("%s %s %s → %d in %v", r.RemoteAddr, r.Method, what, rec.status, time.Since(start).Round(time.Microsecond))
		}()
	}
	if strings.HasPrefix(r.URL.Path, controlPrefix) {
		s.control(w, r)
		return
	}
	s.cur.Load().wire.ServeHTTP(w, r)
}

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
	in := s.cur.Load()
	switch name := strings.TrimPrefix(r.URL.Path, controlPrefix); name {
	case "health":
		if allow(w, r, http.MethodGet) {
			writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		}
	case "state":
		if allow(w, r, http.MethodGet) {
			st, err := s.state(r.Context(), in.fake)
			if err != nil {
				writeJSON(w, http.StatusInternalServerError, errorBody(err.Error()))
				return
			}
			writeJSON(w, http.StatusOK, st)
		}
	case "advance":
		if !allow(w, r, http.MethodPost) {
			return
		}
		if s.cfg.clock != "virtual" {
			writeJSON(w, http.StatusConflict, errorBody("the server runs on the real clock; start it with -clock virtual to move time"))
			return
		}
		d, err := time.ParseDuration(r.URL.Query().Get("d"))
		if err != nil || d < 0 {
			writeJSON(w, http.StatusBadRequest, errorBody("want ?d=<duration>, a non-negative Go duration such as 30s or 1h"))
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
		writeJSON(w, http.StatusNotFound, errorBody("no control endpoint "+strconv.Quote(r.URL.Path)+"; see go doc github.com/sqsfake/sqsfake/cmd/sqsfake"))
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
			writeJSON(w, http.StatusBadRequest, errorBody("want ?n=<count of parked polls>"))
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
	timeout, err := time.ParseDuration(q.Get("timeout"))
	if err != nil || timeout < 0 {
		writeJSON(w, http.StatusBadRequest, errorBody("want ?timeout=<duration>, such as 5s"))
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
			writeJSON(w, http.StatusBadRequest, errorBody("want ?calls=<count of calls begun>"))
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
	fresh, err := s.newInstance()
	if err != nil {
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

// stateBody is the answer of GET /_sqsfake/state.
type stateBody struct {
	Now      time.Time           `json:"now"`
	Clock    string              `json:"clock"`
	Region   string              `json:"region"`
	Account  string              `json:"account"`
	Endpoint string              `json:"endpoint"`
	Pollers  int                 `json:"pollers"`
	Queues   []sqsfake.QueueInfo `json:"queues"`
}

// state builds the snapshot from the fake's inspection: every queue with all its attributes
// (the message counts among them), tags, CloudWatch-style counters and messages. It reads
// state without making SQS calls, so it does not move the fake's request ids.
func (s *server) state(_ context.Context, f *sqsfake.Fake) (*stateBody, error) {
	queues := f.Queues()
	if queues == nil {
		queues = []sqsfake.QueueInfo{}
	}
	return &stateBody{Now: f.Now().UTC(), Clock: s.cfg.clock, Region: f.Region(), Account: f.AccountID(),
		Endpoint: s.cfg.endpoint, Pollers: f.Pollers(), Queues: queues}, nil
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

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"error":"could not encode the answer"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

package snsfake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/sqsfake/sqsfake/companion"
)

// HTTP/S endpoints: where the fake's POSTs go. In a Go test an endpoint is an http.Handler
// registered for a URL (HandleEndpoint) and called in memory; with SetHTTPDelivery's
// Network, a URL no handler is registered for is reached over real HTTP — loopback only,
// unless AllowHost says otherwise (cmd/sqsfake's -sns-http-hosts).

// DefaultHandlerWait is how long, in real time, an in-memory endpoint's handler may take to
// answer before the fake counts the attempt as timed out, as SNS does after 15 seconds
// without an answer: see HTTPDelivery.HandlerWait.
const DefaultHandlerWait = 10 * time.Second

// endpointTimeout is how long SNS waits for an endpoint's answer: "The connection will time
// out in 15 seconds" (SPEC-sns.md §14.3). A timed-out attempt lasts that long on the fake's
// clock, so that the next retry comes its delay after it.
const endpointTimeout = 15 * time.Second

// maxNetworkAnswer is how much of an endpoint's answer the fake reads over the network
// before it closes the connection: SNS reads the status; the rest is discarded.
const maxNetworkAnswer = 64 << 10

// HTTPDelivery says how the fake reaches HTTP/S endpoints.
type HTTPDelivery struct {
	// HandlerWait is how long, in real time, an in-memory handler (HandleEndpoint) may take
	// before the attempt counts as timed out — SNS's 15-second timeout — and the request's
	// context is cancelled; the handler's goroutine is left to return on its own. 0 means
	// DefaultHandlerWait. A test that wants a timeout without waiting injects a fault on
	// "SNS.Deliver" with a Latency of 15 seconds or more.
	HandlerWait time.Duration
	// Network makes the fake POST over real HTTP to an endpoint no handler is registered
	// for, with SNS's 15-second timeout, following no redirect and reading at most 64 KiB
	// of the answer. Without it such an attempt fails as a refused connection, and no
	// request leaves the process.
	Network bool
	// AllowHost reports whether Network may reach a host (a name or an IP, without port)
	// that is not loopback; nil allows loopback only. A subscription to a host it does not
	// allow is refused as SNS refuses an endpoint it cannot reach ("Invalid parameter:
	// Unreachable Endpoint"), and every connection is checked again as it is made, so that
	// a name that resolves elsewhere later is not reached either.
	AllowHost func(host string) bool
	// Client, if set, is the client Network uses instead of the fake's own (for an
	// httptest.NewTLSServer's Client(), say); it should not follow redirects. AllowHost still
	// decides which subscriptions are accepted, but connections are the client's.
	Client *http.Client
}

// endpoints is the fake's registry of in-memory endpoints and its network settings.
type endpoints struct {
	mu       sync.RWMutex
	handlers []registeredEndpoint // longest prefix first
	cfg      HTTPDelivery
	client   *http.Client // Network's, made from cfg
}

type registeredEndpoint struct {
	prefix string // normalised: lower-case scheme and host, no trailing slash
	h      http.Handler
	key    *int
}

// HandleEndpoint makes h the HTTP/S endpoint at rawURL: every POST the fake makes to a
// subscription whose Endpoint is rawURL, or starts with it followed by "/", "?" or "#",
// goes to h, in memory, on a goroutine of its own (a handler that panics drops the
// connection; one that takes longer than HTTPDelivery.HandlerWait of real time counts as
// SNS's 15-second timeout). For an httptest.Server, register its URL and its handler:
// s.HandleEndpoint(srv.URL, srv.Config.Handler). The longest registered URL wins. remove
// unregisters h; it is idempotent. Registrations outlive Reset: they are the test's wiring.
//
// h sees SNS's POST as AWS sends it (SPEC-sns.md §14.2): its headers, the envelope or raw
// message, the signature a stock validator checks. To confirm a subscription by its
// SubscribeURL, or to fetch SigningCertURL, h uses HTTPClient, which reaches the fake in
// memory.
func (s *Fake) HandleEndpoint(rawURL string, h http.Handler) (remove func()) {
	prefix := normalizeEndpoint(rawURL)
	key := new(int)
	e := &s.endpoints
	e.mu.Lock()
	defer e.mu.Unlock()
	e.handlers = append(e.handlers, registeredEndpoint{prefix: prefix, h: h, key: key})
	for i := len(e.handlers) - 1; i > 0 && len(e.handlers[i].prefix) > len(e.handlers[i-1].prefix); i-- {
		e.handlers[i], e.handlers[i-1] = e.handlers[i-1], e.handlers[i]
	}
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		for i, r := range e.handlers {
			if r.key == key {
				e.handlers = append(e.handlers[:i:i], e.handlers[i+1:]...)
				return
			}
		}
	}
}

// SetHTTPDelivery sets how the fake reaches HTTP/S endpoints (see HTTPDelivery).
func (s *Fake) SetHTTPDelivery(d HTTPDelivery) {
	e := &s.endpoints
	e.mu.Lock()
	defer e.mu.Unlock()
	e.cfg = d
	e.client = d.Client
	if d.Network && d.Client == nil {
		e.client = networkClient(d.AllowHost)
	}
}

// normalizeEndpoint lower-cases the scheme and host of an endpoint URL and drops a final
// slash, so that registrations and subscriptions compare as URLs do.
func normalizeEndpoint(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return raw
	}
	host, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	return strings.ToLower(scheme) + "://" + strings.ToLower(host) + strings.TrimSuffix(path, "/")
}

// handlerFor returns the handler registered for an endpoint URL, or nil.
func (e *endpoints) handlerFor(endpoint string) http.Handler {
	return e.handlerForKey(normalizeEndpoint(endpoint))
}

// handlerForKey is handlerFor for an endpoint normalizeEndpoint has made.
func (e *endpoints) handlerForKey(u string) http.Handler {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, r := range e.handlers {
		if rest, ok := strings.CutPrefix(u, r.prefix); ok && (rest == "" || strings.ContainsRune("/?#", rune(rest[0]))) {
			return r.h
		}
	}
	return nil
}

// reachable checks, at Subscribe, that the fake may ever POST to an endpoint: always in
// memory (a handler may be registered later, and until then an attempt fails as a refused
// connection); with Network, a host AllowHost admits, or loopback.
func (e *endpoints) reachable(endpoint string) *snsError {
	e.mu.RLock()
	network, allow := e.cfg.Network, e.cfg.AllowHost
	e.mu.RUnlock()
	if !network || e.handlerFor(endpoint) != nil {
		return nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return errInvalidParameter("Unreachable Endpoint")
	}
	host := strings.ToLower(strings.TrimSuffix(u.Hostname(), "."))
	if loopbackHost(host) || allow != nil && allow(host) {
		return nil
	}
	return errInvalidParameter("Unreachable Endpoint")
}

func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// networkClient is Network's client: SNS's 15-second timeout, no redirects followed, and
// a dialer that connects only to loopback addresses unless allow admits the host named.
func networkClient(allow func(host string) bool) *http.Client {
	dialer := &net.Dialer{Timeout: endpointTimeout}
	transport := &http.Transport{
		Proxy:                  nil, // the endpoint itself, never a proxy from the environment
		MaxResponseHeaderBytes: 64 << 10,
		TLSHandshakeTimeout:    endpointTimeout,
		ResponseHeaderTimeout:  endpointTimeout,
		DisableCompression:     true,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, _ := net.SplitHostPort(addr)
			host = strings.ToLower(strings.TrimSuffix(host, "."))
			if allow != nil && allow(host) {
				return dialer.DialContext(ctx, network, addr)
			}
			// Loopback only: the address actually dialled is checked, whatever name led to it.
			d := *dialer
			d.Control = func(_, address string, _ syscall.RawConn) error {
				h, _, err := net.SplitHostPort(address)
				if ip := net.ParseIP(h); err != nil || ip == nil || !ip.IsLoopback() {
					return fmt.Errorf("snsfake: %s is not a loopback address, and HTTPDelivery.AllowHost does not allow %s", address, host)
				}
				return nil
			}
			return d.DialContext(ctx, network, addr)
		},
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       endpointTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// answer is what an endpoint made of one POST.
type answer struct {
	status  int    // 0: none
	err     string // why there is no status
	timeout bool   // no answer within SNS's 15 seconds
}

// endpointResponse is the ResponseWriter of an in-memory POST: it keeps the status and
// counts the body, keeping none of it (SNS reads the status only).
type endpointResponse struct {
	header http.Header
	status int
	n      int64
}

func (w *endpointResponse) Header() http.Header {
	if w.header == nil {
		w.header = make(http.Header)
	}
	return w.header
}

func (w *endpointResponse) WriteHeader(code int) {
	if w.status != 0 || code >= 100 && code < 200 && code != http.StatusSwitchingProtocols {
		return // informational answers come before the final one, as net/http sends them
	}
	w.status = code
}

func (w *endpointResponse) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	w.n += int64(len(b))
	return len(b), nil
}

// Flush does nothing: the fake reads no body.
func (w *endpointResponse) Flush() {}

// attemptCtx is the context of one POST: the step's (stepContext), ended when the attempt
// is over — answered, or given up after HandlerWait — so that a handler waiting on it
// returns. It is one allocation where context.WithCancel is two; its Done channel is made
// only when asked for.
type attemptCtx struct {
	context.Context
	mu   sync.Mutex
	done chan struct{}
	err  error
}

func (c *attemptCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

func (c *attemptCtx) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *attemptCtx) cancel() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = context.Canceled
		if c.done != nil {
			close(c.done)
		}
	}
}

// serveMemory POSTs req to h in memory, on a goroutine of its own (joined to the step of a
// clock move on a fake that catches up, so that h's calls to the fake act at the step's
// instant), and waits for it at most wait of real time.
func (s *Fake) serveMemory(h http.Handler, req *http.Request, wait time.Duration) answer {
	w := &endpointResponse{}
	done := make(chan any, 1)
	catchesUp := companion.CatchesUp(s.sq)
	go func() {
		if catchesUp {
			defer companion.JoinStep(s.sq)()
		}
		defer func() { done <- recover() }()
		h.ServeHTTP(w, req)
		_ = req.Body.Close()
	}()
	timer := s.hd.waitTimer // one drain at a time: the drainer's own
	if timer == nil {
		timer = time.NewTimer(wait)
		s.hd.waitTimer = timer
	} else {
		timer.Reset(wait)
	}
	defer timer.Stop()
	select {
	case v := <-done:
		switch {
		case v == http.ErrAbortHandler:
			return answer{err: "the endpoint dropped the connection (its handler panicked with http.ErrAbortHandler)"}
		case v != nil:
			return answer{err: fmt.Sprintf("the endpoint dropped the connection: its handler panicked: %v", v)}
		}
		status := w.status
		if status == 0 {
			status = http.StatusOK // a handler that writes nothing answers 200, as net/http's server does
		}
		return answer{status: status}
	case <-timer.C:
		return answer{timeout: true, err: fmt.Sprintf("no answer within 15 s: the endpoint's handler took longer than %v of real time (HTTPDelivery.HandlerWait)", wait)}
	}
}

// serveNetwork POSTs req over real HTTP with c.
func serveNetwork(c *http.Client, req *http.Request) answer {
	resp, err := c.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return answer{timeout: true, err: "no answer within 15 s: " + err.Error()}
		}
		return answer{err: err.Error()}
	}
	_, _ = io.CopyN(io.Discard, resp.Body, maxNetworkAnswer)
	_ = resp.Body.Close()
	return answer{status: resp.StatusCode}
}

// HTTPClient returns an *http.Client that reaches the fake in memory, whatever the URL's
// host: its SNS wire and the queue fake's (Handler composed with sqsfake.Fake.Handler), so
// that an endpoint's handler can GET a confirmation's SubscribeURL, or fetch SigningCertURL
// with a stock SNS message validator, in a test without network.
func (s *Fake) HTTPClient() *http.Client {
	return &http.Client{Transport: memoryTransport{h: s.Handler(s.sq.Handler())}}
}

// memoryTransport answers each request with a handler, in memory.
type memoryTransport struct{ h http.Handler }

func (t memoryTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if err := r.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	aborted := func() (aborted bool) {
		defer func() {
			if v := recover(); v != nil {
				if v != http.ErrAbortHandler {
					panic(v)
				}
				aborted = true
			}
		}()
		in := r.Clone(r.Context())
		if in.Body == nil {
			in.Body = http.NoBody
		}
		in.RequestURI = r.URL.RequestURI()
		in.RemoteAddr = "127.0.0.1:0"
		t.h.ServeHTTP(rec, in)
		return false
	}()
	if r.Body != nil {
		_ = r.Body.Close()
	}
	if aborted {
		return nil, io.ErrUnexpectedEOF
	}
	resp := rec.Result()
	resp.Request = r
	return resp, nil
}

// stepContext is the context of a POST made in a step of a clock move on a fake that
// catches up: the endpoint's calls to the fake with it act at the step's instant.
func stepContext(catchesUp bool) context.Context {
	if catchesUp {
		return companion.InStep(context.Background())
	}
	return context.Background()
}

// Package guard holds the browser guards that the server (cmd/sqsfake) and the fake's
// console share: the refusal of requests from a page of another site, and the note with
// which the server hands the console a request whose Host it has already checked.
package guard

import (
	"context"
	"crypto/subtle"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ControlHeader must be on every control request (and on every request of the console's
// JSON endpoints). A page on another site cannot make a browser send a custom header
// without the server's consent (a CORS preflight, which neither grants), so a form post,
// a link or a script tag of another site cannot read or drive the fake.
const ControlHeader = "X-Sqsfake-Control"

// CrossSite explains why r comes from a page of another origin, or returns "". Browsers
// send Sec-Fetch-Site (same-origin, or none for an address typed by the user) and, on
// posts and cross-origin fetches, Origin; a same-site page on another port is another
// origin too.
func CrossSite(r *http.Request) string {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" && site != "none" {
		return "Sec-Fetch-Site: " + strconv.Quote(site)
	}
	if origin := r.Header.Get("Origin"); origin != "" {
		u, err := url.Parse(origin)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" || !strings.EqualFold(u.Host, r.Host) {
			return "Origin " + strconv.Quote(origin)
		}
	}
	return ""
}

// HostName returns the host of a Host header without its port, brackets or final dot, in
// lower case.
func HostName(hostport string) string {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		host = hostport[1 : len(hostport)-1] // [::1] without a port
	}
	return strings.ToLower(strings.TrimSuffix(host, "."))
}

// Loopback reports whether a host name (as HostName returns it) is localhost or a
// loopback address.
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server is what the server tells the console about itself.
type Server struct {
	// Clock is the server's -clock: "real" or "virtual".
	Clock string
	// Advance and Reset are the paths of the server's control endpoints that move the
	// clock and reset the fake.
	Advance, Reset string
	// Token is the server's -control-token: in signed mode, the value of ControlHeader that
	// the console's JSON endpoints need, as the control endpoints do; "" closes them there.
	Token string
	// Topics and Publications are the paths of the server's SNS endpoints, when it serves SNS
	// (snsfake): the console pages the topics and their subscriptions from the first
	// (?after=&limit=), and a topic's publications with their deliveries from the second
	// (?topic=&after=&limit=).
	Topics, Publications string
}

type serverKey struct{}

// WithServer returns r with a note that the server has checked its Host, and what the
// console should know of the server.
func WithServer(r *http.Request, s *Server) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), serverKey{}, s))
}

// ServerOf returns the note WithServer left on r, or nil.
func ServerOf(r *http.Request) *Server {
	s, _ := r.Context().Value(serverKey{}).(*Server)
	return s
}

// Refusal is why a control request, or a request of the console's JSON endpoints, may not go
// on; Allowed when it may.
type Refusal int

// The refusals Control gives.
const (
	Allowed    Refusal = iota
	NoHeader           // ControlHeader is missing
	Closed             // signed mode without a token: the endpoints are closed
	WrongToken         // signed mode: ControlHeader is not the token
)

// Control decides whether r may use the endpoints that read and reset every account: it
// needs ControlHeader, and in signed mode the header's value must be token (compared in
// constant time), without which, token "", they are closed.
func Control(r *http.Request, signed bool, token string) Refusal {
	got := r.Header.Get(ControlHeader)
	switch {
	case got == "":
		return NoHeader
	case !signed:
		return Allowed
	case token == "":
		return Closed
	case subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1:
		return WrongToken
	}
	return Allowed
}

// Package reqlog carries what the wire handler learned about a request back to the request
// log of cmd/sqsfake: the Action of a query-protocol request, which a POST gives in its form
// body, where the server's logger cannot see it without reading the body itself; that the
// client went away before the answer (a long poll it canceled, a body cut short), which the
// log tells from a server error; and what the request did that its reader should see (an SNS
// delivery a queue's policy refused). It is a context value, not a response header, so
// nothing of the log reaches the client.
package reqlog

import "context"

type key struct{}

// A Note is what a handler noted about one request.
type Note struct {
	// Action is the Action parameter of a query-protocol request, as sent, or "".
	Action string
	// Gone says how the client went away before it could read the answer, or "".
	Gone string
	// Lines are further lines of the request's log entry, in the order they were noted, and
	// Omitted counts those left out beyond the first maxLines.
	Lines   []string
	Omitted int
}

// maxLines bounds the lines one request notes (a publish to many subscriptions).
const maxLines = 20

// With returns a context carrying a new Note, and the Note.
func With(ctx context.Context) (context.Context, *Note) {
	n := new(Note)
	return context.WithValue(ctx, key{}, n), n
}

// Noting reports whether ctx carries a Note: whether anything noted would be logged.
func Noting(ctx context.Context) bool {
	_, ok := ctx.Value(key{}).(*Note)
	return ok
}

// SetAction notes the Action of the request whose context is ctx, if ctx carries a Note.
func SetAction(ctx context.Context, action string) {
	if n, ok := ctx.Value(key{}).(*Note); ok {
		n.Action = action
	}
}

// SetGone notes that the client of the request whose context is ctx went away, and how, if
// ctx carries a Note and nothing was noted yet.
func SetGone(ctx context.Context, how string) {
	if n, ok := ctx.Value(key{}).(*Note); ok && n.Gone == "" {
		n.Gone = how
	}
}

// AddLine adds a line to the log entry of the request whose context is ctx, if ctx carries
// a Note; beyond maxLines it only counts it.
func AddLine(ctx context.Context, line string) {
	n, ok := ctx.Value(key{}).(*Note)
	if !ok {
		return
	}
	if len(n.Lines) < maxLines {
		n.Lines = append(n.Lines, line)
	} else {
		n.Omitted++
	}
}

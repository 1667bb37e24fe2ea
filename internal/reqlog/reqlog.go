// Package reqlog carries what the wire handler learned about a request back to the request
// log of cmd/sqsfake: the Action of a query-protocol request, which a POST gives in its form
// body, where the server's logger cannot see it without reading the body itself. It is a
// context value, not a response header, so nothing of the log reaches the client.
package reqlog

import "context"

type key struct{}

// A Note is what a handler noted about one request.
type Note struct {
	// Action is the Action parameter of a query-protocol request, as sent, or "".
	Action string
}

// With returns a context carrying a new Note, and the Note.
func With(ctx context.Context) (context.Context, *Note) {
	n := new(Note)
	return context.WithValue(ctx, key{}, n), n
}

// SetAction notes the Action of the request whose context is ctx, if ctx carries a Note.
func SetAction(ctx context.Context, action string) {
	if n, ok := ctx.Value(key{}).(*Note); ok {
		n.Action = action
	}
}

package snsfake

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// call is one call of an operation as it runs: who it acts as and its request id.
type call struct {
	s   *Fake
	op  string
	who caller
	n   uint64 // its number, of which its request id is made when needed
}

// requestID is the call's request id (x-amzn-RequestId).
func (c call) requestID() string { return c.s.uuid(streamRequest, c.n, 4) }

// begin starts a call of op: the SDK's client-side checks, the caller's context, who the
// call acts as, its request id. A call refused here never reached SNS.
func (s *Fake) begin(ctx context.Context, op string, params any, optFns []func(*sns.Options)) (call, error) {
	c := call{s: s, op: op}
	if err := validateInput(params); err != nil {
		return c, operationError(op, "", err)
	}
	if err := ctx.Err(); err != nil {
		return c, operationError(op, "", err)
	}
	c.who = s.callerOf(optFns)
	s.mu.Lock()
	s.nextReq++
	c.n = s.nextReq
	s.mu.Unlock()
	if rid, ok := ctx.Value(requestIDKey{}).(*string); ok {
		*rid = c.requestID()
	}
	return c, nil
}

// requestIDKey carries, for Client's middleware, where to write the request id of a call.
type requestIDKey struct{}

// fail shapes an engine error as the SDK returns it.
func (c call) fail(err error) error { return operationError(c.op, c.requestID(), err) }

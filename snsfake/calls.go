package snsfake

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sns"
)

// call is one call of an operation as it runs: who it acts as and its request id.
type call struct {
	op  string
	who caller
	req string
}

// begin starts a call of op: the SDK's client-side checks, the caller's context, who the
// call acts as, its request id. A call refused here never reached SNS.
func (s *Fake) begin(ctx context.Context, op string, params any, optFns []func(*sns.Options)) (call, error) {
	c := call{op: op}
	if err := validateInput(params); err != nil {
		return c, operationError(op, "", err)
	}
	if err := ctx.Err(); err != nil {
		return c, operationError(op, "", err)
	}
	c.who = s.callerOf(optFns)
	s.mu.Lock()
	s.nextReq++
	n := s.nextReq
	s.mu.Unlock()
	c.req = s.uuid(streamRequest, n, 4)
	if rid, ok := ctx.Value(requestIDKey{}).(*string); ok {
		*rid = c.req
	}
	return c, nil
}

// requestIDKey carries, for Client's middleware, where to write the request id of a call.
type requestIDKey struct{}

// fail shapes an engine error as the SDK returns it.
func (c call) fail(err error) error { return operationError(c.op, c.req, err) }

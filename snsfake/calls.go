package snsfake

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/sns"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// call is one call of an operation as it runs: who it acts as, and its entry in the queue
// fake's call record (companion.ServiceCall), which numbers it with the fake's own calls and
// gives it its request id. The operation's method ends it (defer endCall(...)).
type call struct {
	op  string
	who caller
	sc  companion.ServiceCall
	err error // what the caller gets, set by fail
}

// recordName is an operation's name in the queue fake's call record and faults.
func recordName(op string) string {
	if n, ok := recordNames[op]; ok {
		return n
	}
	return "SNS." + op
}

// recordNames are the operations' record names, made once (init: the table refers to
// the operations, which refer to it).
var recordNames = map[string]string{}

// policyActions are the operations' IAM actions ("sns:Publish"), made once: a topic policy
// decides each call with one (companion.ResourcePolicy.Decide), and one made per call would
// be allocated.
var policyActions = map[string]string{}

func init() {
	for op := range operations {
		recordNames[op] = "SNS." + op
		policyActions[op] = "sns:" + op
	}
}

// policyAction is op's IAM action.
func policyAction(op string) string {
	if a, ok := policyActions[op]; ok {
		return a
	}
	return "sns:" + op
}

// begin starts a call of op: the SDK's client-side checks, the caller's context, who the
// call acts as, its entry in the call record, an injected fault. A call refused here never
// reached SNS (or failed by the fault); its error is returned, and the call is ended.
func (s *Fake) begin(ctx context.Context, op string, params any, optFns []func(*sns.Options)) (*call, error) {
	c := &call{op: op, who: s.callerOf(optFns)}
	door := sqsfake.DoorMethods
	var rid *string
	if n, ok := ctx.Value(requestIDKey{}).(*wireNote); ok {
		door, rid = n.door, &n.requestID
	}
	err := validateInput(params)
	if err == nil {
		err = ctx.Err()
	}
	var who *sqsfake.Identity // nil: the fake's own root user, in its region
	if c.who.account != companion.AccountID(s.sq) || c.who.region != companion.Region(s.sq) || c.who.principal != s.ownRoot {
		who = &sqsfake.Identity{AccountID: c.who.account, Region: c.who.region, PrincipalARN: c.who.principal}
	}
	c.sc = companion.BeginServiceCall(s.sq, recordName(op), door, who, params, err == nil)
	if rid != nil {
		*rid = c.sc.RequestID()
	}
	if err != nil {
		c.err = operationError(op, "", err)
		c.done()
		return nil, c.err
	}
	if ferr := c.sc.Refusal(ctx); ferr != nil {
		// An injected Err fails the call without running it (after the fault's Latency).
		c.err = c.fail(ferr)
		c.done()
		return nil, c.err
	}
	return c, nil
}

// endCall ends a call whose operation ran, deferred by its method (after s.mu is unlocked):
// the call's injected fault settles the answer as on the fake's own operations — its Latency
// holds it back on the fake's clock, LoseResponse replaces it with the fault's Err or
// sqsfake.ErrLostResponse — and the call record gets the outcome.
func endCall[O any](ctx context.Context, c *call, out **O, err *error) {
	if c.sc.Fault != nil {
		if ferr := c.sc.Settle(ctx, nil); ferr != nil {
			*out, *err = nil, c.fail(ferr)
		}
	}
	c.done()
}

// requestIDKey carries, for Client's middleware and the wire, a *wireNote: the door the call
// came through, and where to write its request id.
type requestIDKey struct{}

type wireNote struct {
	door      sqsfake.Door
	requestID string
}

// requestID is the call's request id (x-amzn-RequestId).
func (c *call) requestID() string { return c.sc.RequestID() }

// fail shapes an engine error as the SDK returns it, and keeps it for done.
func (c *call) fail(err error) error {
	c.err = operationError(c.op, c.requestID(), err)
	return c.err
}

// done ends the call in the call record with its outcome.
func (c *call) done() { c.sc.End(c.err) }

package companion

import (
	"context"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/internal/bridge"
)

// A companion's calls in the fake's call record: it registers its operations, and each call
// of one is a ServiceCall — numbered with the fake's calls (f.CallCount, request ids,
// f.WaitForCalls, f.WaitIdle), in f.Calls with Operation set to its name, its error in
// f.LastError, and open to f.InjectFault.

// RegisterOperations registers a companion service's operations on f under the names its
// calls carry, the service's ID and the operation as the service's SDK names it, such as
// "SNS.Publish", so that f.InjectFault, sqsfake.CallFilter and the call assertions take them.
// A sqsfake.Fault on one works as on the fake's own operations, the companion applying it
// through its ServiceCall: Err fails the call without running, LoseResponse runs it and loses
// the answer, Latency holds the answer back on the fake's clock; FailEntries needs a batch
// operation (RegisterBatchOperation).
func RegisterOperations(f *sqsfake.Fake, names ...string) {
	for _, n := range names {
		eng.RegisterOperation(f, n, nil)
	}
}

// RegisterBatchOperation registers a companion's batch operation on f, as RegisterOperations
// does, with entryIDs, which returns the Ids of the entries of a call's input (the params
// BeginServiceCall gets), for sqsfake.Fault.FailEntries.
func RegisterBatchOperation(f *sqsfake.Fake, name string, entryIDs func(params any) []string) {
	eng.RegisterOperation(f, name, entryIDs)
}

// ServiceCall is one call of a companion's operation, from BeginServiceCall to End. The
// companion applies the call's injected fault as the fake's own operations do: Refusal
// before running the operation, FailsEntry on each batch entry, Settle on its answer. It is
// a handle: copies of it are the same call. The zero ServiceCall is no call; its methods
// panic.
type ServiceCall struct {
	c bridge.Call
	// Fault is the fault f.InjectFault gave the call, or nil.
	Fault *sqsfake.Fault
}

// BeginServiceCall starts a call on f of the registered operation op through door, acting as
// who (nil: the fake's own identity), with its input params (which a fault's Match sees): it
// enters the call record and takes the first injected fault that matches. reached false
// records a call the SDK's client-side validation refused: it takes no fault. End it with
// End.
func BeginServiceCall(f *sqsfake.Fake, op string, door sqsfake.Door, who *sqsfake.Identity, params any, reached bool) ServiceCall {
	c, fault := eng.BeginServiceCall(f, op, door, who, params, reached)
	return ServiceCall{c: c, Fault: fault}
}

// RequestID is the call's request id, numbered with the fake's own calls.
func (sc ServiceCall) RequestID() string { return sc.c.RequestID() }

// Refusal returns the error the call fails with without running, when its fault says so
// (an Err, without LoseResponse or FailEntries), once the fault's Latency has passed on the
// fake's clock (or the caller's context ended: then its error); else nil: run the operation,
// then Settle. The error is the fault's as it is, for the companion to shape as its SDK does.
func (sc ServiceCall) Refusal(ctx context.Context) error { return sc.c.Refusal(ctx) }

// FailsEntry reports whether the call's fault fails the batch entry with this Id
// (Fault.FailEntries: the entry takes no effect and is listed as failed), with the fault's
// Err for the entry's code and message (nil: the companion's internal error).
func (sc ServiceCall) FailsEntry(id string) (bool, error) { return sc.c.FailsEntry(id) }

// Settle applies the call's fault to the answer of the operation, which ran with the error
// err (nil: it succeeded): the fault's Latency holds the answer back on the fake's clock,
// LoseResponse replaces it with the fault's Err, or sqsfake.ErrLostResponse. It returns the
// error the caller gets (err, as it is, when the fault leaves the answer alone), or nil to
// answer.
func (sc ServiceCall) Settle(ctx context.Context, err error) error { return sc.c.Settle(ctx, err) }

// End records the call's outcome: err is the error its caller gets (nil: it succeeded),
// which becomes f.LastError.
func (sc ServiceCall) End(err error) { sc.c.End(err) }

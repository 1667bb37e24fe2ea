package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Fault injection: make calls fail, lose their responses or answer late, deterministically,
// through every door (the methods, Client() and Handler() all pass through the same calls).

// Fault describes calls to disturb and how.
type Fault struct {
	// Operation is the operation to disturb, e.g. "DeleteMessage", or a companion's as its
	// calls carry it, e.g. "SNS.Publish" (companion.RegisterOperations); "" matches every one, the
	// companions' too.
	Operation string
	// Match, if set, must return true for a call's input (a *sqs.<Operation>Input, or a
	// companion's, such as *sns.PublishInput) for the fault to apply.
	Match func(params any) bool
	// Times is how many matching calls the fault disturbs; 0 means every matching call
	// until it is removed.
	Times int
	// Err is the error the caller gets: ServiceError for an SQS error (shaped exactly as
	// the real client shapes it), or any other error, which arrives wrapped in
	// *smithy.OperationError. With LoseResponse and no Err, the caller gets ErrLostResponse.
	// Through Handler() an error that is not a ServiceError is answered as InternalError
	// (HTTP 500), which an SDK retries by default: each attempt is a call the fault counts.
	Err error
	// LoseResponse makes the operation take effect before the caller gets Err: the classic
	// cause of duplicates — DeleteMessage succeeded, but the client saw a timeout. The
	// answer is lost whatever it was: a call the service refused returns Err too.
	LoseResponse bool
	// Latency holds the response back until the fake's clock has moved on by this much
	// (the operation itself takes effect when called). WaitForCalls and WaitForPollers count
	// such a call as waiting on the clock.
	Latency time.Duration
	// FailEntries, on SendMessageBatch, DeleteMessageBatch or ChangeMessageVisibilityBatch
	// (or a companion's batch operation, such as "SNS.PublishBatch"), fails only the entries
	// whose Id it returns true for, the partial failure a producer or consumer retries: they
	// take no effect and are listed in the answer's Failed with Err's
	// code and message (ErrInternal's when Err is nil; SenderFault false for a server
	// error), while the call itself and its other entries succeed. A call in which it picks
	// no entry is left alone and does not count toward Times. Err must then be nil or a
	// ServiceError; on a companion's operation, the companion's (snsfake.ServiceError), any
	// other Err failing the entries with the companion's internal error. Like Match, it runs
	// outside the fake's locks and may call the fake.
	FailEntries func(id string) bool
}

// batchOperations are the operations Fault.FailEntries applies to.
var batchOperations = map[string]bool{"SendMessageBatch": true, "DeleteMessageBatch": true, "ChangeMessageVisibilityBatch": true}

// refuses reports whether the fault fails the call without the operation running: an Err
// that is neither a lost response's nor batch entries'.
func (fl *takenFault) refuses() bool {
	return fl != nil && fl.Err != nil && !fl.LoseResponse && fl.FailEntries == nil
}

// takenFault is a fault as one call takes it: with FailEntries, the Ids of the entries it
// fails, picked when the call took the fault (outside the fake's lock, so FailEntries may
// call the fake).
type takenFault struct {
	Fault
	failing map[string]bool
	chaos   bool // chaos made it (WithChaos, Explore), not InjectFault
}

// entryFault returns how a call's fault fails batch entries, or nil.
func entryFault(fl *takenFault) entryFailer {
	if fl == nil || fl.failing == nil {
		return nil
	}
	entryErr := ErrInternal.(*sqsError)
	if e, ok := fl.Err.(*sqsError); ok {
		entryErr = e
	}
	return func(id string) *sqsError {
		if fl.failing[id] {
			return entryErr
		}
		return nil
	}
}

// batchEntryIDs returns the entry Ids of a batch operation's input.
func batchEntryIDs(params any) []*string {
	var ids []*string
	switch in := params.(type) {
	case *sqs.SendMessageBatchInput:
		for _, e := range in.Entries {
			ids = append(ids, e.Id)
		}
	case *sqs.DeleteMessageBatchInput:
		for _, e := range in.Entries {
			ids = append(ids, e.Id)
		}
	case *sqs.ChangeMessageVisibilityBatchInput:
		for _, e := range in.Entries {
			ids = append(ids, e.Id)
		}
	}
	return ids
}

// ServiceError returns the SQS error named by code — a wire shape such as
// "RequestThrottled" or "QueueDoesNotExist", or a query code such as
// "AWS.SimpleQueueService.NonExistentQueue" or "InvalidParameterValue" — with message, for
// use as Fault.Err. The caller receives it exactly as the real client would: the SDK's
// typed error where it has one, with its ErrorCode and HTTP status.
func ServiceError(code, message string) error {
	if _, ok := errorKinds[code]; ok {
		return newError(code, message)
	}
	for shape, k := range errorKinds {
		if k.code == code {
			return newError(shape, message)
		}
	}
	return newError(code, message)
}

// Errors commonly injected.
var (
	// ErrThrottled is SQS's throttling error (RequestThrottled, HTTP 403).
	ErrThrottled = ServiceError("RequestThrottled", "Rate exceeded")
	// ErrInternal is a server fault (InternalError, HTTP 500).
	ErrInternal = ServiceError("InternalError", "We encountered an internal error. Please try again.")
	// ErrServiceUnavailable is a server fault (ServiceUnavailable, HTTP 503).
	ErrServiceUnavailable = ServiceError("ServiceUnavailable", "Service Unavailable")
	// ErrLostResponse is what a call whose response was lost returns when the Fault names
	// no error: the client gave up waiting. It matches context.DeadlineExceeded with
	// errors.Is. Through Handler() the connection is dropped without an answer instead, as
	// a response lost on the network would be.
	ErrLostResponse error = lostResponse{}
)

// lostResponse is ErrLostResponse. It reads as a client's own timeout does.
type lostResponse struct{}

func (lostResponse) Error() string        { return context.DeadlineExceeded.Error() }
func (lostResponse) Is(target error) bool { return target == context.DeadlineExceeded }
func (lostResponse) Timeout() bool        { return true }
func (lostResponse) Temporary() bool      { return true }
func isLostResponse(err error) bool       { return errors.As(err, new(lostResponse)) }

// activeFault is an injected fault with its remaining count.
type activeFault struct {
	Fault
	left int // remaining calls; -1 for unlimited
}

// faults holds a fake's injected faults.
type faults struct {
	mu      sync.Mutex
	list    []*activeFault
	service map[string]serviceOperation // companions' operations (companion.RegisterOperations)
}

// notAnOperation says that op names no SQS operation, and which it may have meant: one
// spelt the same in another case, else an example.
func notAnOperation(op string) string {
	for name := range operations {
		if strings.EqualFold(name, op) {
			return fmt.Sprintf("%q is not an SQS operation; did you mean %q?", op, name)
		}
	}
	return fmt.Sprintf("%q is not an SQS operation; name one as the SDK does, e.g. \"DeleteMessage\"", op)
}

// notAnOperation is notAnOperation, suggesting also a companion's operation spelt the same
// in another case.
func (f *Fake) notAnOperation(op string) string {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	for name := range f.faults.service {
		if strings.EqualFold(name, op) {
			return fmt.Sprintf("%q is not an operation; did you mean %q?", op, name)
		}
	}
	return notAnOperation(op)
}

// InjectFault adds a fault; faults apply in the order they were added, the first that
// matches a call taking it. The returned function removes the fault. It panics when
// fault.Operation names no operation, SQS's or a companion's (companion.RegisterOperations, such as
// "SNS.Publish"): a misspelt name would silently never match.
func (f *Fake) InjectFault(fault Fault) (remove func()) {
	if _, ok := operations[fault.Operation]; !ok && fault.Operation != "" && !f.serviceOperation(fault.Operation) {
		panic("sqsfake: InjectFault: " + f.notAnOperation(fault.Operation))
	}
	if fault.Times < 0 {
		panic(fmt.Sprintf("sqsfake: InjectFault: Times %d; want 1 or more calls to disturb, or 0 for every matching call", fault.Times))
	}
	if fault.Latency < 0 || fault.Latency > 0 && fault.Latency < time.Millisecond {
		panic(fmt.Sprintf("sqsfake: InjectFault: Latency %v; want 0 (none) or %s", fault.Latency, durationRule))
	}
	if fault.FailEntries != nil {
		companion := f.serviceOperationInfo(fault.Operation)
		if !batchOperations[fault.Operation] && companion.entryIDs == nil {
			panic(fmt.Sprintf("sqsfake: InjectFault: FailEntries needs Operation SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch or a companion's batch operation (SNS.PublishBatch); got %q", fault.Operation))
		}
		if _, ok := fault.Err.(*sqsError); fault.Err != nil && !ok && companion.entryIDs == nil {
			panic("sqsfake: InjectFault: with FailEntries, Err must be nil or a ServiceError")
		}
	}
	af := &activeFault{Fault: fault, left: fault.Times}
	if fault.Times <= 0 {
		af.left = -1
	}
	f.faults.mu.Lock()
	f.faults.list = append(f.faults.list, af)
	f.faultCount.Add(1)
	f.faults.mu.Unlock()
	return func() { f.dropFault(af) }
}

func (f *Fake) dropFault(af *activeFault) {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	for i, x := range f.faults.list {
		if x == af {
			f.faults.list = append(f.faults.list[:i], f.faults.list[i+1:]...)
			f.faultCount.Add(-1)
			return
		}
	}
}

func (f *Fake) resetFaults() {
	f.faults.mu.Lock()
	defer f.faults.mu.Unlock()
	f.faults.list = nil
	f.faultCount.Store(0)
}

// takeFault returns the fault that applies to a call, counting it, or nil.
func (f *Fake) takeFault(op string, params any) *takenFault {
	if f.faultCount.Load() == 0 {
		return nil
	}
	// Match and FailEntries run without the lock, so that they may call the fake, or remove
	// their own fault.
	f.faults.mu.Lock()
	list := slices.Clone(f.faults.list)
	f.faults.mu.Unlock()
	for _, af := range list {
		if af.Operation != "" && af.Operation != op {
			continue
		}
		if af.Match != nil && !af.Match(params) {
			continue
		}
		var failing map[string]bool
		if af.FailEntries != nil {
			// A call none of whose entries is picked is not disturbed, nor counted.
			for _, id := range f.entryIDsOf(op, params) {
				if id != nil && af.FailEntries(*id) {
					if failing == nil {
						failing = make(map[string]bool)
					}
					failing[*id] = true
				}
			}
			if failing == nil {
				continue
			}
		}
		f.faults.mu.Lock()
		i := slices.Index(f.faults.list, af)
		if i < 0 { // removed, or used up by another call, meanwhile
			f.faults.mu.Unlock()
			continue
		}
		if af.left > 0 {
			af.left--
			if af.left == 0 {
				f.faults.list = slices.Delete(f.faults.list, i, i+1)
				f.faultCount.Add(-1)
			}
		}
		f.faults.mu.Unlock()
		return &takenFault{Fault: af.Fault, failing: failing}
	}
	return nil
}

// disturbed applies a call's fault once the engine has answered (or, without LoseResponse,
// instead of asking it): it holds the response back for the fault's latency and replaces it
// with the fault's error. It returns the error the caller gets, or nil to answer normally.
func (c *call) disturbed(ctx context.Context) error {
	if err := c.disturbance(ctx); err != nil {
		return c.fail(err)
	}
	return nil
}

// settle applies a call's fault to the answer of an operation that ran, err being the
// operation's error (nil: it succeeded): with LoseResponse the answer is lost, whatever it
// said (disturbance); an injected latency holds it back. It returns the error the caller gets
// before any shaping, or nil to answer normally.
func (c *call) settle(ctx context.Context, err error) error {
	fl := c.fault
	switch {
	case fl == nil:
		return err
	case fl.LoseResponse:
		return c.disturbance(ctx)
	case fl.Latency > 0:
		if werr := c.f.waitClock(ctx, fl.Latency); werr != nil {
			return heldError(ctx, werr)
		}
	}
	return err
}

// disturbance is disturbed's error before it is shaped for the caller.
func (c *call) disturbance(ctx context.Context) error {
	fl := c.fault
	if fl.Latency > 0 {
		if err := c.f.waitClock(ctx, fl.Latency); err != nil {
			return heldError(ctx, err)
		}
	}
	err := fl.Err
	if fl.FailEntries != nil {
		err = nil // Err went to the entries
	}
	if err == nil && fl.LoseResponse {
		err = ErrLostResponse
	}
	return err
}

// waitClock blocks until the fake's clock has moved on by d, or ctx ends. It counts as a
// parked call for WaitForPollers.
func (f *Fake) waitClock(ctx context.Context, d time.Duration) error {
	release := make(chan struct{})
	f.mu.Lock()
	deadline := f.clk.Now().Add(d)
	f.waiting++
	f.held = append(f.held, heldCall{release: release, ctxDone: ctx.Done()})
	f.notifyPollWaiters()
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		for i, h := range f.held {
			if h.release == release {
				f.held = append(f.held[:i], f.held[i+1:]...)
				f.waiting--
				break
			}
		}
		f.mu.Unlock()
	}()
	timer, cancel := f.clk.WithDeadline(context.Background(), deadline)
	defer cancel()
	if w := f.watch; w != nil {
		w.parking(func() bool { return done(timer.Done()) || done(ctx.Done()) || done(release) })
	}
	select {
	case <-timer.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-release:
		return errReleased
	}
}

// heldCall is a call holding its response back for an injected latency.
type heldCall struct {
	release chan struct{}   // closed to end the wait
	ctxDone <-chan struct{} // the call's context's Done
}

// done reports whether ch, a context's Done channel, is closed; a nil channel never is.
func done(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// errReleased ends a call whose response was held back when the fake was reset.
var errReleased = errors.New("sqsfake: the fake was reset while the response was held back")

// releaseHeld ends every call holding its response back for an injected latency; they
// return errReleased. Called with f.mu held.
func (f *Fake) releaseHeld() {
	for _, h := range f.held {
		close(h.release)
	}
	f.held = nil
	f.waiting = 0
}

// heldError is what a call whose held-back response was cut short returns: the SDK's
// cancellation error when its context ended, else the reason.
func heldError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return contextError(ctx)
	}
	return err
}

// emptyReceive is the answer of a receive that found nothing.
func emptyReceive() *sqs.ReceiveMessageOutput { return &sqs.ReceiveMessageOutput{} }

package lambdasqs

import (
	"context"
	"errors"
	"time"

	"github.com/sqsfake/sqsfake/companion"
)

// Outcome is what Lambda made of an invocation's answer.
type Outcome int

// The outcomes of an invocation.
const (
	// Success: the function returned no error (and, with ReportBatchItemFailures, an empty or
	// null failure list); the whole batch is deleted.
	Success Outcome = iota + 1
	// PartialFailure: with ReportBatchItemFailures, the function listed some messages; only
	// those (and, on FIFO, the later messages of their groups) stay in the queue.
	PartialFailure
	// FunctionError: the function returned an error; nothing is deleted.
	FunctionError
	// Panic: the function panicked, which the Go runtime reports as a function error.
	Panic
	// Timeout: the function ran to or past its deadline; nothing is deleted, whatever it returned.
	Timeout
	// InvalidResponse: a failure list named an empty or unknown itemIdentifier; the whole
	// batch fails.
	InvalidResponse
	// Throttled: the function was already running as many invocations as its reserved
	// concurrency allows, so the handler was not called; the poller keeps the batch and
	// retries it, and drops it (its messages return to the queue) at its visibility timeout.
	Throttled
)

// String returns the outcome's name.
func (o Outcome) String() string {
	switch o {
	case Success:
		return "Success"
	case PartialFailure:
		return "PartialFailure"
	case FunctionError:
		return "FunctionError"
	case Panic:
		return "Panic"
	case Timeout:
		return "Timeout"
	case InvalidResponse:
		return "InvalidResponse"
	case Throttled:
		return "Throttled"
	}
	return "Outcome(0)"
}

// Invocation is the record of one invocation of the handler.
type Invocation struct {
	RequestID  string    // the context's AwsRequestID; "" for a throttled attempt
	At         time.Time // when the handler was invoked, on the fake's clock
	Ended      time.Time // when it returned (plus what it slept), when its answer was applied
	MessageIDs []string  // the batch, in order
	Outcome    Outcome
	Err        error    // the function's error, panic or timeout; nil on success
	Reported   []string // the itemIdentifiers the function returned, as it returned them
	Deleted    []string // the messages Lambda deleted, in batch order
	Kept       []string // the messages left to return after their visibility timeout
	// DeleteFailed are the messages Lambda meant to delete whose DeleteMessageBatch entry
	// failed (an expired receipt handle, an injected fault); they are not in Deleted. They
	// stay in the queue and come back after their visibility timeout: Lambda keeps polling.
	DeleteFailed []string
}

// Invocations returns a copy of the record of every invocation so far (and every throttled
// attempt), in the order they ended: an invocation still running is not in it yet. On a
// benbjohnson mock it first follows the mock's own moves (companion.CatchUp), so the record is
// what f.Advance would have left.
func (t *Trigger) Invocations() []Invocation {
	companion.CatchUp(t.f)
	t.recMu.Lock()
	defer t.recMu.Unlock()
	out := make([]Invocation, 0, t.logged)
	for _, c := range t.log {
		out = append(out, c...)
	}
	return out
}

// Filtered returns the ids of the messages deleted without an invocation because they matched
// no filter of FilterCriteria, in the order they were received.
func (t *Trigger) Filtered() []string {
	companion.CatchUp(t.f)
	t.recMu.Lock()
	defer t.recMu.Unlock()
	return append([]string(nil), t.filtered...)
}

// Advance is Poll, then the fake's Advance(d): the trigger, like every trigger on the fake,
// polls at each instant of the move where it has something to do, as it does whatever moves
// the fake's clock. When it returns, every invocation that has ended by then has been
// answered; one that Sleeps past the end, or whose handler waits on its context, is still
// running. Its errors are Poll's, and those the move's steps reported (see Err); the move
// itself cannot be stopped by ctx, but no handler can hold it up for longer than
// Config.HandlerWait of real time.
func (t *Trigger) Advance(ctx context.Context, d time.Duration) error {
	if err := t.reentered(ctx, "Advance"); err != nil {
		return err
	}
	if err := t.Poll(ctx); err != nil {
		return err
	}
	t.f.Advance(d)
	return errors.Join(t.takeProblems(), ctx.Err())
}

// next is the earliest moment after now at which the trigger has something to do: a message
// of its queue becomes visible, the pending batch's window ends, an invocation ends, a
// throttled batch is due for a retry or is dropped, or the scaling ramp adds concurrency to
// a saturated mapping. Zero when there is none.
func (t *Trigger) next(now time.Time) time.Time {
	var next time.Time
	consider := func(at time.Time) {
		if at.After(now) && (next.IsZero() || at.Before(next)) {
			next = at
		}
	}
	if len(t.flights) > 0 {
		consider(t.flights[0].inv.Ended)
	}
	for _, r := range t.waiting {
		consider(r.due())
	}
	t.recMu.Lock()
	enabled := t.enabled
	t.recMu.Unlock()
	if enabled {
		if len(t.pending) > 0 && t.m.window > 0 {
			consider(t.since.Add(t.m.window))
		}
		if len(t.pending) > 0 {
			consider(t.pendingExpires)
		}
		for _, h := range t.held {
			consider(h.retryAt)
			consider(h.expires)
		}
		if !t.activeSince.IsZero() && t.busy() >= t.limit(now) && t.capAt(now) < t.m.concurrency {
			// Saturated and still scaling: the next minute of the ramp may free a slot.
			consider(t.activeSince.Add((now.Sub(t.activeSince)/time.Minute + 1) * time.Minute))
		}
		// The fake's next event for the queue, without rendering its messages.
		if at, _, err := companion.NextVisible(t.f, t.url); err == nil {
			consider(at)
		}
	}
	return next
}

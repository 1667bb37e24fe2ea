package lambdasqs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// Lambda's documented numbers on scaling (R36) and the account's default concurrency.
const (
	initialConcurrency    = 5    // "Lambda starts processing five batches at a time"
	scaleStep             = 300  // "up to 300 more instances per minute"
	maxMappingConcurrency = 1000 // "The maximum number of batches … 1,000"
	accountConcurrency    = 1000 // the account's default concurrency quota
	minUnreserved         = 100  // the concurrency PutFunctionConcurrency leaves unreserved
)

// The throttle retry schedule. Lambda says it "gradually backs off retries" of a throttled
// batch (services-sqs-errorhandling.html) without numbers; these are its numbers for
// retrying throttled asynchronous invocations (invocation-async.html): "from 1 second after
// the first attempt to a maximum of 5 minutes".
const (
	firstRetry = time.Second
	maxRetry   = 5 * time.Minute
)

// errThrottled is the error of a throttled invocation: Lambda's Invoke answers
// TooManyRequestsException "Rate Exceeded." when the function's concurrency is used up.
var errThrottled = &Error{Code: "TooManyRequestsException", Message: "Rate Exceeded."}

// flight is an invocation whose answer is known but which lasts until inv.Ended, when the
// mapping applies it.
type flight struct {
	inv    Invocation
	del    []types.DeleteMessageBatchRequestEntry
	handle []string // what del points into
}

// held is a throttled batch the poller keeps and retries until its visibility timeout
// (services-sqs-errorhandling).
type held struct {
	records  []events.SQSMessage
	handles  []string
	attempts int
	retryAt  time.Time
	expires  time.Time // when its messages return to the queue: the poller drops it then
}

// capAt is the most invocations the mapping may run at once at now, before back-off: five at
// first, 300 more for each minute it has had messages without a break, at most 1,000 or
// MaximumConcurrency (R35, R36).
//
// In provisioned mode the minimum pollers' invocations (ten each) are ready at once, and the
// mapping scales by 1,000 a minute while it has messages, up to its maximum pollers'.
func (t *Trigger) capAt(now time.Time) int {
	start, step, most := initialConcurrency, scaleStep, maxMappingConcurrency
	if t.m.provisioned {
		start, step, most = t.m.ready, provisionedScalePerMinute, t.m.concurrency
	}
	scaled := start
	if !t.activeSince.IsZero() {
		scaled = min(most, start+step*int(now.Sub(t.activeSince)/time.Minute))
	}
	return min(scaled, t.m.concurrency)
}

// limit is the most invocations the mapping runs at once at now, after back-off: never less
// than one.
func (t *Trigger) limit(now time.Time) int { return max(1, t.capAt(now)-t.penalty) }

// busy is how many of the mapping's slots are taken: invocations running and throttled
// batches waiting for a retry.
func (t *Trigger) busy() int { return len(t.flights) + len(t.held) + len(t.waiting) }

// inFlight is how many invocations of the function run: those whose answer waits for their
// end, and those whose handler waits on its context.
func (t *Trigger) inFlight() int { return len(t.flights) + len(t.waiting) }

// backOff takes one concurrent invocation away from the mapping after a failure or a throttle (R14; the error-handling page),
// leaving at least one; recover gives one back after a success. Called with recMu held.
func (t *Trigger) backOff(now time.Time) { t.penalty = max(0, min(t.penalty+1, t.capAt(now)-1)) }
func (t *Trigger) recover()              { t.penalty = max(0, t.penalty-1) }

// Concurrency returns how many invocations the mapping runs at once at the fake's current
// time: five at first, scaling up by 300 a minute while it has messages, capped by
// MaximumConcurrency, minus one for each failure it is backing off from. Safe to call from a
// handler.
func (t *Trigger) Concurrency() int {
	t.recMu.Lock()
	defer t.recMu.Unlock()
	return t.limit(t.f.Now())
}

// land applies the answers of the invocations that have ended by now, in the order they ended.
// An invocation leaves the flights only once its answer is applied: when ctx has ended or a
// call to the fake fails, it stays for the next step (a Poll, or a move of the clock).
func (t *Trigger) land(ctx context.Context) error {
	now := t.f.Now()
	for len(t.flights) > 0 && !t.flights[0].inv.Ended.After(now) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.finish(ctx, &t.flights[0].inv, t.flights[0].del); err != nil {
			return err
		}
		t.flights[0] = nil
		t.flights = t.flights[1:]
	}
	return t.landWaiting(ctx)
}

// fly adds an invocation that ends later, keeping flights in the order they end (then start).
func (t *Trigger) fly(fl *flight) {
	i := len(t.flights)
	for i > 0 && t.flights[i-1].inv.Ended.After(fl.inv.Ended) {
		i--
	}
	t.flights = append(t.flights, nil)
	copy(t.flights[i+1:], t.flights[i:])
	t.flights[i] = fl
}

// retry drops the throttled batches whose visibility timeout has ended and invokes (or
// throttles again) those due for a retry.
func (t *Trigger) retry(ctx context.Context) error {
	for i := 0; i < len(t.held); {
		h := t.held[i]
		now := t.f.Now()
		switch {
		case !now.Before(h.expires):
			// "Lambda continues to retry the message until the message's timestamp exceeds
			// your queue's visibility timeout, at which point Lambda drops the message"
			// (services-sqs-errorhandling).
			t.held = append(t.held[:i], t.held[i+1:]...)
		case h.retryAt.After(now):
			i++
		case now.Add(t.m.timeout).After(h.expires):
			// A retry now could run past the batch's visibility timeout: its messages would
			// be received again while it runs, and its deletes could fail. The docs do not
			// say what the poller does so close to the end; the choice here is to drop the
			// batch, as it would a little later.
			t.held = append(t.held[:i], t.held[i+1:]...)
		case t.inFlight() >= t.m.functionCap:
			t.throttle(h)
			i++
		default:
			t.held = append(t.held[:i], t.held[i+1:]...)
			if err := t.invoke(ctx, h.records, h.handles, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// start invokes the batch, or throttles it when the function already runs as many
// invocations as its concurrency allows.
func (t *Trigger) start(ctx context.Context, records []events.SQSMessage, handles []string, since time.Time, rn *runner) error {
	if t.inFlight() < t.m.functionCap {
		return t.invoke(ctx, records, handles, rn)
	}
	v, err := t.visibility(ctx)
	if err != nil {
		return err
	}
	h := &held{records: records, handles: handles, expires: since.Add(v)}
	t.held = append(t.held, h)
	t.throttle(h)
	return nil
}

// visibility is how long a receive keeps the trigger's messages hidden: the queue's visibility
// timeout now, or the effective visibility timeout of R33 (see extend).
func (t *Trigger) visibility(ctx context.Context) (time.Duration, error) {
	d, err := t.queueVisibility(ctx)
	if err == nil && t.m.window > 0 && t.m.window+t.m.timeout > d {
		d = t.m.window + t.m.timeout + 30*time.Second
	}
	return d, err
}

// queueVisibility is the queue's visibility timeout now.
func (t *Trigger) queueVisibility(ctx context.Context) (time.Duration, error) {
	t.call()
	out, err := t.f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: &t.url, AttributeNames: visibilityAttribute}, t.as...)
	if err != nil {
		return 0, fmt.Errorf("lambdasqs: GetQueueAttributes: %w", err)
	}
	secs, err := strconv.Atoi(out.Attributes["VisibilityTimeout"])
	if err != nil {
		return 0, fmt.Errorf("lambdasqs: VisibilityTimeout %q: %w", out.Attributes["VisibilityTimeout"], err)
	}
	return time.Duration(secs) * time.Second, nil
}

var visibilityAttribute = []types.QueueAttributeName{types.QueueAttributeNameVisibilityTimeout}

// throttle records a throttled attempt at h and schedules the next.
func (t *Trigger) throttle(h *held) {
	now := t.f.Now()
	h.attempts++
	h.retryAt = now.Add(min(firstRetry<<min(h.attempts-1, 20), maxRetry))
	inv := Invocation{At: now, Ended: now, Outcome: Throttled, Err: errThrottled, MessageIDs: make([]string, len(h.records))}
	for i, r := range h.records {
		inv.MessageIDs[i] = r.MessageId
	}
	inv.Kept = inv.MessageIDs
	t.recMu.Lock()
	t.logInvocation(&inv)
	t.backOff(now)
	t.recMu.Unlock()
}

// Sleep plays d of work on the fake's clock inside a handler: the invocation lasts d longer,
// without moving the clock, so that other invocations can run meanwhile, up to the mapping's
// and the function's concurrency (see "Concurrency" in the package doc). The answer the
// handler returns is applied when the invocation ends: its start plus every Sleep (plus the
// time it waited on the clock through its context). The time slept counts toward the deadline: the
// handler's context ends when the clock reaches the deadline less what was slept. A Sleep
// that reaches the deadline stops there, ends the context (and every context derived from
// it) with context.DeadlineExceeded and returns that error: the invocation times out,
// whatever the handler returns. Sleeps add up even when goroutines of one handler call Sleep
// side by side: parallel work inside a handler is played as if it ran one piece after
// another. Called with a context that is not an invocation's (outside a handler the trigger
// called), Sleep returns an error.
func Sleep(ctx context.Context, d time.Duration) error {
	c, _ := ctx.Value(invocationKey{}).(*invocationCtx)
	if c == nil {
		return errors.New("lambdasqs: Sleep outside an invocation of a Trigger")
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if d <= 0 {
		return nil
	}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return c.err
	}
	now := c.clock.Now()
	if now.Add(c.slept + d).Before(c.deadline) {
		c.slept += d
		if c.done != nil {
			c.armLocked() // the clock now ends the context earlier
		}
		c.mu.Unlock()
		return nil
	}
	c.slept = max(0, c.deadline.Sub(now))
	c.mu.Unlock()
	c.endWith(context.DeadlineExceeded)
	return context.DeadlineExceeded
}

type invocationKey struct{}

// handlerClock is the clock a handler's context reads: the fake's own on a VirtualClock or
// any clock the fake does not follow itself; on a benbjohnson mock (companion.CatchesUp), the
// fake's time — the instant a catch-up is stepping — with deadlines that the trigger's step
// at the deadline ends (landWaiting), not a timer of the mock's, which would fire on a
// goroutine of its own at the mock's time.
func handlerClock(f *sqsfake.Fake) sqsfake.Clock {
	if companion.CatchesUp(f) {
		return fakeTime{f}
	}
	return f.Clock()
}

// fakeTime reads a fake's time (Fake.Now); it arms no timers: WithDeadline returns parent.
type fakeTime struct{ f *sqsfake.Fake }

func (c fakeTime) Now() time.Time { return c.f.Now() }

func (c fakeTime) WithDeadline(parent context.Context, _ time.Time) (context.Context, context.CancelFunc) {
	return parent, func() {}
}

// invocationCtx is a handler's context. It ends when the fake's clock reaches the deadline
// less the time slept, or when Sleep reaches the deadline (both with
// context.DeadlineExceeded), when the parent ends (with the parent's error), or when the
// handler has returned (context.Canceled, or DeadlineExceeded at or past the deadline).
//
// It owns its Done channel, made when first asked for (most handlers never ask, and an armed
// timer costs more than the rest of the context), and closes it itself. Its AfterFunc method
// is what the standard library looks for in a parent: context.WithCancel and the like attach
// their children through it, so that they end inside the call that ends this context — a
// Sleep, the handler's return, or the fake's Advance firing the deadline timer — never later
// on a goroutine of their own.
type invocationCtx struct {
	parent   context.Context
	clock    sqsfake.Clock
	deadline time.Time
	trigger  *Trigger
	run      *running      // the invocation whose context this is
	asked    chan struct{} // closed when the handler first asks for Done (or AfterFunc)
	returned chan struct{} // closed when the handler has returned

	mu         sync.Mutex
	askedOnce  bool
	slept      time.Duration
	err        error         // why it ended; nil while it runs
	done       chan struct{} // made by Done or AfterFunc; closed when it ends
	funcs      []*func()     // AfterFunc's, in the order they were registered
	gen        int           // the timer generation: a timer of an older one is stale
	stopTimer  func()        // disarms the clock's timer
	stopParent func() bool   // unregisters the watch on the parent
}

// afterFuncer is what the standard library's contexts look for in a parent to attach a
// child without a goroutine.
type afterFuncer interface {
	AfterFunc(f func()) (stop func() bool)
}

func (c *invocationCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *invocationCtx) Value(key any) any {
	switch key {
	case invocationKey{}:
		return c
	case companion.StepKey{}:
		// The handler's calls to the fake are part of the step that invoked it: on a fake
		// catching up with a benbjohnson mock they act at the instant being stepped.
		return true
	}
	return c.parent.Value(key)
}

// hasAsked reports whether the handler has asked the context for Done.
func (c *invocationCtx) hasAsked() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.askedOnce
}

// Done returns the context's own channel, arming a timer on the fake's clock at the deadline
// less the time slept and a watch on the parent the first time.
func (c *invocationCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.doneLocked()
}

func (c *invocationCtx) doneLocked() chan struct{} {
	if !c.askedOnce {
		// From now on the invocation counts as waiting on the fake's clock (drive.go).
		c.askedOnce = true
		if c.asked != nil {
			close(c.asked)
		}
		if rn := c.run.on; rn != nil {
			select {
			case rn.asked <- struct{}{}:
			default:
			}
		}
	}
	if c.done != nil {
		return c.done
	}
	c.done = make(chan struct{})
	if c.err == nil && !c.clock.Now().Add(c.slept).Before(c.deadline) {
		c.err = context.DeadlineExceeded
	}
	if c.err != nil {
		close(c.done)
		return c.done
	}
	if c.parent.Done() != nil {
		end := func() { c.endWith(c.parent.Err()) }
		if p, ok := c.parent.(afterFuncer); ok {
			c.stopParent = p.AfterFunc(end)
		} else {
			c.stopParent = context.AfterFunc(c.parent, end)
		}
	}
	c.armLocked()
	return c.done
}

// armLocked (re)arms the timer that ends the context when the clock reaches the deadline
// less the time slept. On the fake's VirtualClock the timer fires inside Advance; on another
// clock, as that clock's timers fire. c.mu must be held.
func (c *invocationCtx) armLocked() {
	if c.stopTimer != nil {
		c.stopTimer()
		c.stopTimer = nil
	}
	c.gen++
	gen := c.gen
	fire := func() {
		c.mu.Lock()
		stale := gen != c.gen
		c.mu.Unlock()
		if !stale {
			c.endWith(context.DeadlineExceeded)
			// The move that reached the deadline waits for the handler to return before
			// it goes on, so that what the handler does as it wakes happens at this
			// instant, before any other invocation's (drive.go).
			c.awaitReturn()
		}
	}
	// The callers arm only before the deadline less the time slept; a clock that has moved
	// on meanwhile ends the context at once, through the timer.
	timed, cancel := c.clock.WithDeadline(context.Background(), c.deadline.Add(-c.slept))
	var stop func() bool
	if a, ok := timed.(afterFuncer); ok {
		stop = a.AfterFunc(fire)
	} else {
		stop = context.AfterFunc(timed, fire)
	}
	c.stopTimer = func() { stop(); cancel() }
}

// AfterFunc arranges for f to run when the context ends: inside the call that ends it, or on
// a goroutine of its own if it has ended already (the caller may hold a lock f takes). stop
// unregisters f and reports whether it did so before f was started.
func (c *invocationCtx) AfterFunc(f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.doneLocked()
	if c.err != nil {
		go f()
		return func() bool { return false }
	}
	key := &f
	c.funcs = append(c.funcs, key)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, g := range c.funcs {
			if g == key {
				c.funcs = slices.Delete(c.funcs, i, i+1)
				return true
			}
		}
		return false
	}
}

func (c *invocationCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if err := c.parent.Err(); err != nil {
		c.endWith(err)
		return c.errNow()
	}
	c.mu.Lock()
	due := !c.clock.Now().Add(c.slept).Before(c.deadline)
	c.mu.Unlock()
	if due {
		// On a clock whose timers fire late (or before Done was asked for), the context
		// ends as soon as it is seen to have reached its deadline.
		c.endWith(context.DeadlineExceeded)
		return c.errNow()
	}
	return nil
}

func (c *invocationCtx) errNow() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// endWith ends the context with err unless it has ended already: it releases the timer and
// the watch on the parent, runs the AfterFunc functions (which end the contexts derived from
// it), in order, outside the lock, and then closes Done.
func (c *invocationCtx) endWith(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	c.gen++
	done := c.done
	stopTimer, stopParent, funcs := c.stopTimer, c.stopParent, c.funcs
	c.stopTimer, c.stopParent, c.funcs = nil, nil, nil
	c.mu.Unlock()
	if stopTimer != nil {
		stopTimer()
	}
	if stopParent != nil {
		stopParent()
	}
	// The children first, then Done: a handler woken by Done finds the contexts it derived
	// ended too (the handler runs on a worker goroutine, not this one, so the order shows).
	for _, f := range funcs {
		(*f)()
	}
	if done != nil {
		close(done)
	}
}

// end marks the handler returned, ending the context (with DeadlineExceeded if the deadline
// has been reached, else Canceled), and reports how long Sleep made the invocation last
// beyond the clock.
func (c *invocationCtx) end() time.Duration {
	c.mu.Lock()
	due := !c.clock.Now().Add(c.slept).Before(c.deadline)
	c.mu.Unlock()
	if due {
		c.endWith(context.DeadlineExceeded)
	} else {
		c.endWith(context.Canceled)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.slept
}

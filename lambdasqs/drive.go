package lambdasqs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"weak"

	"github.com/aws/aws-lambda-go/events"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
	"github.com/sqsfake/sqsfake/internal/goid"
)

// How a trigger moves with the fake's clock, and how it waits for its handlers.
//
// The trigger attaches to the fake with companion.OnMove: every move of the fake's clock — the
// fake's Advance, the VirtualClock's own Add — calls it at the start of the move and at each
// instant a timer fires inside it, and the trigger keeps one timer of its own armed on the
// clock at the next instant it has something to do (next). So it polls at every instant
// Lambda's continuous polling would see something, whatever moves the clock and however
// the move is cut up. A step that finds nothing new (no timer of its own due, no call to the
// fake by anyone else since the last step, no handler returned) costs a lock and a few
// loads.
//
// A step polls on a runner goroutine (runner), which calls the handlers of the batches it
// dispatches inline, while the goroutine that makes the step watches it (watch); the few
// invocations the poll loop cannot go on from (a throttled batch's retry, a batch the payload
// quota ends in the middle of a receive) run on a worker goroutine (worker). Either way the
// step waits for each handler to settle before it goes on: to return, or to start waiting on
// the fake's clock, which it does by asking its context for Done (directly, in a select, by
// deriving a context from it, or through a client that watches it) and then blocking in a
// select or on a channel (untilBlocked, untilBlockedOn). A handler that does neither within
// Config.HandlerWait of real time is reported (stuckError) and from then on counted as
// waiting, so that no handler can hang a test through the trigger. A waiting invocation
// holds its slot; when the clock reaches its deadline the move ends its context and waits
// for the handler to return before going on, so that what it does as it wakes happens at
// that instant and before any other invocation's: handlers never run side by side in real
// time unless they wait on the clock, which is what lets a handler keep package-level state
// without locks, as separate Lambda execution environments do.

// DefaultHandlerWait is how long, in real time, a trigger waits for a handler to return or
// to start waiting on its context before it reports the handler as stuck: see
// Config.HandlerWait.
const DefaultHandlerWait = 10 * time.Second

// running is one invocation whose handler has been called.
type running struct {
	inv      Invocation // At, RequestID, MessageIDs
	groups   []string   // each record's FIFO group, or nil
	handles  []string   // the records' receipt handles
	deadline time.Time
	ctx      *invocationCtx

	// Written by the handler's goroutine before it closes ctx.returned.
	resp     events.SQSEventResponse
	err      error
	panicked bool
	endAt    time.Time // the clock's time when it returned, plus what it slept

	stuck atomic.Bool   // reported as neither returning nor waiting
	gid   atomic.Uint64 // the handler's goroutine, once it runs

	// An invocation whose handler runs inline on a step's runner: which, and who goes on
	// with the step once its handler is done (inlineRunning, then inlineReturned or takenOver).
	on    *runner
	state atomic.Uint32

	ev events.SQSEvent // the event, until the worker takes it
}

// worker is a goroutine that runs handlers, one after another, for the invocations of one
// step: a goroutine for each invocation would cost its start, and reading its id, at every
// batch. A worker whose handler returned goes back to the step's idle workers; one whose
// handler waits on the clock (or is stuck) stays with it and ends when it returns. The step
// ends its idle workers when it is done, so that no goroutine of the trigger outlives the
// handlers it runs.
type worker struct {
	jobs chan *running // closed to end the worker once its handler returns
	gone chan struct{} // closed as the worker ends
	gid  uint64        // its goroutine's id, read once as it starts
}

// work is a worker's goroutine.
func (w *worker) work(f *sqsfake.Fake, h handlerFunc) {
	defer close(w.gone)
	if companion.CatchesUp(f) {
		defer companion.JoinStep(f)() // its handlers' calls to the fake are the step's
	}
	w.gid = goid.Current()
	for r := range w.jobs {
		r.gid.Store(w.gid)
		r.call(h)
	}
}

// worker returns an idle worker of the step, or starts one. Called with t.mu held.
func (t *Trigger) worker() *worker {
	if n := len(t.idle); n > 0 {
		w := t.idle[n-1]
		t.idle = t.idle[:n-1]
		return w
	}
	w := &worker{jobs: make(chan *running), gone: make(chan struct{})}
	go w.work(t.f, t.h)
	return w
}

// endWorkers ends the step's idle workers, and waits for them to be gone: once a step is over,
// the trigger's only goroutines are those of handlers that wait. Called with t.mu held.
func (t *Trigger) endWorkers() {
	for _, w := range t.idle {
		close(w.jobs)
	}
	for i, w := range t.idle {
		<-w.gone
		t.idle[i] = nil
	}
	t.idle = t.idle[:0]
}

// A step polls on a runner: a goroutine of its own that calls the handlers of the batches the
// poll loop dispatches inline, one after another, as one warm execution environment would,
// while the goroutine that makes the step (a move of the clock, or Poll) watches it (watch).
// Handing every invocation to another goroutine and back would wake an idle processor twice
// a batch. When a handler run inline starts waiting on the fake's clock, the watcher takes
// the step over: the runner is left with its handler (when it returns, the runner records
// its answer, as a worker does, and ends, touching nothing else of the trigger's), and a new
// runner polls on from the top of the poll loop — where the first would have gone on, since
// the handler was called from the loop's dispatch, which the loop follows with land and its
// next round. A handler stuck, or a step whose ctx ends, is taken over too, and the step then
// ends with the error, as it does with a worker (settle). The other invocations (a throttled
// batch's retry, a batch the payload quota ends in the middle of a receive) run on workers,
// since what the step does after them cannot be done again from the top.
type runner struct {
	gid   atomic.Uint64           // its goroutine's id, read as it starts
	cur   atomic.Pointer[running] // the invocation whose handler it runs; nil between them
	since atomic.Int64            // when cur's handler was called: nanoseconds since realEpoch
	asked chan struct{}           // signalled when cur's handler first asks its context for Done
	done  chan struct{}           // closed when its poll returns, unless it was taken over
	gone  chan struct{}           // closed as its goroutine ends
	err   error                   // what its poll returned, set before done is closed
}

// The states of an invocation whose handler runs inline on a runner.
const (
	inlineRunning  = iota // the handler runs
	inlineReturned        // it returned, and the runner goes on with the step
	takenOver             // the watcher took the step over: the runner ends once the handler returns
)

// errTakenOver unwinds, without a trace, a runner whose step a new runner has taken over.
var errTakenOver = errors.New("lambdasqs: the step was taken over")

// realEpoch is what runner.since counts from.
var realEpoch = time.Now()

// errHandOff ends the poll of the goroutine that makes a step where the poll loop has a
// batch to dispatch: a runner dispatches it and polls on (drive).
var errHandOff = errors.New("lambdasqs: the step is handed to a runner")

// drive runs the step's poll and watches the runners it needs. The goroutine that makes the
// step polls itself until the loop has a batch to dispatch, so that a step that invokes
// nothing starts no goroutine; a runner then dispatches that batch and polls on, which is
// what the loop would have done (its dispatch is followed by land, and poll begins with
// land). Called with t.mu held.
func (t *Trigger) drive(ctx context.Context) error {
	t.rn = nil
	if err := t.poll(ctx); err != errHandOff {
		return err
	}
	defer func() { t.rn = nil }()
	for first := true; ; first = false {
		rn := &runner{asked: make(chan struct{}, 1), done: make(chan struct{}), gone: make(chan struct{})}
		t.rn = rn
		go rn.run(t, ctx, first)
		again, err := t.watch(ctx, rn)
		if !again {
			select {
			case <-rn.done:
				<-rn.gone // it ended its poll: no goroutine of the trigger outlives the step
			default: // it was taken over, and stays with its handler
			}
			return err
		}
	}
}

// run is a runner's goroutine: it dispatches the pending batch first when the goroutine that
// makes the step handed it over there, and then polls.
func (rn *runner) run(t *Trigger, ctx context.Context, dispatch bool) {
	defer close(rn.gone)
	if companion.CatchesUp(t.f) {
		// Its calls to the fake — the trigger's and the handlers' — are the step's.
		defer companion.JoinStep(t.f)()
	}
	// Read here, where the stack is short: runtime.Stack walks all of it.
	rn.gid.Store(goid.Current())
	var err error
	if dispatch {
		err = t.dispatch(ctx, rn)
	}
	if err == nil {
		err = t.poll(ctx)
	}
	if err == errTakenOver {
		return
	}
	rn.err = err
	close(rn.done)
}

// invokeOn calls r's handler inline on rn, the step's runner, and applies its answer, unless
// the step was taken over meanwhile (errTakenOver).
func (t *Trigger) invokeOn(ctx context.Context, rn *runner, r *running) error {
	r.on = rn
	r.gid.Store(rn.gid.Load())
	rn.since.Store(int64(time.Since(realEpoch)))
	rn.cur.Store(r)
	r.call(t.h)
	rn.cur.Store(nil)
	if !r.state.CompareAndSwap(inlineRunning, inlineReturned) {
		return errTakenOver
	}
	return t.apply(ctx, r, false)
}

// watch waits for rn's poll to return. It takes the step over from rn when the handler rn
// runs waits on the clock (again: a new runner must poll on), when it neither returns nor
// waits within Config.HandlerWait of real time (a *StuckError), or when ctx ends first.
func (t *Trigger) watch(ctx context.Context, rn *runner) (again bool, err error) {
	// The watcher's own timer: the runner's settle, for a batch on a worker, uses waitTimer.
	if t.watchTimer == nil {
		t.watchTimer = time.NewTimer(t.handlerWait())
	} else {
		t.watchTimer.Reset(t.handlerWait())
	}
	timer := t.watchTimer
	defer timer.Stop()
	ctxDone := ctx.Done()
	ended := false // ctx has ended: take the step over from the next handler the runner calls
	for {
		select {
		case <-rn.done:
			return false, rn.err
		case <-rn.asked:
			if r := rn.cur.Load(); r != nil {
				if again, err, over := t.untilBlockedOn(ctx, rn, r, timer); over {
					return again, err
				}
			}
		case <-ctxDone:
			ctxDone, ended = nil, true
			if r := rn.cur.Load(); r != nil && !r.hasReturned() && t.takeOver(r) {
				return false, t.notSettled(ctx, r)
			}
			// Between two handlers: the runner sees ctx at its next round, unless it has
			// called the next handler by then, which the timer looks for.
			timer.Reset(time.Millisecond)
		case <-timer.C:
			r, late := t.overdue(rn)
			switch {
			case r != nil && ended && !r.hasReturned() && t.takeOver(r):
				return false, t.notSettled(ctx, r)
			case r != nil && late <= 0 && !r.hasReturned() && t.takeOver(r):
				return false, t.stuck(r)
			case ended:
				timer.Reset(time.Millisecond)
			default:
				timer.Reset(max(late, time.Millisecond))
			}
		}
	}
}

// overdue returns the invocation rn runs and how long before it has run for
// Config.HandlerWait (zero or less: it has); nil when rn runs none.
func (t *Trigger) overdue(rn *runner) (*running, time.Duration) {
	r := rn.cur.Load()
	if r == nil {
		return nil, t.handlerWait()
	}
	ran := time.Since(realEpoch) - time.Duration(rn.since.Load())
	return r, t.handlerWait() - ran
}

// takeOver takes the step over from the runner of r, whose handler has not returned: r
// waits on the clock from now on. It reports false when the handler has returned first.
func (t *Trigger) takeOver(r *running) bool {
	if !r.state.CompareAndSwap(inlineRunning, takenOver) {
		return false
	}
	t.waiting = append(t.waiting, r)
	return true
}

// untilBlockedOn is untilBlocked for a handler run inline on rn. over reports that the
// watcher took the step over: again when the handler waits on the clock, with err when it
// is stuck or ctx ended; not over when the handler returned first.
func (t *Trigger) untilBlockedOn(ctx context.Context, rn *runner, r *running, timer *time.Timer) (again bool, err error, over bool) {
	if !r.ctx.hasAsked() {
		return false, nil, false // the signal was an earlier invocation's, which has returned
	}
	for {
		switch t.untilBlocked(ctx, r, timer.C) {
		case waitsOnClock:
			return true, nil, t.takeOver(r)
		case ctxEnded:
			return false, t.notSettled(ctx, r), t.takeOver(r)
		case stuckFor:
			if _, late := t.overdue(rn); late > 0 {
				timer.Reset(late) // the timer was set for an earlier invocation
				continue
			}
			return false, t.stuck(r), t.takeOver(r)
		}
		return false, nil, false
	}
}

// call runs the handler and records its answer.
func (r *running) call(h handlerFunc) {
	ev := r.ev
	r.ev = events.SQSEvent{}
	resp, err, panicked := call(r.ctx, h, ev)
	slept := r.ctx.end()
	r.resp, r.err, r.panicked = resp, err, panicked
	r.endAt = r.ctx.clock.Now().Add(slept)
	close(r.ctx.returned)
	r.ctx.trigger.handlerReturned()
}

func (r *running) hasReturned() bool {
	select {
	case <-r.ctx.returned:
		return true
	default:
		return false
	}
}

// due is when the invocation reaches its deadline on the fake's clock: the deadline less
// what it has slept.
func (r *running) due() time.Time {
	r.ctx.mu.Lock()
	defer r.ctx.mu.Unlock()
	return r.deadline.Add(-r.ctx.slept)
}

// describe names the invocation in an error.
func (r *running) describe() string {
	return fmt.Sprintf("the invocation %s at %s of messages %v", r.inv.RequestID, r.inv.At.UTC().Format(time.RFC3339Nano), r.inv.MessageIDs)
}

// stuckAdvice is what every error about a handler that holds the mapping up says to do.
const stuckAdvice = "its handler blocks on something the fake's clock cannot end (a channel nobody sends on, a lock, a real-time wait, or a move of the fake's clock, which waits for the handler). Make it return, wait on its ctx (which ends with context.DeadlineExceeded at the function's timeout on the fake's clock), or play work that takes time with lambdasqs.Sleep"

// settle waits for the handler to return or to start waiting on the clock, for at most
// Config.HandlerWait of real time, or until ctx ends.
func (t *Trigger) settle(ctx context.Context, r *running) error {
	c := r.ctx
	// One timer per trigger, reset for each wait (settle runs with t.mu held). The worker,
	// just handed the invocation, is next to run on this P: blocking here runs it at once,
	// and its return wakes this goroutine next.
	wait := t.handlerWait()
	if t.waitTimer == nil {
		t.waitTimer = time.NewTimer(wait)
	} else {
		t.waitTimer.Reset(wait)
	}
	timer := t.waitTimer
	defer timer.Stop()
	select {
	case <-c.returned:
	case <-c.asked:
		switch t.untilBlocked(ctx, r, timer.C) {
		case ctxEnded:
			return t.notSettled(ctx, r)
		case stuckFor:
			return t.stuck(r)
		}
	case <-ctx.Done():
		return t.notSettled(ctx, r)
	case <-timer.C:
		return t.stuck(r)
	}
	return nil
}

func (t *Trigger) notSettled(ctx context.Context, r *running) error {
	return fmt.Errorf("lambdasqs: %w while %s had neither returned nor started waiting on its context: %s", ctx.Err(), r.describe(), stuckAdvice)
}

func (t *Trigger) stuck(r *running) error {
	r.stuck.Store(true)
	t.hadStuck.Store(true)
	return t.stuckError(r)
}

// untilBlocked waits, after the handler asked its context for Done, until it is blocked in a
// select or a channel operation — waiting, not working — or has returned, ctx has ended or
// stuck has fired. Asking for Done alone is not waiting: a handler that derives a context
// first and then works, or sleeps with Sleep, must not have the clock move past it while
// its goroutine runs, or the record would depend on scheduling. A handler blocked otherwise
// (a lock, a system call) is not counted as waiting either, until Config.HandlerWait
// reports it as stuck.
func (t *Trigger) untilBlocked(ctx context.Context, r *running, stuck <-chan time.Time) settling {
	for spin := 0; ; spin++ {
		select {
		case <-r.ctx.returned:
			return returnedFirst
		case <-ctx.Done():
			return ctxEnded
		case <-stuck:
			return stuckFor
		default:
		}
		if waitsOnAChannel(r.gid.Load()) {
			return waitsOnClock
		}
		if spin < 64 {
			runtime.Gosched()
			continue
		}
		// A handler that works long in real time: look less often (each look stops the world).
		time.Sleep(min(time.Duration(spin)*5*time.Microsecond, time.Millisecond))
	}
}

// settling is what untilBlocked saw.
type settling int

const (
	returnedFirst settling = iota // the handler returned
	waitsOnClock                  // it is blocked in a select or on a channel
	ctxEnded                      // the caller's ctx ended first
	stuckFor                      // Config.HandlerWait passed first
)

// stuckWait is how long, in real time, the trigger waits for each handler to settle once one
// has been stuck: a handler that always blocks would otherwise cost Config.HandlerWait at
// every invocation, and enough of them would add up to a test's timeout.
const stuckWait = 10 * time.Millisecond

// handlerWait is how long to wait for a handler to settle: Config.HandlerWait, or stuckWait
// once a handler of the trigger has been stuck.
func (t *Trigger) handlerWait() time.Duration {
	if t.hadStuck.Load() {
		return min(stuckWait, t.m.handlerWait)
	}
	return t.m.handlerWait
}

func (t *Trigger) stuckError(r *running) error {
	return &StuckError{Invocation: r.inv.RequestID, At: r.inv.At, MessageIDs: r.inv.MessageIDs, Waited: t.handlerWait(), Deadline: r.deadline}
}

// StuckError reports a handler that neither returned nor waited on its context within
// Config.HandlerWait of real time. The trigger stops waiting for it: it counts the
// invocation as waiting on the fake's clock, and records it as a Timeout at its deadline
// unless it returns first. The handler's goroutine is left to itself.
type StuckError struct {
	Invocation string        // its AwsRequestID
	At         time.Time     // when it was invoked, on the fake's clock
	MessageIDs []string      // its batch
	Waited     time.Duration // real time waited: Config.HandlerWait
	Deadline   time.Time     // its deadline on the fake's clock
}

// Error names the invocation and says what to do.
func (e *StuckError) Error() string {
	return fmt.Sprintf("lambdasqs: the invocation %s at %s of messages %v neither returned nor started waiting on its context within %v of real time: %s. The mapping no longer waits for it; it times out at %s",
		e.Invocation, e.At.UTC().Format(time.RFC3339Nano), e.MessageIDs, e.Waited, stuckAdvice, e.Deadline.UTC().Format(time.RFC3339Nano))
}

// awaitReturn waits, for at most Config.HandlerWait of real time, for a handler whose
// context has just ended at its deadline to return. It is called by the move that reached
// the deadline.
func (c *invocationCtx) awaitReturn() {
	r := c.run
	if r == nil || r.hasReturned() || r.stuck.Load() {
		return
	}
	timer := time.NewTimer(c.trigger.handlerWait())
	defer timer.Stop()
	select {
	case <-c.returned:
	case <-timer.C:
		r.stuck.Store(true)
		c.trigger.hadStuck.Store(true)
		c.trigger.report(c.trigger.stuckError(r))
	}
}

// landWaiting applies the answers of the waiting invocations whose handler has returned,
// and ends, as Lambda stops them, those that have reached their deadline.
func (t *Trigger) landWaiting(ctx context.Context) error {
	now := t.f.Now()
	for i := 0; i < len(t.waiting); {
		r := t.waiting[i]
		if !r.hasReturned() {
			if now.Before(r.due()) {
				i++
				continue
			}
			r.ctx.endWith(context.DeadlineExceeded)
			r.ctx.awaitReturn()
		}
		t.waiting = slices.Delete(t.waiting, i, i+1)
		if err := t.apply(ctx, r, !r.hasReturned()); err != nil {
			return err
		}
	}
	return nil
}

// handlerReturned notes, from a handler's goroutine, that a handler has returned: the next
// step applies its answer, and WaitInvocations looks again.
func (t *Trigger) handlerReturned() {
	t.dirty.Store(true)
	t.recMu.Lock()
	if t.returnedCh != nil {
		close(t.returnedCh)
		t.returnedCh = nil
	}
	t.recMu.Unlock()
}

// maxProblems bounds what a trigger keeps between two calls that return it: a mapping whose
// queue is gone fails at every step.
const maxProblems = 10

// report keeps err for the next Poll, Advance or WaitInvocations, and for Err.
func (t *Trigger) report(err error) {
	t.recMu.Lock()
	if len(t.problems) < maxProblems {
		t.problems = append(t.problems, err)
	} else {
		t.moreProblems++
	}
	t.recMu.Unlock()
}

// takeProblems returns, and forgets, what clock-driven steps reported.
func (t *Trigger) takeProblems() error {
	t.recMu.Lock()
	defer t.recMu.Unlock()
	if t.moreProblems > 0 {
		t.problems = append(t.problems, fmt.Errorf("lambdasqs: and %d more errors like these", t.moreProblems))
	}
	err := errors.Join(t.problems...)
	t.problems, t.moreProblems = nil, 0
	return err
}

// Err returns what went wrong in the steps that moves of the fake's clock made since the last
// Poll, Advance, WaitInvocations or Err, which return it too, and forgets it: a call to the
// fake that failed, or a handler that did not settle (a *StuckError). nil when nothing did.
// Like Poll, Advance, WaitInvocations, Invocations, Filtered and the Assert helpers, it
// first brings the fake up to its clock (companion.CatchUp): a benbjohnson mock moved with its own
// Add or Set is followed before it answers.
func (t *Trigger) Err() error {
	companion.CatchUp(t.f)
	return t.takeProblems()
}

// stepContext is the context of the trigger's own calls to the fake in a step of a clock
// move: marked as part of the step (companion.StepKey), so that on a fake catching up with a
// benbjohnson mock they act at the instant being stepped.
var stepContext = companion.InStep(context.Background())

// onMove is the trigger's step at an instant a move of the fake's clock passes through. It
// returns the next instant the trigger has something to do, for the fake's Advance on a
// clock other than a VirtualClock to step there — or now, when its handlers called the fake
// during the step, so that every trigger looks again at this instant (companion.OnMove).
func (t *Trigger) onMove(now time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	calls, own := t.f.CallCount(), t.calls
	t.move(now)
	if t.f.CallCount()-calls > t.calls-own {
		// Its handlers called the fake (sent to another trigger's queue, say): every trigger
		// looks again at this instant.
		return now
	}
	if t.wakeSet {
		return t.wakeAt
	}
	return time.Time{}
}

func (t *Trigger) move(now time.Time) {
	if t.closed {
		return
	}
	if !t.dirty.Load() && (!t.wakeSet || now.Before(t.wakeAt)) && t.f.CallCount()-t.calls == t.seenForeign && companion.Epoch(t.f) == t.seenEpoch {
		return // nothing new since the last step
	}
	if err := t.step(stepContext); err != nil {
		t.report(err)
	}
}

// step polls at the fake's current time and arms the trigger's timer for the next instant
// it has something to do. Called with t.mu held.
func (t *Trigger) step(ctx context.Context) error {
	t.dirty.Store(false)
	t.seenForeign, t.seenEpoch = t.f.CallCount()-t.calls, companion.Epoch(t.f)
	if t.wakeSet && !t.f.Now().Before(t.wakeAt) {
		t.rearm(time.Time{}) // its instant is reached: a timer still to fire there is stale
	}
	err := t.drive(ctx)
	t.endWorkers()
	t.rearm(t.next(t.f.Now()))
	return err
}

// rearm keeps the trigger's one timer armed at at, or none when at is zero.
func (t *Trigger) rearm(at time.Time) {
	if t.wakeSet && at.Equal(t.wakeAt) {
		return
	}
	if t.stopWake != nil {
		t.stopWake()
		t.stopWake = nil
	}
	t.wakeAt, t.wakeSet = at, !at.IsZero()
	if !t.wakeSet || t.closed {
		return
	}
	if companion.CatchesUp(t.f) {
		// A benbjohnson mock: the fake steps to the instant its OnMove functions return
		// itself, on the mock's own moves too (companion.OnMove).
		return
	}
	// On a VirtualClock the timer's function runs inside the move, at the timer's instant;
	// on another clock, as that clock runs its timers.
	timed, cancel := t.f.Clock().WithDeadline(context.Background(), at)
	fire := func() { t.onMove(t.f.Now()) }
	var stop func() bool
	if a, ok := timed.(afterFuncer); ok {
		stop = a.AfterFunc(fire)
	} else {
		stop = context.AfterFunc(timed, fire)
	}
	t.stopWake = func() { stop(); cancel() } // unregister first: cancel would run fire
}

// WaitInvocations blocks until at least n invocations (throttled attempts included) are in
// Invocations, or ctx ends, applying, at the fake's current time, the answers of handlers
// that have returned meanwhile. It is the way to wait for a handler that waits on something
// the test itself ends (a channel it sends on) before moving the clock again, since such a
// handler returns in real time. When ctx ends first, the error says how many there are and
// which invocations are still running. It returns what Err would too.
func (t *Trigger) WaitInvocations(ctx context.Context, n int) error {
	if err := t.reentered(ctx, "WaitInvocations"); err != nil {
		return err
	}
	for {
		if err := t.Poll(ctx); err != nil {
			return err
		}
		t.recMu.Lock()
		if t.logged >= n {
			t.recMu.Unlock()
			return nil
		}
		if t.returnedCh == nil {
			t.returnedCh = make(chan struct{})
		}
		ch, logged := t.returnedCh, t.logged
		if t.dirty.Load() {
			// A handler returned after the Poll's step looked: step again. (A handler sets
			// dirty before it takes recMu to close the channel, so none is missed.)
			t.recMu.Unlock()
			continue
		}
		t.recMu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("lambdasqs: WaitInvocations: %d of the %d invocations awaited are recorded: %w; running: %s", logged, n, ctx.Err(), t.describeRunning())
		}
	}
}

// describeRunning lists the invocations whose handler has not returned.
func (t *Trigger) describeRunning() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.waiting) == 0 {
		return "none"
	}
	var out []string
	for _, r := range t.waiting {
		out = append(out, r.describe())
	}
	return fmt.Sprint(out)
}

// The event source mappings of each fake, so that a second mapping of one queue to one
// function is refused as Lambda refuses it. A fake that is no longer reachable drops out.
var mappings = struct {
	sync.Mutex
	of map[weak.Pointer[sqsfake.Fake]]*fakeMappings
}{of: map[weak.Pointer[sqsfake.Fake]]*fakeMappings{}}

type fakeMappings struct {
	seq  uint64
	list []mappingEntry
}

// mappingEntry is one mapping of a fake. It holds no pointer to the trigger, which holds the
// fake: the fake's entry must not keep the fake reachable.
type mappingEntry struct{ queueArn, functionArn, uuid string }

// register adds t to its fake's mappings and gives it its UUID, or returns Lambda's
// ResourceConflictException for a mapping of the same queue to the same function.
func (t *Trigger) register() error {
	key := weak.Make(t.f)
	mappings.Lock()
	defer mappings.Unlock()
	fm := mappings.of[key]
	if fm == nil {
		fm = &fakeMappings{}
		mappings.of[key] = fm
		runtime.AddCleanup(t.f, func(k weak.Pointer[sqsfake.Fake]) {
			mappings.Lock()
			delete(mappings.of, k)
			mappings.Unlock()
		}, key)
	}
	for _, o := range fm.list {
		if o.queueArn == t.arn && o.functionArn == t.functionArn {
			// Lambda's text, as CreateEventSourceMapping answers it (seen in aws/chalice#2146
			// and getlift/lift#295).
			return &Error{Code: "ResourceConflictException", Message: fmt.Sprintf("An event source mapping with SQS arn (\" %s \") and function (\" %s \") already exists. Please update or delete the existing mapping with UUID %s", t.arn, t.m.function, o.uuid)}
		}
	}
	fm.seq++
	t.uuid = mappingUUID(fm.seq)
	fm.list = append(fm.list, mappingEntry{t.arn, t.functionArn, t.uuid})
	return nil
}

func (t *Trigger) unregister() {
	key := weak.Make(t.f)
	mappings.Lock()
	defer mappings.Unlock()
	if fm := mappings.of[key]; fm != nil {
		fm.list = slices.DeleteFunc(fm.list, func(e mappingEntry) bool { return e.uuid == t.uuid })
	}
}

// mappingUUID is the seq'th mapping's UUID on its fake, of version 4 form.
func mappingUUID(seq uint64) string {
	return fmt.Sprintf("e5e5e5e5-0000-4000-8000-%012x", seq)
}

// UUID returns the mapping's UUID, as CreateEventSourceMapping returns it: the same on every
// run, numbered in the order the fake's mappings were made.
func (t *Trigger) UUID() string { return t.uuid }

// Close deletes the mapping, as DeleteEventSourceMapping does: it stops polling and no longer
// follows the fake's clock, and the queue may be mapped to the function again. The answers of
// invocations still running are not applied, and the contexts of those whose handler waits
// on the clock end with context.Canceled, so that their goroutines can end with the test.
// Close is idempotent.
func (t *Trigger) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return
	}
	t.closed = true
	t.detach()
	t.rearm(time.Time{})
	t.unregister()
	for _, r := range t.waiting {
		r.ctx.endWith(context.Canceled)
	}
	t.waiting = nil
}

// waitsOnAChannel reports whether goroutine gid is blocked in a select or on a channel: how a
// handler waits on its context, directly or through a client that watches it. It reads every
// goroutine's state from runtime.Stack, the one place Go tells another goroutine's state.
func waitsOnAChannel(gid uint64) bool {
	if gid == 0 {
		return false // its goroutine has not run yet
	}
	return goid.WaitsOnAChannel(goid.State(gid))
}

package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

// Long polling. A receive that finds nothing and may wait parks a poller on its queue and
// blocks without holding the lock, on a channel its own goroutine made (so it stays durably
// blocked inside a testing/synctest bubble). It wakes when
//   - a message becomes available: the operation that made it available hands it over
//     under the lock, at that operation's time, in the order the pollers parked;
//   - the clock reaches its deadline or the queue's next visibility event, through a
//     context from Clock.WithDeadline;
//   - its caller's context ends.
//
// Advance moves the clock from one poller event to the next and serves the pollers at each,
// so that a poll's outcome does not depend on goroutine scheduling.
//
// A server that shuts down ends its long polls as SQS ends a wait with nothing to deliver:
// an empty answer, not an error. A poll whose context is canceled with the cause
// http.ErrServerClosed (context.WithCancelCause, as cmd/sqsfake cancels its requests'
// base context on SIGTERM) returns an empty ReceiveMessageOutput and no error, so that a
// client's SDK gets a 200 and its caller exits cleanly.

// serverClosing reports whether ctx ended because the server serving it is shutting down.
func serverClosing(ctx context.Context) bool {
	return errors.Is(context.Cause(ctx), http.ErrServerClosed)
}

// poller is one parked long poll.
type poller struct {
	q        *queue
	p        *receiveParams
	deadline int64
	kick     chan struct{}   // closed to make the poller look again; nil while it is awake
	ctxDone  <-chan struct{} // the Done of the receive's context
	out      *sqs.ReceiveMessageOutput
	done     bool
}

// settle brings q up to the clock's current time and returns that time.
func (f *Fake) settle(q *queue) int64 {
	now := f.now()
	f.settleAt(q, now)
	return now
}

// settleAt applies q's due events at now and hands messages that became available to
// parked polls.
func (f *Fake) settleAt(q *queue, now int64) {
	f.progressTasks(now)
	if q.settle(now) && len(q.pollers) > 0 {
		f.servePollers(q, now)
	}
}

// servePollers hands q's available messages to its parked polls, first parked first.
func (f *Fake) servePollers(q *queue, now int64) {
	for len(q.pollers) > 0 && q.receivable() {
		pl := q.pollers[0]
		msgs := f.receiveFrom(q, pl.p, now)
		if len(msgs) == 0 {
			return
		}
		f.finishPoll(pl, f.render(q, msgs, pl.p))
	}
}

// kickPollers makes q's parked polls look at the queue again: its next event may have moved.
func (q *queue) kickPollers() {
	for _, pl := range q.pollers {
		if pl.kick != nil {
			close(pl.kick)
			pl.kick = nil
		}
	}
}

// park registers pl as waiting and wakes the WaitForPollers calls it satisfies.
func (f *Fake) park(pl *poller) {
	pl.q.pollers = append(pl.q.pollers, pl)
	f.pollers = append(f.pollers, pl)
	f.notifyPollWaiters()
}

// parked counts the calls waiting on the clock: long polls, and calls holding their response
// back for an injected latency.
func (f *Fake) parked() int { return len(f.pollers) + f.waiting }

// notifyPollWaiters wakes the WaitForPollers calls that are now satisfied, and the
// WaitIdle and WaitForCalls calls: a call that starts waiting on the clock is idle.
func (f *Fake) notifyPollWaiters() {
	f.notifyIdle()
	f.pollWaiters.wake(f.parkedAtLeast)
}

// parkedAtLeast reports whether n calls or more are waiting on the clock. Called with f.mu
// held.
func (f *Fake) parkedAtLeast(n uint64) bool { return uint64(f.parked()) >= n }

func removePoller(list []*poller, pl *poller) []*poller {
	for i, x := range list {
		if x == pl {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
	}
	return list
}

// finishPoll ends pl with out and wakes its goroutine.
func (f *Fake) finishPoll(pl *poller, out *sqs.ReceiveMessageOutput) {
	pl.q.pollers = removePoller(pl.q.pollers, pl)
	f.pollers = removePoller(f.pollers, pl)
	pl.out, pl.done = out, true
	if pl.kick != nil {
		close(pl.kick)
		pl.kick = nil
	}
}

// endPollsOf ends the polls of a queue that is being deleted with an empty result.
func (f *Fake) endPollsOf(q *queue) {
	for len(q.pollers) > 0 {
		f.finishPoll(q.pollers[0], &sqs.ReceiveMessageOutput{})
	}
}

// longPoll parks a receive on q until it is served, its deadline passes, or ctx ends. It is
// called with f.mu held and returns with it released.
func (f *Fake) longPoll(ctx context.Context, q *queue, p *receiveParams, now int64) (*sqs.ReceiveMessageOutput, error) {
	pl := &poller{q: q, p: p, deadline: now + p.wait, ctxDone: ctx.Done()}
	f.noteWaited(p.call)
	f.park(pl)
	for {
		wake := pl.deadline
		if d := q.nextAvailable(); d != 0 && d < wake {
			wake = d
		}
		if d := f.nextTaskEvent(now); d != 0 && d < wake {
			wake = d // a move task may bring a message to this queue
		}
		kick := make(chan struct{})
		pl.kick = kick
		f.mu.Unlock()

		timer, cancel := f.clk.WithDeadline(context.Background(), time.Unix(0, wake))
		if w := f.watch; w != nil {
			w.parking(func() bool { return done(kick) || done(timer.Done()) || done(ctx.Done()) })
		}
		select {
		case <-kick:
		case <-timer.Done():
		case <-ctx.Done():
		}
		cancel()
		if f.mock != nil {
			f.awaitCatchUp(ctx) // the mock woke it while the fake's time is pinned in the past
		}

		f.mu.Lock()
		if pl.done {
			f.mu.Unlock()
			return pl.out, nil
		}
		pl.kick = nil
		if ctx.Err() != nil {
			f.dropPoll(pl)
			if serverClosing(ctx) {
				q.stats.emptyReceives++
				f.mu.Unlock()
				return &sqs.ReceiveMessageOutput{}, nil
			}
			f.mu.Unlock()
			return nil, contextError(ctx)
		}
		now = f.now()
		f.settleAt(q, now)
		f.servePollers(q, now)
		if pl.done {
			f.mu.Unlock()
			return pl.out, nil
		}
		if now >= pl.deadline {
			f.dropPoll(pl)
			q.stats.emptyReceives++
			f.mu.Unlock()
			return &sqs.ReceiveMessageOutput{}, nil
		}
	}
}

// dropPoll removes a poll that ends without messages.
func (f *Fake) dropPoll(pl *poller) {
	pl.q.pollers = removePoller(pl.q.pollers, pl)
	f.pollers = removePoller(f.pollers, pl)
}

// WaitForPollers blocks until at least n calls are waiting on the fake's clock — receives
// parked in long polls, and calls holding their response back for an injected latency — or
// ctx ends. A test calls it before moving the clock, so that a call started in another
// goroutine has read the time it waits from before the clock moves. When ctx ends first, the
// error wraps ctx's and says how many calls were waiting.
//
// It is the way to wait for a worker loop — poll, handle, poll again — without counting its
// calls: the loop has done all it can once its next long poll parks, whatever calls it made
// on the way. A message handed to a parked poll (by a send, a move of the clock, a visibility
// change) and a poll whose wait Advance ends leave the count at once, under the fake's lock,
// so a WaitForPollers after them waits for the loop to come round again
// (ExampleFake_WaitForPollers_workerLoop).
//
// A receive that finds a message returns at once and never parks, so WaitForPollers waits
// for it until ctx ends; WaitForCalls waits for the call either way. Give ctx a deadline.
func (f *Fake) WaitForPollers(ctx context.Context, n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.pollWaiters.await(ctx, &f.mu, uint64(max(n, 0)), f.parkedAtLeast) {
		return nil
	}
	return fmt.Errorf("sqsfake: WaitForPollers: %d of the %d calls awaited are waiting on the fake's clock: %w", f.parked(), n, ctx.Err())
}

// Pollers returns how many calls are waiting on the fake's clock: receives parked in long
// polls, and calls holding their response back for an injected latency.
func (f *Fake) Pollers() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.parked()
}

// Advance moves the fake's clock forward by d. Long polls that a message reaches, or whose
// wait ends, within d are answered at the moment that happens on the clock. The clock moves
// with its Add method (the default *VirtualClock, which takes no real time; a benbjohnson
// *clock.Mock, which sleeps 1 ms per move; ClockFuncs with AddFunc); a real clock is moved
// by sleeping, which inside a testing/synctest bubble takes no real time. Advance panics if
// d is negative: a clock cannot go back.
//
// Moving the injected clock directly works too: queue state is a function of the clock's
// time and is settled at each call. Advance adds only the stepping that makes parked long
// polls deterministic.
//
// Companions move with it. A lambdasqs trigger on one of the fake's queues — of any account
// or region — polls at every instant the move passes through where it has something to do
// (a message sent or visible again, a batching window or an invocation ending, a handler's
// deadline), as Lambda's continuous polling would, so one Advance(2*time.Minute) gives the
// same invocations, at the same instants, as 120 calls of Advance(time.Second), and the same
// as moving the fake's *VirtualClock with its own Add. A handler waiting on its context is
// ended inside the move, at its function's timeout. On a benbjohnson *clock.Mock given with
// WithClock, Advance steps to each of those instants too, and so does the mock's own Add or
// Set, after the fact: the fake follows the mock's own moves (see companion.OnMove), so a move made
// with Advance and one made with the mock's Add give the same invocations at the same
// instants. Advance first catches up with any own move of the mock since the last step, and
// no catch-up runs while it moves the clock. Companions attach with companion.OnMove.
//
// What a caller does after Advance answers its call happens on the caller's goroutine, in
// real time, while Advance may already have moved on: a consumer that polls again in a loop
// starts its next poll at a time that depends on scheduling. To keep such a test
// deterministic, move the clock to each point where a call returns and wait for the next
// one with WaitForPollers before moving on; or run the test in a testing/synctest bubble on
// RealClock, where time advances only when every goroutine is blocked. Likewise, a goroutine
// that a move wakes from a wait on the clock (a sleep, a back-off, a heartbeat) runs after
// Advance returns: wait for it to wait again, with WaitForTimers, before the next move.
//
// The fake keeps time in int64 nanoseconds since 1970, so its clock ends in April 2262;
// Advance panics rather than move it past LatestTime().
func (f *Fake) Advance(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("sqsfake: Advance(%v): a clock cannot go back", d))
	}
	f.advanceMu.Lock()
	defer f.advanceMu.Unlock()
	f.advancing.Store(true)
	defer f.advancing.Store(false)
	to := f.clk.Now().Add(d)
	if to.After(latestTime) {
		panic(fmt.Sprintf("sqsfake: Advance(%v) would move the clock to %v, past LatestTime (%v)", d, to.UTC(), latestTime))
	}
	target := to.UnixNano()
	_, virtual := f.clk.(*VirtualClock) // which calls the OnMove functions itself
	hookNext := int64(0)                // the earliest instant the OnMove functions asked for
	if f.mock != nil {
		// No catch-up runs while Advance moves the mock: first, one catches up with the
		// mock's own moves since the OnMove functions last ran (catchup.go).
		f.cu.mu.Lock()
		defer f.cu.mu.Unlock()
		defer func() {
			f.advancing.Store(false) // armTimer arms nothing while Advance moves the clock
			f.armTimer(false)
		}()
		f.catchUpLocked(false)
	}
	if !virtual {
		hookNext = f.runHooksAt(f.clk.Now(), false)
	}
	for {
		now := f.now()
		step := target
		if hookNext > now && hookNext < step {
			step = hookNext
		}
		f.mu.Lock()
		if next := f.nextPollEvent(now); next != 0 && next < step {
			step = next
		}
		f.mu.Unlock()
		moveClock(f.clk, time.Duration(step-now))
		if a, ok := f.shared.(*adaptedClock); ok {
			a.sync() // its benbjohnson timers fire at each step (sharedclock.go)
		}
		f.mu.Lock()
		f.servePollsAt(f.now())
		f.mu.Unlock()
		if !virtual {
			hookNext = f.runHooksAt(f.clk.Now(), false)
		}
		if step >= target {
			return
		}
	}
}

// nextPollEvent is the earliest time after now at which a parked poll's deadline passes or a
// message of a polled queue becomes visible; 0 when there is none.
func (f *Fake) nextPollEvent(now int64) int64 {
	next := int64(0)
	consider := func(t int64) {
		if t > now && (next == 0 || t < next) {
			next = t
		}
	}
	for _, pl := range f.pollers {
		consider(pl.deadline)
		consider(pl.q.nextAvailable())
	}
	if len(f.pollers) > 0 {
		consider(f.nextTaskEvent(now))
	}
	return next
}

// servePollsAt settles every polled queue at now, serves its polls, and ends the polls whose
// wait is over. A poll served may dead-letter a message into a running move task's source
// after the tasks were brought up to now; it serves again until no move is due by now.
func (f *Fake) servePollsAt(now int64) {
	for {
		f.servePollsOnce(now)
		if len(f.pollers) == 0 || !f.taskMoveDue(now) {
			return
		}
	}
}

// taskMoveDue reports whether a running move task has a move due by now.
func (f *Fake) taskMoveDue(now int64) bool {
	for _, t := range f.runningTasks {
		if at, ok := f.nextMove(t); ok && at <= now {
			return true
		}
	}
	return false
}

func (f *Fake) servePollsOnce(now int64) {
	for _, pl := range slices.Clone(f.pollers) {
		if pl.done {
			continue
		}
		f.settleAt(pl.q, now)
		if !pl.done && now >= pl.deadline {
			pl.q.stats.emptyReceives++
			f.finishPoll(pl, &sqs.ReceiveMessageOutput{})
		}
	}
}

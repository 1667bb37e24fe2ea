package sqsfake

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"

	"github.com/sqsfake/sqsfake/internal/bridge"
	"github.com/sqsfake/sqsfake/internal/goid"
)

// Following a benbjohnson *clock.Mock moved with its own Add or Set.
//
// The mock runs its timers on goroutines of their own and goes on after 1 ms of real time
// without waiting for them, so a companion (a lambdasqs trigger) cannot act inside the
// mock's move as it acts inside a VirtualClock's. The fake follows such a move after the
// fact instead, exactly as Advance would have stepped it: a catch-up runs the OnMove
// functions at every instant from caught — the last instant they were run at — to the
// mock's time, with the fake's time pinned at each (now and Now read the pinned instant), so
// that what they do there happens at that instant whenever the goroutine runs. Catch-ups
// run one at a time (catchMu), Advance excludes them, and every call into the fake from
// outside a step waits for a running one and then catches up itself before it acts; one
// mock timer (arm) makes the mock's own moves start a catch-up, so that a handler runs
// without any call into the fake.

// catchUp is the state of a Fake on a benbjohnson mock for following the mock's own moves.
type catchUp struct {
	mu        sync.Mutex                // one catch-up at a time; Advance holds it too
	pinned    atomic.Pointer[time.Time] // the instant the fake reads while a catch-up steps there; nil when not pinned
	caught    atomic.Int64              // the instant up to which the OnMove functions have been run
	calls     atomic.Uint64             // f.requests when they were last run, or callsUnseen
	running   atomic.Bool               // a catch-up is stepping (the time may be pinned in the past)
	goid      atomic.Uint64             // the goroutine running it
	nHooks    atomic.Int32              // how many OnMove functions are registered
	nJoined   atomic.Int32              // how many goroutines JoinStep marked
	joinMu    sync.Mutex                // guards joined
	joined    map[uint64]int            // the goroutines JoinStep marked, each with how many times
	timerMu   sync.Mutex                // guards what follows
	next      int64                     // the earliest instant after caught the OnMove functions asked for; 0: none
	timer     *clock.Timer              // the one mock timer armed, or nil
	timerAt   int64                     // its instant
	timerGen  uint64                    // counts timers armed: one that fires after it was replaced is stale
	timerSoon bool                      // the timer is the one just after caught that a call armed
	soonFired int64                     // the instant such a timer last fired at
}

// callsUnseen marks catchUp.calls when a catch-up must run the OnMove functions at caught
// whatever the call count: a function was just registered.
const callsUnseen = math.MaxUint64

// catchesUp reports whether the fake follows moves of its clock made outside it itself: on a
// benbjohnson *clock.Mock given with WithClock (companion.CatchesUp).
func (f *Fake) catchesUp() bool { return f.mock != nil }

// catchUpNow brings the fake up to the time its clock shows: on a fake that follows a
// benbjohnson *clock.Mock with OnMove functions registered, it waits for a catch-up running on
// another goroutine and runs the functions at every instant from the last they were run at to
// the mock's time (companion.CatchUp). Every inspection does this first. Called from inside a
// step it does nothing; on any other clock it does nothing.
func (f *Fake) catchUpNow() {
	if f.mock != nil && f.cu.nHooks.Load() > 0 {
		f.follow(context.Background(), false)
	}
}

// follow catches up before a call with ctx (calling: an operation; else an inspection) acts,
// unless the call is part of a step: it carries the step key (companion.InStep), or runs on
// the goroutine of the catch-up. An operation made while nothing is to be caught up only
// notes that it is made, so that the mock's next move steps at this instant first.
func (f *Fake) follow(ctx context.Context, calling bool) {
	cu := &f.cu
	if ctx.Value(bridge.StepKey{}) != nil {
		if !cu.running.Load() {
			f.armTimer(true)
		}
		return
	}
	running := cu.running.Load()
	if !running && f.clk.Now().UnixNano() <= cu.caught.Load() {
		f.armTimer(calling)
		return
	}
	if f.inStep(running) {
		return // a call from a step's own goroutine: the catch-up's, or one JoinStep marked
	}
	cu.mu.Lock()
	f.catchUpLocked(true)
	cu.mu.Unlock()
	f.armTimer(calling)
}

// inStep reports whether the calling goroutine does a step's work: it runs the catch-up (when
// one is running), or JoinStep marked it. It reads the goroutine's id only when either may
// be so.
func (f *Fake) inStep(running bool) bool {
	cu := &f.cu
	if !running && cu.nJoined.Load() == 0 {
		return false
	}
	gid := goid.Current()
	if running && cu.goid.Load() == gid {
		return true
	}
	if cu.nJoined.Load() == 0 {
		return false
	}
	cu.joinMu.Lock()
	defer cu.joinMu.Unlock()
	return cu.joined[gid] > 0
}

// joinStep marks the calling goroutine as one that does the work of steps of clock moves for
// a companion (companion.JoinStep): on a fake that catches up with a benbjohnson mock, its
// calls and inspections are part of the step that runs, whatever their context. leave removes
// the mark; it is idempotent. On any other clock it does nothing.
func (f *Fake) joinStep() (leave func()) {
	if f.mock == nil {
		return func() {}
	}
	cu := &f.cu
	gid := goid.Current()
	cu.joinMu.Lock()
	if cu.joined == nil {
		cu.joined = map[uint64]int{}
	}
	cu.joined[gid]++
	cu.joinMu.Unlock()
	cu.nJoined.Add(1)
	var once sync.Once
	return func() {
		once.Do(func() {
			cu.joinMu.Lock()
			if cu.joined[gid]--; cu.joined[gid] <= 0 {
				delete(cu.joined, gid)
			}
			cu.joinMu.Unlock()
			cu.nJoined.Add(-1)
		})
	}
}

// onMockTimer is the function of the fake's mock timer, which the mock runs on a goroutine
// of its own as its Add or Set passes the timer's instant: it catches up to the instants the
// OnMove functions asked for up to the mock's time (not to the time itself, which may be
// anywhere inside the move: the call that next looks at the fake steps there), and arms the
// next timer.
func (f *Fake) onMockTimer(gen uint64) {
	cu := &f.cu
	cu.timerMu.Lock()
	if gen == cu.timerGen {
		cu.timer = nil
		if cu.timerSoon {
			cu.soonFired = cu.timerAt
		}
	}
	cu.timerMu.Unlock()
	cu.mu.Lock()
	f.catchUpLocked(false)
	cu.mu.Unlock()
	f.armTimer(false)
}

// catchUpLocked runs the OnMove functions, with the fake's time pinned, at every instant from
// caught to the mock's time, as Advance would have: first at caught (the move's start) when a
// call was made since they last ran there, then at each instant they asked for up to the
// mock's time, in order, then — final — at the mock's time itself. Called with cu.mu held.
func (f *Fake) catchUpLocked(final bool) {
	cu := &f.cu
	if cu.nHooks.Load() == 0 {
		return
	}
	now := f.clk.Now() // the mock's lock only: its timers' functions run on goroutines of their own
	to := now.UnixNano()
	if to <= cu.caught.Load() {
		return
	}
	cu.goid.Store(goid.Current())
	cu.running.Store(true)
	defer func() {
		cu.pinned.Store(nil)
		cu.running.Store(false)
		cu.goid.Store(0)
	}()
	at := func(ns int64) time.Time { return now.Add(time.Duration(ns - to)) } // in the mock's location
	cu.timerMu.Lock()
	next := cu.next
	cu.timerMu.Unlock()
	if c := cu.calls.Load(); c == callsUnseen || c != f.requests.Load() {
		next = f.runHooksAt(at(cu.caught.Load()), true)
	}
	for next != 0 && next <= to {
		next = f.runHooksAt(at(next), true)
	}
	if final && cu.caught.Load() < to {
		f.runHooksAt(now, true)
	}
}

// runHooksAt runs the OnMove functions of a fake whose clock is not a VirtualClock at now —
// pinning the fake's time there when pin — and returns the earliest instant after now they
// asked for (0: none), which it keeps, on a mock, for the fake's timer.
func (f *Fake) runHooksAt(now time.Time, pin bool) int64 {
	if f.mock == nil {
		return f.runHooks(now)
	}
	cu := &f.cu
	if pin {
		cu.pinned.Store(&now)
	}
	cu.caught.Store(now.UnixNano())
	next := f.runHooks(now)
	cu.calls.Store(f.requests.Load())
	cu.timerMu.Lock()
	cu.next = next
	cu.timerMu.Unlock()
	return next
}

// armTimer keeps the fake's one mock timer armed at the next instant a catch-up has something
// to do: just after caught when a call was made since the OnMove functions last ran, or is
// about to be (calling), so that the mock's next move steps at its start as Advance does;
// else the earliest instant they asked for; none when there is neither.
func (f *Fake) armTimer(calling bool) {
	cu := &f.cu
	if cu.nHooks.Load() == 0 || f.advancing.Load() {
		return // none to step; or Advance moves the clock, and arms the timer once as it ends
	}
	cu.timerMu.Lock()
	defer cu.timerMu.Unlock()
	want := cu.next
	soon := false
	if c := cu.calls.Load(); calling || c == callsUnseen || c != f.requests.Load() {
		// Just after caught, so that the mock's next move steps there first — unless the
		// mock stands at an instant where such a timer of the fake's fired: it is inside a
		// move (Add goes on to its later timers), and a timer 1 ns on, re-armed by every
		// call of a goroutine that keeps calling, would have the move crawl 1 ns a
		// millisecond. The call that next looks at the fake, or a later timer, steps there.
		if at := cu.caught.Load() + 1; (want == 0 || at < want) && cu.soonFired != cu.caught.Load() {
			want, soon = at, true
		}
	}
	if cu.timer != nil && cu.timerAt == want {
		return
	}
	if cu.timer != nil {
		cu.timer.Stop()
		cu.timer = nil
	}
	if want == 0 {
		return
	}
	cu.timerGen++
	gen := cu.timerGen
	// Never before the mock's time: a timer it has passed would set its clock back when it
	// fires. Mock.AfterFunc takes the mock's lock only, and runs the function on a goroutine
	// of its own.
	d := max(0, time.Duration(want-f.mock.Now().UnixNano()))
	cu.timer = f.mock.AfterFunc(d, func() { f.onMockTimer(gen) })
	cu.timerAt, cu.timerSoon = want, soon
}

// awaitCatchUp waits for a catch-up running on another goroutine to end: a long poll woken
// by the mock while the fake's time is pinned in the past looks again after it.
func (f *Fake) awaitCatchUp(ctx context.Context) {
	cu := &f.cu
	if !cu.running.Load() || ctx.Value(bridge.StepKey{}) != nil || f.inStep(true) {
		return
	}
	cu.mu.Lock()
	//lint:ignore SA2001 waiting for the catch-up to release the lock is the point
	cu.mu.Unlock()
}

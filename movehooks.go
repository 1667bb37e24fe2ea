package sqsfake

import (
	"slices"
	"sync"
	"time"
)

// moveHooks are the functions OnMove registered, called at each step of a clock move: a
// VirtualClock's, or a Fake's on another clock, which tell the next instant they want. The
// owner's lock guards them.
type moveHooks[F any] struct {
	fns  []*F
	copy []F // snapshot's, rebuilt when fns changes
}

// clockHooks are a VirtualClock's; fakeHooks a Fake's on another clock.
type (
	clockHooks = moveHooks[func(now time.Time) (again bool)]
	fakeHooks  = moveHooks[func(now time.Time) (next time.Time)]
)

// maxHookRounds bounds how many times in a row the OnMove functions are called at one
// instant because one of them asked to be called again there (see Fake.OnMove).
const maxHookRounds = 100

func (h *moveHooks[F]) any() bool { return len(h.fns) > 0 }

// add registers fn and returns its remover, which takes mu.
func (h *moveHooks[F]) add(mu sync.Locker, fn F) (remove func()) {
	key := &fn
	h.fns = append(h.fns, key)
	h.copy = nil
	return func() {
		mu.Lock()
		defer mu.Unlock()
		if i := slices.Index(h.fns, key); i >= 0 {
			h.fns = slices.Delete(h.fns, i, i+1)
			h.copy = nil
		}
	}
}

// snapshot returns the functions to call, a slice the caller must not change. It is shared
// until the next add or remove, so that a move with hooks allocates nothing per step.
func (h *moveHooks[F]) snapshot() []F {
	if h.copy == nil {
		h.copy = make([]F, len(h.fns))
		for i, f := range h.fns {
			h.copy[i] = *f
		}
	}
	return h.copy
}

// OnMove registers fn to be called on every move of the fake's clock, for companions that
// must act at each instant a move passes through (package lambdasqs's triggers do). fn
// returns the next instant after now at which it has something to do, or the zero time.
//
// On the fake's default *VirtualClock, and on any VirtualClock given with WithClock, it is
// the clock's OnMove: f.Advance and the clock's own Add (called by a test or by code under
// test) both call fn — at the start of the move, with the time before it, and after each
// timer the move fires, with that timer's time; the instant fn returns is ignored, and a
// companion arms a timer of its own on the clock for it. On any other clock f.Advance calls
// fn at its start and after each step it moves the clock, and steps to the instants fn
// returns, as it steps to its parked polls' deadlines.
//
// On a benbjohnson *clock.Mock (CatchesUp) the fake also follows the mock's own Add and Set,
// which it cannot see as they happen (the mock runs its timers' functions on goroutines of
// their own and goes on after 1 ms of real time without waiting for them): a catch-up calls
// fn, with the fake's time pinned at each instant (Now and everything the fake does read
// it), at every instant from the last one the functions were called at to the mock's time,
// exactly as f.Advance would have stepped them had it made that move — first at that last
// instant (the move's start, so that calls made since are seen there), then at each instant
// the functions return up to the mock's time, in order, and — when a call, an inspection or
// CatchUp catches up, after the move — at the mock's time itself, where Advance ends. Catch-ups
// run one at a time, and f.Advance excludes them. One mock timer, which the fake keeps
// armed at the next such instant (or just after the last one when a call was made since),
// makes the mock's move start a catch-up on the mock's goroutine; every call into the fake,
// every inspection method (but NextVisible, Epoch and CallCount, which companions call inside
// their steps) and CatchUp wait for a running one and then catch up to the mock's time
// before they act. Calls that are part of the step — made by fn on its own goroutine or on
// one marked with JoinStep, or with a context that carries StepKey (a lambdasqs handler's) —
// act at once, at the pinned instant; any other call waits for the catch-up to end, so a
// call that fn's step waits for and that carries neither waits until the step gives up on
// it. A companion arms no timer of its own on the mock: the fake steps to the instants fn
// returns. Code that reads
// the mock's own Now during a catch-up sees the mock's later time; read f.Now() instead. On
// RealClock and ClockFuncs a companion that must follow moves made outside the fake arms
// timers of its own on the clock, which that clock runs as it runs timers.
//
// fn may return now itself: what it did there (a Lambda handler's calls to the fake) may give
// the functions something more to do at that instant, and they are all called again there,
// in order, until none returns now (at most 100 rounds: a caller of the fake on another
// goroutine, working in real time while the clock moves, could otherwise keep them going).
//
// fn runs on the goroutine that moves the clock; it must not move the clock itself. remove
// unregisters fn; it is idempotent. The root package knows nothing of its companions: this
// is the one way in, and with no function registered a move pays one length check per step.
func (f *Fake) OnMove(fn func(now time.Time) (next time.Time)) (remove func()) {
	if vc, ok := f.clk.(*VirtualClock); ok {
		return vc.onMove(func(now time.Time) bool { return fn(now).Equal(now) })
	}
	f.hookMu.Lock()
	defer f.hookMu.Unlock()
	unregister := f.hooks.add(&f.hookMu, fn)
	if f.mock == nil {
		return unregister
	}
	// A catch-up runs the functions at the fake's current time first: the new one has not
	// seen it. The first function starts the catch-ups there.
	if f.cu.nHooks.Add(1) == 1 {
		f.cu.caught.Store(f.clk.Now().UnixNano())
	}
	f.cu.calls.Store(callsUnseen)
	f.armTimer(false) // the mock's next move steps at its start
	var once sync.Once
	return func() {
		unregister()
		once.Do(func() { f.cu.nHooks.Add(-1) })
	}
}

// runHooks calls the OnMove functions of a fake whose clock is not a VirtualClock (whose
// own Add calls them) at now and returns the earliest instant after now they asked for, in
// nanoseconds since 1970; 0 when none did.
func (f *Fake) runHooks(now time.Time) int64 {
	f.hookMu.Lock()
	if !f.hooks.any() {
		f.hookMu.Unlock()
		return 0
	}
	fns := f.hooks.snapshot()
	f.hookMu.Unlock()
	for round := 1; ; round++ {
		next, again := int64(0), false
		for _, fn := range fns {
			at := fn(now)
			again = again || at.Equal(now)
			if at.After(now) && (next == 0 || at.UnixNano() < next) {
				next = at.UnixNano()
			}
		}
		if !again || round == maxHookRounds {
			return next
		}
	}
}

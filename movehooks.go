package sqsfake

import (
	"slices"
	"sync"
	"time"
)

// moveHooks are the functions onMove registered, called at each step of a clock move: a
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
// instant because one of them asked to be called again there (see companion.OnMove).
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

// onMove registers fn to be called on every move of the fake's clock (companion.OnMove, which
// documents it): on a VirtualClock it is the clock's own onMove; on any other clock Advance
// and, on a benbjohnson mock, the catch-ups (catchup.go) call it and step to the instants it
// returns. The root package knows nothing of its companions: this is the one way in, and
// with no function registered a move pays one length check per step.
func (f *Fake) onMove(fn func(now time.Time) (next time.Time)) (remove func()) {
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

package sqsfake

import (
	"slices"
	"sync"
	"time"
)

// moveHooks are the functions OnMove registered, called at each step of a clock move. The
// owner's lock guards them.
type moveHooks struct {
	fns  []*func(now time.Time)
	copy []func(now time.Time) // snapshot's, rebuilt when fns changes
}

func (h *moveHooks) any() bool { return len(h.fns) > 0 }

// add registers fn and returns its remover, which takes mu.
func (h *moveHooks) add(mu sync.Locker, fn func(now time.Time)) (remove func()) {
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
func (h *moveHooks) snapshot() []func(now time.Time) {
	if h.copy == nil {
		h.copy = make([]func(now time.Time), len(h.fns))
		for i, f := range h.fns {
			h.copy[i] = *f
		}
	}
	return h.copy
}

// OnMove registers fn to be called on every move of the fake's clock, for companions that
// must act at each instant a move passes through (package lambdasqs's triggers do): on the
// fake's default *VirtualClock, and on any VirtualClock given with WithClock, it is the
// clock's OnMove, so f.Advance and the clock's own Add (called by a test or by code under
// test) both call it — at the start of the move, with the time before it, and after each
// timer the move fires, with that timer's time. On any other clock (a benbjohnson
// *clock.Mock, RealClock, ClockFuncs) the fake cannot see moves it does not make: f.Advance
// calls fn at its start and after each step it moves the clock (each parked poll's deadline
// or message coming due), and a companion that must also follow moves made outside the fake
// arms timers of its own on the clock. fn runs on the goroutine that moves the clock; it must
// not move the clock itself. remove unregisters fn; it is idempotent. The root package knows
// nothing of its companions: this is the one way in.
func (f *Fake) OnMove(fn func(now time.Time)) (remove func()) {
	if vc, ok := f.clk.(*VirtualClock); ok {
		return vc.OnMove(fn)
	}
	f.hookMu.Lock()
	defer f.hookMu.Unlock()
	return f.hooks.add(&f.hookMu, fn)
}

// runHooks calls the OnMove functions of a fake whose clock is not a VirtualClock (whose
// own Add calls them).
func (f *Fake) runHooks() {
	f.hookMu.Lock()
	if !f.hooks.any() {
		f.hookMu.Unlock()
		return
	}
	fns := f.hooks.snapshot()
	f.hookMu.Unlock()
	now := f.clk.Now()
	for _, fn := range fns {
		fn(now)
	}
}

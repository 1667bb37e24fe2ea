package companion

import (
	"context"
	"time"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/internal/bridge"
)

// OnMove registers fn to be called on every move of f's clock, for a companion that must act
// at each instant a move passes through (package lambdasqs's triggers do). fn returns the
// next instant after now at which it has something to do, or the zero time.
//
// On the fake's default *sqsfake.VirtualClock, and on any VirtualClock given with
// sqsfake.WithClock, it is the clock's own hook: f.Advance and the clock's own Add (called by
// a test or by code under test) both call fn — at the start of the move, with the time before
// it, and after each timer the move fires, with that timer's time; the instant fn returns is
// ignored, and a companion arms a timer of its own on the clock for it. On any other clock
// f.Advance calls fn at its start and after each step it moves the clock, and steps to the
// instants fn returns, as it steps to its parked polls' deadlines.
//
// On a benbjohnson *clock.Mock (CatchesUp) the fake also follows the mock's own Add and Set,
// which it cannot see as they happen (the mock runs its timers' functions on goroutines of
// their own and goes on after 1 ms of real time without waiting for them): a catch-up calls
// fn, with the fake's time pinned at each instant (f.Now and everything the fake does read
// it), at every instant from the last one the functions were called at to the mock's time,
// exactly as f.Advance would have stepped them had it made that move — first at that last
// instant (the move's start, so that calls made since are seen there), then at each instant
// the functions return up to the mock's time, in order, and — when a call, an inspection or
// CatchUp catches up, after the move — at the mock's time itself, where Advance ends.
// Catch-ups run one at a time, and f.Advance excludes them. One mock timer, which the fake
// keeps armed at the next such instant (or just after the last one when a call was made
// since), makes the mock's move start a catch-up on the mock's goroutine; every call into the
// fake, every inspection method (but NextVisible, Epoch and f.CallCount, which companions
// call inside their steps) and CatchUp wait for a running one and then catch up to the mock's
// time before they act. Calls that are part of the step — made by fn on its own goroutine or
// on one marked with JoinStep, or with a context that carries StepKey (a lambdasqs
// handler's) — act at once, at the pinned instant; any other call waits for the catch-up to
// end, so a call that fn's step waits for and that carries neither waits until the step
// gives up on it. A companion arms no timer of its own on the mock: the fake steps to the
// instants fn returns. Code that reads the mock's own Now during a catch-up sees the mock's
// later time; read f.Now() instead. On sqsfake.RealClock and sqsfake.ClockFuncs a companion
// that must follow moves made outside the fake arms timers of its own on the clock, which
// that clock runs as it runs timers.
//
// fn may return now itself: what it did there (a Lambda handler's calls to the fake) may give
// the functions something more to do at that instant, and they are all called again there,
// in order, until none returns now (at most 100 rounds: a caller of the fake on another
// goroutine, working in real time while the clock moves, could otherwise keep them going).
//
// fn runs on the goroutine that moves the clock; it must not move the clock itself. remove
// unregisters fn; it is idempotent. With no function registered a move pays one length
// check per step.
func OnMove(f *sqsfake.Fake, fn func(now time.Time) (next time.Time)) (remove func()) {
	return eng.OnMove(f, fn)
}

// CatchesUp reports whether f follows moves of its clock made outside it: true on a
// benbjohnson *clock.Mock given with sqsfake.WithClock, whose own Add and Set the fake
// follows by running the OnMove functions at every instant the move passed through (see
// OnMove). A companion then arms no timer of its own on the clock for the instants its OnMove
// function returns: the fake steps there.
func CatchesUp(f *sqsfake.Fake) bool { return eng.CatchesUp(f) }

// CatchUp brings f up to the time its clock shows: on a fake that follows a benbjohnson
// *clock.Mock (CatchesUp) with OnMove functions registered, it waits for a catch-up running
// on another goroutine, and runs the OnMove functions at every instant from the last they
// were run at to the mock's time, as f.Advance would have stepped them. Every call into the
// fake and every inspection does this first, and so do package lambdasqs's Trigger methods:
// a companion calls it where it reads state of its own that the steps change, and a test
// needs it only to make companions act without any other call (it is cheap when there is
// nothing to do). Called from inside a step — an OnMove function, or a Lambda handler on its
// own goroutine — it does nothing. On any other clock it does nothing.
func CatchUp(f *sqsfake.Fake) { eng.CatchUp(f) }

// JoinStep marks the calling goroutine as one that does the work of steps of clock moves for
// a companion, as package lambdasqs's goroutines that run Lambda handlers do: on a fake that
// catches up with a benbjohnson mock (CatchesUp), its calls and inspections are part of the
// step that runs, whatever their context (a handler's call with context.Background()
// included), and neither wait for a catch-up nor start one. leave removes the mark; it is
// idempotent. On any other clock JoinStep does nothing.
func JoinStep(f *sqsfake.Fake) (leave func()) { return eng.JoinStep(f) }

// StepKey is the key of a context value that marks a call to the fake as part of a step of a
// clock move: made by a companion's OnMove function, or by code it runs, such as a Lambda
// handler's calls under package lambdasqs, whose handler contexts answer it (a context type
// of a companion's own answers a non-nil value for StepKey{} in its Value method). On a fake
// that follows a benbjohnson *clock.Mock (CatchesUp), a call from outside a step waits for a
// catch-up running on another goroutine and then catches up itself before it acts; a call
// whose context carries StepKey acts at once, at the instant being stepped. Mark a context
// with InStep. On any other clock the key is ignored.
type StepKey = bridge.StepKey

// InStep returns ctx marked with StepKey: a call to the fake with it is part of the step
// that is running, and neither waits for nor starts a catch-up (see StepKey).
func InStep(ctx context.Context) context.Context { return context.WithValue(ctx, StepKey{}, true) }

package sqsfake

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestOnMoveSeesEveryInstantOfAMove pins what a companion sees: the start of each move and
// every instant a timer fires inside it, the same whether the fake's Advance or the clock's
// own Add moves it, and nothing once removed.
func TestOnMoveSeesEveryInstantOfAMove(t *testing.T) {
	for _, mover := range []string{"Fake.Advance", "VirtualClock.Add"} {
		t.Run(mover, func(t *testing.T) {
			f := New()
			clk := f.Clock().(*VirtualClock)
			var seen []time.Duration
			remove := f.onMove(func(now time.Time) time.Time { seen = append(seen, now.Sub(DefaultStart)); return time.Time{} })
			_, cancel := clk.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			move := f.Advance
			if mover == "VirtualClock.Add" {
				move = clk.Add
			}
			move(time.Minute)
			remove()
			remove()
			move(time.Minute)
			require.Equal(t, []time.Duration{0, 30 * time.Second}, seen)
		})
	}
}

// TestOnMoveOnAnotherClockFollowsAdvance pins the hook on a clock the fake cannot watch: it
// runs at the start of Advance and after each of its steps, and Advance steps to the
// instants it asks for.
func TestOnMoveOnAnotherClockFollowsAdvance(t *testing.T) {
	f := New(WithClock(NewMockClock()))
	var seen []time.Duration
	remove := f.onMove(func(now time.Time) time.Time {
		seen = append(seen, now.Sub(DefaultStart))
		if now.Before(DefaultStart.Add(40 * time.Second)) {
			return now.Add(15 * time.Second)
		}
		return time.Time{}
	})
	f.Advance(time.Minute)
	remove()
	f.Advance(time.Minute)
	require.Equal(t, []time.Duration{0, 15 * time.Second, 30 * time.Second, 45 * time.Second, time.Minute}, seen)
}

// TestAnOnMoveFunctionThatReturnsNowHasAllCalledAgain: a function that returns the instant
// it was called at (what it did there may give the others something to do) has every
// function called again there, in order, until none does — on the VirtualClock and on
// another clock alike.
func TestAnOnMoveFunctionThatReturnsNowHasAllCalledAgain(t *testing.T) {
	for _, mock := range []bool{false, true} {
		var opts []Option
		if mock {
			opts = append(opts, WithClock(NewMockClock()))
		}
		f := New(opts...)
		var seen []string
		again := 2
		f.onMove(func(now time.Time) time.Time {
			seen = append(seen, "a "+now.Sub(DefaultStart).String())
			return time.Time{}
		})
		f.onMove(func(now time.Time) time.Time {
			seen = append(seen, "b "+now.Sub(DefaultStart).String())
			if again > 0 {
				again--
				return now
			}
			return time.Time{}
		})
		f.Advance(time.Second)
		want := []string{"a 0s", "b 0s", "a 0s", "b 0s", "a 0s", "b 0s"}
		if mock {
			want = append(want, "a 1s", "b 1s") // Advance on another clock calls them at its end too
		}
		require.Equal(t, want, seen, "mock %v", mock)
	}
}

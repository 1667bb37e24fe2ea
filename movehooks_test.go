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
			remove := f.OnMove(func(now time.Time) { seen = append(seen, now.Sub(DefaultStart)) })
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
// runs at the start of Advance and after each of its steps.
func TestOnMoveOnAnotherClockFollowsAdvance(t *testing.T) {
	f := New(WithClock(ClockFuncs{NowFunc: newManualNow(), AfterFuncFunc: func(time.Duration, func()) func() bool { return func() bool { return true } }}))
	var seen int
	remove := f.OnMove(func(time.Time) { seen++ })
	defer remove()
	f.Advance(time.Minute)
	require.Equal(t, 2, seen)
}

func newManualNow() func() time.Time { return func() time.Time { return DefaultStart } }

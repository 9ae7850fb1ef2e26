package fsm

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// Sleeper is a clock that decides itself what waiting until t means: a
// virtual clock jumps there at once. The driver waits on any other clock
// with a timer and the context.
type Sleeper interface {
	SleepUntil(ctx context.Context, t time.Time) error
}

// Sleep waits d on the wall clock, or until ctx ends (its error; at
// once when d is not positive). The driver's polls wait this way on a
// real clock; the tmux driver's pauses and the simulated agent's turns
// wait through it too, so that waiting on a context is written once.
func Sleep(ctx context.Context, d time.Duration) error {
	wall := clock.New()
	return timerSleeper{wall}.SleepUntil(ctx, wall.Now().Add(d))
}

// timerSleeper waits on a real (or externally driven) clock.
type timerSleeper struct{ clk clock.Clock }

func (s timerSleeper) SleepUntil(ctx context.Context, t time.Time) error {
	d := s.clk.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	tm := s.clk.Timer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-tm.C:
		return nil
	}
}

// Package vclock is virtual time for tests and replays: a clock.Clock whose
// time stands still until the waiter asks to sleep, then jumps.
package vclock

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// Clock is virtual time for tests and replays. Its time stands still
// until the driver waits; a wait then jumps straight to its wake time. So a
// half-hour dispatch replays in microseconds, and the same timeline always
// gives the same result, with no goroutine racing the clock (which is what
// makes clock.Mock awkward here: it fires timers from goroutines and sleeps
// a millisecond on every move).
//
// It implements clock.Clock: pass it as fsm.Options.Clock. Timers made with it
// (Timer, After, Ticker, ...) fire when virtual time passes them; they are
// backed by a clock.Mock created on first use, so only clocks that use them
// pay its cost. It is safe for concurrent use.
type Clock struct {
	mu   sync.Mutex
	now  time.Time
	mock *clock.Mock // nil until a timer is asked for
}

// New returns virtual time starting at start.
func New(start time.Time) *Clock { return &Clock{now: start} }

// Now is the current virtual time.
func (v *Clock) Now() time.Time {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.now
}

// Since is Now minus t.
func (v *Clock) Since(t time.Time) time.Duration { return v.Now().Sub(t) }

// Until is t minus Now.
func (v *Clock) Until(t time.Time) time.Duration { return t.Sub(v.Now()) }

// Sleep moves virtual time forward by d without blocking.
func (v *Clock) Sleep(d time.Duration) { v.advanceTo(v.Now().Add(d)) }

// advanceTo moves time to t (never backwards) and fires the timers due.
func (v *Clock) advanceTo(t time.Time) {
	v.mu.Lock()
	if t.After(v.now) {
		v.now = t
	}
	now, m := v.now, v.mock
	v.mu.Unlock()
	if m != nil {
		m.Set(now)
	}
}

// SleepUntil jumps to t (it never blocks); it is how the fsm driver waits
// on virtual time (fsm.Sleeper).
func (v *Clock) SleepUntil(ctx context.Context, t time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	v.advanceTo(t)
	return nil
}

// timers returns the mock that backs timers, in step with virtual time.
func (v *Clock) timers() *clock.Mock {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.mock == nil {
		v.mock = clock.NewMock()
		v.mock.Set(v.now)
	}
	return v.mock
}

// After returns a channel that receives the time once virtual time has moved d on.
func (v *Clock) After(d time.Duration) <-chan time.Time { return v.timers().After(d) }

// AfterFunc calls f (in its own goroutine) once virtual time has moved d on.
func (v *Clock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	return v.timers().AfterFunc(d, f)
}

// Tick is Ticker(d).C.
func (v *Clock) Tick(d time.Duration) <-chan time.Time { return v.timers().Tick(d) }

// Ticker ticks every d of virtual time.
func (v *Clock) Ticker(d time.Duration) *clock.Ticker { return v.timers().Ticker(d) }

// Timer fires once virtual time has moved d on.
func (v *Clock) Timer(d time.Duration) *clock.Timer { return v.timers().Timer(d) }

// WithDeadline is context.WithDeadline on virtual time.
func (v *Clock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return v.timers().WithDeadline(parent, d)
}

// WithTimeout is context.WithTimeout on virtual time.
func (v *Clock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return v.timers().WithTimeout(parent, d)
}

var _ clock.Clock = (*Clock)(nil)

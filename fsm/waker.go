package fsm

import (
	"context"
	"time"

	"github.com/benbjohnson/clock"
)

// waker decides when a wait looks again. The poll interval and the core's
// deadlines set the latest look; each wake-up source (Wakeups) may bring it
// forward by its own policy, and none decides anything: a look is a look.
type waker struct {
	clk   clock.Clock
	sleep Sleeper
	hints hintPolicy
	out   outputPolicy
	// turns is the agent's turn-end hook; turnNow is set when it spoke,
	// so the next look takes the hook's word instead of the screen.
	turns   <-chan struct{}
	turnNow bool
}

// hintPolicy: after a hint, look at most every poll, and keep looking that
// fast for window after the last hint.
type hintPolicy struct {
	c            <-chan struct{}
	poll, window time.Duration
	until        time.Time // when the fast looks after the last hint end
}

// outputPolicy: a look is due quiet after the last output (each new output
// pushes it back), but no later than every after the first output since the
// last look.
type outputPolicy struct {
	c            <-chan struct{}
	quiet, every time.Duration
}

// newWaker resolves w's defaults against the config's poll interval.
func newWaker(w Wakeups, poll time.Duration, clk clock.Clock) *waker {
	k := &waker{clk: clk, turns: w.Turns,
		hints: hintPolicy{c: w.Hints, poll: w.HintPoll, window: w.HintWindow},
		out:   outputPolicy{c: w.Output, quiet: w.OutputQuiet, every: w.OutputEvery}}
	if k.hints.poll <= 0 {
		k.hints.poll = DefaultHintPoll
	}
	if k.hints.window <= 0 {
		k.hints.window = DefaultHintWindow
	}
	if k.out.quiet <= 0 {
		k.out.quiet = DefaultOutputQuiet
	}
	if k.out.every <= 0 {
		k.out.every = poll
	}
	if s, ok := clk.(Sleeper); ok {
		k.sleep = s
	} else {
		k.sleep = timerSleeper{clk}
	}
	return k
}

// next is when to look after a look at at whose latest next look is due:
// sooner while the fast looks after a hint last.
func (k *waker) next(at, due time.Time) time.Time {
	if fast := at.Add(k.hints.poll); at.Before(k.hints.until) && fast.Before(due) {
		return fast
	}
	return due
}

// tookTurn reports, once, whether the agent's turn-end hook woke the wait.
func (k *waker) tookTurn() bool {
	t := k.turnNow
	k.turnNow = false
	return t
}

// sleepUntil waits until wake, or until a wake-up source brings the next
// look forward (at is the last look: a burst of hints or output costs one
// look per hint poll, not one each). A source whose channel closes is
// dropped: plain polling from then on.
func (k *waker) sleepUntil(ctx context.Context, at, wake time.Time) error {
	if k.hints.c == nil && k.turns == nil && k.out.c == nil {
		return k.sleep.SleepUntil(ctx, wake)
	}
	var firstOut, outDue time.Time
	for {
		next := wake
		if !outDue.IsZero() && outDue.Before(next) {
			next = outDue
		}
		d := k.clk.Until(next)
		if d <= 0 {
			return ctx.Err()
		}
		tm := k.clk.Timer(d)
		select {
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		case <-tm.C:
			return nil
		case _, ok := <-k.turns:
			tm.Stop()
			if !ok {
				k.turns = nil
				continue
			}
			k.turnNow = true // the agent says its turn is over: look now
			return nil
		case _, ok := <-k.out.c:
			tm.Stop()
			if !ok {
				k.out.c = nil
				continue
			}
			now := k.clk.Now()
			if firstOut.IsZero() {
				firstOut = now
			}
			outDue = k.out.due(now, firstOut, at.Add(k.hints.poll))
		case _, ok := <-k.hints.c:
			tm.Stop()
			if !ok {
				k.hints.c = nil
				continue
			}
			wake = k.hints.seen(k.clk.Now(), at, wake)
		}
	}
}

// due is when output seen at now (the first since the last look at first)
// makes a look due: once it pauses, or after every while it goes on, but
// not before soonest.
func (o outputPolicy) due(now, first, soonest time.Time) time.Time {
	due := now.Add(o.quiet)
	if limit := first.Add(o.every); limit.Before(due) {
		due = limit
	}
	if due.Before(soonest) {
		due = soonest
	}
	return due
}

// seen notes a hint at now and returns the next look: a poll after the last
// look (at), if that is sooner than wake.
func (h *hintPolicy) seen(now, at, wake time.Time) time.Time {
	h.until = now.Add(h.window)
	if soon := at.Add(h.poll); soon.Before(wake) {
		return soon
	}
	return wake
}

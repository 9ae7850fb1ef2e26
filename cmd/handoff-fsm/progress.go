package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// progress writes a wait's story to stderr: one line per transition and,
// when stderr is a terminal, a live status line redrawn in place (state,
// elapsed time, last status, time left in the current window). Everything
// else written to stderr goes through Write, which clears the live line
// first so nothing is garbled. Piped, it writes plain lines only.
type progress struct {
	w    io.Writer
	live bool
	now  func() time.Time
	// statuses: also print a line whenever the polled status changes (the
	// demo does, so the stale screen of the startup race shows).
	statuses bool

	mu       sync.Mutex
	start    time.Time // dispatch, learnt from the first poll
	last     fsm.Poll
	havePoll bool
	drawn    bool
}

func newProgress(w io.Writer) *progress {
	return &progress{w: w, live: isTerminal(w), now: time.Now}
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Write passes b to stderr, keeping the live line below it.
func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	n, err := p.w.Write(b)
	p.drawLocked()
	return n, err
}

// transition prints one journal entry.
func (p *progress) transition(e fsm.Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.havePoll {
		// A transition before the first poll is reported comes from the
		// first poll, taken at dispatch.
		p.start = e.At
	}
	p.clearLocked()
	fmt.Fprintf(p.w, "handoff-fsm: %6.2fs  %s → %s  (%s; status %s)\n",
		p.elapsedAt(e.At).Seconds(), e.From, e.To, e.Event, e.Status)
	p.drawLocked()
}

func (p *progress) elapsedAt(t time.Time) time.Duration {
	if p.start.IsZero() {
		return 0
	}
	return t.Sub(p.start)
}

// poll records the latest observation and redraws the live line.
func (p *progress) poll(pl fsm.Poll) {
	p.mu.Lock()
	defer p.mu.Unlock()
	changed := !p.havePoll || shown(pl) != shown(p.last)
	if !p.havePoll {
		p.start = pl.At.Add(-pl.Elapsed)
	}
	p.last, p.havePoll = pl, true
	p.clearLocked()
	// A transition's line already names the status that fired it.
	if p.statuses && changed && len(pl.Transitions) == 0 {
		fmt.Fprintf(p.w, "handoff-fsm: %6.2fs  status %-10s (%s)\n", pl.Elapsed.Seconds(), shown(pl), windowNote(pl, pl.WindowLeft))
	}
	p.drawLocked()
}

// run redraws the live line every 200 ms until ctx ends (only on a
// terminal), so the elapsed time moves between polls.
func (p *progress) run(ctx context.Context) {
	p.mu.Lock()
	live := p.live // stop may already have run: read it under the lock
	p.mu.Unlock()
	if !live {
		return
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			p.mu.Lock()
			p.clearLocked()
			p.drawLocked()
			p.mu.Unlock()
		}
	}
}

// stop removes the live line for good.
func (p *progress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearLocked()
	p.live = false
}

func (p *progress) clearLocked() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

func (p *progress) drawLocked() {
	if !p.live || !p.havePoll {
		return
	}
	fmt.Fprint(p.w, p.lineLocked())
	p.drawn = true
}

// lineLocked is the live line: state, elapsed, last status and the time
// left in the window that runs (startup guard or idle grace).
func (p *progress) lineLocked() string {
	now := p.now()
	l := p.last
	left := l.WindowLeft - now.Sub(l.At)
	if left < 0 {
		left = 0
	}
	return fmt.Sprintf("… %.1fs  status %s  %s  (poll %d)", now.Sub(p.start).Seconds(), shown(l), windowNote(l, left), l.N)
}

// shown is the status a poll shows: "blank" for a live pane that showed
// nothing (no status was read).
func shown(l fsm.Poll) handoff.Status {
	if l.Blank && l.Status == "" {
		return "blank"
	}
	return l.Status
}

// windowNote says which state the wait is in and how long its window (the
// startup guard or the idle grace) has left.
func windowNote(l fsm.Poll, left time.Duration) string {
	switch {
	case l.State == handoff.AwaitingStart && l.WindowLeft > 0 && l.Status.Quiet():
		return fmt.Sprintf("%s: a quiet screen may be the previous turn's; the startup guard holds, %.1fs left", l.State, left.Seconds())
	case l.State == handoff.AwaitingStart && l.WindowLeft > 0:
		return fmt.Sprintf("%s: startup guard, %.1fs left", l.State, left.Seconds())
	case (l.State == handoff.IdleGrace || l.State == handoff.StartupTimeout) && l.WindowLeft > 0:
		return fmt.Sprintf("%s: idle grace %.1fs left", l.State, left.Seconds())
	}
	return string(l.State)
}

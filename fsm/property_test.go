package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/responsefile"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// propReceipt is the receipt of the random timelines' dispatch.
const propReceipt handoff.Receipt = "PROPERTYRECEIPTAAAAA"

// randomTimeline draws a configuration and a terminal timeline from seed.
// About a third of the agents never start (only idle/completed screens).
func randomTimeline(seed uint64) (handoff.Config, []trace.Line) {
	r := rand.New(rand.NewPCG(seed, 0x68616e646f6666))
	cfg := handoff.DefaultConfig()
	cfg.Poll = time.Duration(1+r.IntN(5)) * time.Second / time.Duration(1+r.IntN(2))
	cfg.IdleGrace = time.Duration(r.IntN(41)) * time.Second
	cfg.ResponseTimeout = 2*cfg.IdleGrace + time.Duration(1+r.IntN(200))*time.Second
	if r.IntN(8) == 0 { // sometimes a timeout shorter than the guard + grace
		cfg.ResponseTimeout = time.Duration(1+r.IntN(40)) * time.Second
	}
	cfg.Fallback = r.IntN(2) == 0

	neverStarts := r.IntN(3) == 0
	statuses := []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing,
		handoff.StatusProcessing, handoff.StatusWaitingUserAnswer, "thinking"}
	var lines []trace.Line
	at := time.Duration(0)
	for n := r.IntN(25); n > 0; n-- {
		at += time.Duration(r.IntN(15000)) * time.Millisecond
		l := trace.Line{At: at}
		switch k := r.IntN(20); {
		case k < 12:
			s := statuses[r.IntN(len(statuses))]
			if neverStarts {
				s = statuses[r.IntN(2)]
			} else if r.IntN(40) == 0 {
				s = handoff.StatusError
			}
			l.Status = &s
		case k < 16:
			text := fmt.Sprintf("answer written at %v", at)
			if r.IntN(4) == 0 {
				text = strings.Repeat(" \n", r.IntN(3))
			}
			// Answers carry our receipt, an earlier prompt's (a late
			// answer) or none (an agent that dropped it).
			switch r.IntN(3) {
			case 0:
				text = propReceipt.ReceiptLine() + "\n" + text
			case 1:
				text = earlier.ReceiptLine() + "\nlate " + text
			}
			l.File = &text
		default:
			text := fmt.Sprintf("screen at %v", at)
			l.LastOutput = &text
		}
		lines = append(lines, l)
	}
	return cfg, lines
}

// statusAt is the scripted status at elapsed, worked out independently of
// the Script: the last status moment not after it, idle before any.
func statusAt(lines []trace.Line, elapsed time.Duration) handoff.Status {
	st := handoff.StatusIdle
	for _, l := range lines {
		if l.At <= elapsed && l.Status != nil {
			st = *l.Status
		}
	}
	return st
}

func allowed() map[[3]string]bool {
	m := map[[3]string]bool{}
	for _, tr := range handoff.Transitions() {
		for _, f := range tr.From {
			m[[3]string{string(f), string(tr.Event), string(tr.To)}] = true
		}
	}
	return m
}

// TestPropertiesOfRandomTimelines runs thousands of seeded random timelines
// through the real driver and checks the invariants the spec promises. A
// failure prints the seed and the timeline as a trace for
// `handoff-fsm replay`.
func TestPropertiesOfRandomTimelines(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	table := allowed()
	root := t.TempDir()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		cfg, lines := randomTimeline(seed)
		if msg := checkTimeline(root, seed, cfg, lines, table); msg != "" {
			var b strings.Builder
			c := trace.Config{Wait: cfg, Receipt: propReceipt}
			_ = trace.Write(&b, trace.Trace{Config: &c, Lines: lines})
			t.Fatalf("seed %d: %s\ntrace:\n%s", seed, msg, b.String())
		}
	}
}

func checkTimeline(root string, seed uint64, cfg handoff.Config, lines []trace.Line, table map[[3]string]bool) string {
	work := filepath.Join(root, fmt.Sprint(seed))
	if err := responsefile.EnsureDir(work); err != nil {
		return err.Error()
	}
	p, _ := handoff.ResponsePath(work, "analyst")
	clk := vclock.New(t0)
	archive := responsefile.NewArchive(work, t0)
	var polls []fsm.Poll
	res, err := fsm.Wait(context.Background(), trace.NewScript(lines, clk, p), fsm.Options{
		Config: cfg, Role: "analyst", Workdir: work, Archive: archive, Clock: clk, Logger: quiet(),
		Observer: func(fsm.Entry) {}, Receipt: propReceipt,
		OnPoll: func(p fsm.Poll) { polls = append(polls, p) },
	})
	if err != nil && handoff.ErrorKind(err) == "" {
		return fmt.Sprintf("unexpected error %v", err)
	}
	if res.Elapsed > cfg.ResponseTimeout {
		return fmt.Sprintf("decided after %v, past the response timeout %v", res.Elapsed, cfg.ResponseTimeout)
	}

	reads := 0
	for i, pl := range polls {
		if want := statusAt(lines, pl.Elapsed); pl.Status != want {
			return fmt.Sprintf("poll %d at %v saw %q, the timeline says %q", i, pl.Elapsed, pl.Status, want)
		}
		// Never done from a file while the agent is not quiet.
		if pl.Outcome != nil && pl.Outcome.Name == "file" && !pl.Status.Quiet() {
			return fmt.Sprintf("done from the file at %v while %q", pl.Elapsed, pl.Status)
		}
		// An error status always wins.
		if pl.Status == handoff.StatusError &&
			(pl.State != handoff.Failed || pl.Transitions[len(pl.Transitions)-1].Event != handoff.EventTerminalError) {
			return fmt.Sprintf("status error at %v did not fail the wait: %s", pl.Elapsed, pl.State)
		}
		// Never another prompt's answer.
		if pl.File == fsm.FileReady && strings.Contains(pl.Content, earlier.ReceiptLine()) ||
			pl.File == fsm.FileMismatched && !strings.Contains(pl.Content, earlier.ReceiptLine()) {
			return fmt.Sprintf("file read at %v taken as %s: %q", pl.Elapsed, pl.File, pl.Content)
		}
		// Every file read is in the archive, with what was read; a file of
		// no bytes (a write under way) stays where it is.
		left := pl.File == fsm.FileBlank && pl.Archived == "" && pl.Content == ""
		if !left && (pl.File == fsm.FileReady || pl.File == fsm.FileBlank || pl.File == fsm.FileMismatched) {
			reads++
			if pl.Archived == "" {
				return fmt.Sprintf("file read at %v was not archived", pl.Elapsed)
			}
			if b, err := os.ReadFile(pl.Archived); err != nil || string(b) != pl.Content {
				return fmt.Sprintf("archived %s holds %q (%v), read %q", pl.Archived, b, err, pl.Content)
			}
		}
		if pl.Outcome == nil && !pl.Deadline.After(pl.At) {
			return fmt.Sprintf("poll at %v keeps waiting with a deadline not after it (%v)", pl.Elapsed, pl.Deadline.Sub(t0))
		}
		if i > 0 && pl.At.Sub(polls[i-1].At) > cfg.Poll {
			return fmt.Sprintf("polls at %v and %v are more than the poll interval apart", polls[i-1].Elapsed, pl.Elapsed)
		}
	}
	if entries, _ := os.ReadDir(archive.Dir()); len(entries) != reads {
		return fmt.Sprintf("archive holds %d files, %d were read", len(entries), reads)
	}

	// A never-started agent never fails before twice the grace when the
	// response timeout is longer.
	started := slices.ContainsFunc(lines, func(l trace.Line) bool { return l.Status != nil && !l.Status.Quiet() })
	if !started && err != nil && cfg.ResponseTimeout > 2*cfg.IdleGrace && res.Elapsed < 2*cfg.IdleGrace {
		return fmt.Sprintf("never-started agent failed after %v, before 2×grace %v", res.Elapsed, 2*cfg.IdleGrace)
	}

	// The journal is a chain of moves the table allows.
	state := handoff.AwaitingStart
	var graceFrom time.Time
	for _, e := range res.Journal {
		if e.From != state || !table[[3]string{string(e.From), string(e.Event), string(e.To)}] {
			return fmt.Sprintf("journal move %s -%s-> %s from state %s", e.From, e.Event, e.To, state)
		}
		state = e.To
		if state == handoff.IdleGrace || state == handoff.StartupTimeout {
			graceFrom = e.At
		}
	}
	if !state.Final() {
		return fmt.Sprintf("wait returned in state %s", state)
	}
	// Deadlines are decided exactly: the timeout at the response deadline,
	// the grace at its end (or the response deadline, if earlier).
	last := res.Journal[len(res.Journal)-1]
	end := t0.Add(cfg.ResponseTimeout)
	switch last.Event {
	case handoff.EventTimeout:
		if !last.At.Equal(end) {
			return fmt.Sprintf("timeout decided at %v, want %v", last.At.Sub(t0), cfg.ResponseTimeout)
		}
	case handoff.EventNoResponseFile, handoff.EventFallback:
		want := graceFrom.Add(cfg.IdleGrace)
		if end.Before(want) {
			want = end
		}
		if !last.At.Equal(want) {
			return fmt.Sprintf("grace ended at %v, want %v", last.At.Sub(t0), want.Sub(t0))
		}
	}
	if err == nil && res.Source == fsm.SourceFile && strings.Contains(res.Content, "late answer") {
		return fmt.Sprintf("returned an earlier prompt's answer %q", res.Content)
	}
	if errors.Is(err, handoff.ErrTerminalError) != (last.Event == handoff.EventTerminalError) {
		return fmt.Sprintf("error %v after event %s", err, last.Event)
	}
	return ""
}

package handoff_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
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
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Timeline helpers: each returns one moment of a scripted terminal, at
// seconds after dispatch. Before the first status moment the terminal shows
// the previous turn's idle prompt.
func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func st(at float64, s handoff.Status) trace.Line { return trace.Line{At: sec(at), Status: &s} }

func file(at float64, text string) trace.Line { return trace.Line{At: sec(at), File: &text} }

func out(at float64, text string) trace.Line { return trace.Line{At: sec(at), LastOutput: &text} }

// shows is what the agent's screen shows it took since the prompt was
// sent, from at on: the check at the end reads it with the answer.
func shows(at float64, sub handoff.Submission) trace.Line {
	return trace.Line{At: sec(at), Submitted: &sub}
}

// The readings of the check at the end: user messages since the
// submission.
var (
	whole       = handoff.Message{Taken: handoff.TakenWhole, Quote: "Review the change"}
	placeholder = handoff.Message{Taken: handoff.TakenOther, Quote: "[Pasted Content 4150 chars]"}
	scrolledOff = handoff.Message{Taken: handoff.TakenUnknown, Quote: "its start scrolled off"}
)

const (
	idle       = handoff.StatusIdle
	processing = handoff.StatusProcessing
	completed  = handoff.StatusCompleted
	waiting    = handoff.StatusWaitingUserAnswer
	errStatus  = handoff.StatusError
)

// countingTerminal counts LastOutput calls, so a row can prove the fallback
// was (or was not) used.
type countingTerminal struct {
	handoff.Terminal
	lastOutputCalls int
}

func (c *countingTerminal) LastOutput(ctx context.Context) (string, error) {
	c.lastOutputCalls++
	return c.Terminal.LastOutput(ctx)
}

// Submission passes the check at the end on to the scripted terminal.
func (c *countingTerminal) Submission(ctx context.Context, text string) (handoff.Submission, error) {
	return c.Terminal.(handoff.SubmissionChecker).Submission(ctx, text)
}

type transitionRow struct {
	name string
	// cfg changes the spec's defaults (poll 2 s, grace 30 s, timeout 1800 s,
	// strict) for this row.
	cfg      func(*handoff.Config)
	timeline []trace.Line

	wantErr     error           // nil: done
	wantSource  fsm.Source      // when done
	wantContent string          // when done
	wantAt      float64         // seconds from dispatch to the decision
	wantStates  []handoff.State // AwaitingStart first, the final state last
	// wantArchive lists the archive's file names at the end, in order.
	wantArchive []string
	// receipt is the dispatch's receipt (fsm.Options.Receipt); "" for none.
	receipt handoff.Receipt
}

// ours and earlier are two dispatches' receipts: the one waited on, and an
// earlier prompt's whose answer comes late.
const (
	ours    handoff.Receipt = "OURSRECEIPTAAAAAAAAA"
	earlier handoff.Receipt = "EARLIERRECEIPTBBBBBB"
)

// answered is a response file's text as an agent that follows the
// instruction of the dispatch with receipt r writes it.
func answered(r handoff.Receipt, answer string) string { return r.ReceiptLine() + "\n" + answer }

func strictOff(c *handoff.Config) { c.Fallback = true }

// pollAndGrace sets a poll interval and grace that do not divide each
// other, so a decision taken on the next poll instead of at the deadline
// shows up.
func pollAndGrace(poll, grace, timeout float64) func(*handoff.Config) {
	return func(c *handoff.Config) {
		c.Poll, c.IdleGrace, c.ResponseTimeout = sec(poll), sec(grace), sec(timeout)
	}
}

const (
	A  = handoff.AwaitingStart
	W  = handoff.Working
	IG = handoff.IdleGrace
	ST = handoff.StartupTimeout
	D  = handoff.Done
	F  = handoff.Failed
)

// TestTransitions runs every poll-loop, file-handoff and startup-guard
// scenario of the spec (row names are the scenario titles; "base:" and
// "modified:" mark a title both spec files share when each reading gets its
// own timeline), then edge cases beyond the spec, through the real driver on
// virtual time.
func TestTransitions(t *testing.T) {
	rows := []transitionRow{
		// ---- ../shared/spec/file-handoff-spec.md (modified) and file-handoff-base-spec.md ----
		{
			// Both specs; the modified one archives instead of deleting. The
			// file written while the agent still works is not read until
			// the terminal is idle.
			name:        "Agent writes response file and terminal becomes idle",
			timeline:    []trace.Line{st(0, processing), file(10, "the analysis"), st(20, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "the analysis",
			wantAt:      20,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			// The stale idle screen lasts 24 s: without the guard the grace
			// would have failed the dispatch at 30 s.
			name:        "Startup guard blocks premature grace timer",
			timeline:    []trace.Line{st(0, idle), st(24, processing), st(40, idle), file(60, "late but fine")},
			wantSource:  fsm.SourceFile,
			wantContent: "late but fine",
			wantAt:      60,
			wantStates:  []handoff.State{A, W, IG, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "Agent starts processing and then completes",
			timeline:    []trace.Line{st(0, completed), st(4, processing), file(19, "done"), st(20, completed)},
			wantSource:  fsm.SourceFile,
			wantContent: "done",
			wantAt:      20,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			// Worst case before the false positive: startup timeout (30 s)
			// plus the grace (30 s). The warning is checked for every row
			// that passes StartupTimeout.
			name:       "Startup timeout releases guard",
			timeline:   []trace.Line{st(0, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     60,
			wantStates: []handoff.State{A, ST, F},
		},
		{
			name:        "Response file appears during startup guard",
			timeline:    []trace.Line{st(0, idle), file(5, "quick answer")},
			wantSource:  fsm.SourceFile,
			wantContent: "quick answer",
			wantAt:      6,
			wantStates:  []handoff.State{A, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			// Base reading: the response timeout expires while the terminal
			// is idle without a file.
			name:        "base: Agent ignores file instruction but terminal finishes (default mode)",
			cfg:         strictOff,
			timeline:    []trace.Line{st(0, processing), out(1790, "answer on screen"), st(1790, idle)},
			wantSource:  fsm.SourceFallback,
			wantContent: "answer on screen",
			wantAt:      1800,
			wantStates:  []handoff.State{A, W, IG, D},
		},
		{
			// Modified reading: the idle grace runs out after the agent
			// worked.
			name:        "modified: Agent ignores file instruction but terminal finishes (default mode)",
			cfg:         strictOff,
			timeline:    []trace.Line{st(0, processing), out(10, "answer on screen"), st(10, idle)},
			wantSource:  fsm.SourceFallback,
			wantContent: "answer on screen",
			wantAt:      40,
			wantStates:  []handoff.State{A, W, IG, D},
		},
		{
			name:       "base: Agent ignores file instruction but terminal finishes (strict mode)",
			timeline:   []trace.Line{st(0, processing), out(1790, "answer on screen"), st(1790, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     1800,
			wantStates: []handoff.State{A, W, IG, F},
		},
		{
			name:       "modified: Agent ignores file instruction but terminal finishes (strict mode)",
			timeline:   []trace.Line{st(0, processing), out(10, "answer on screen"), st(10, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     40,
			wantStates: []handoff.State{A, W, IG, F},
		},
		{
			name:       "Terminal enters error state",
			timeline:   []trace.Line{st(0, processing), st(30, errStatus)},
			wantErr:    handoff.ErrTerminalError,
			wantAt:     30,
			wantStates: []handoff.State{A, W, F},
		},
		{
			name:       "Timeout with terminal still processing",
			timeline:   []trace.Line{st(0, processing)},
			wantErr:    handoff.ErrTimeout,
			wantAt:     1800,
			wantStates: []handoff.State{A, W, F},
		},
		{
			// waiting_user_answer released the guard: the grace starts at
			// the first idle after it, with no startup timeout.
			name:       "waiting_user_answer counts as agent started",
			timeline:   []trace.Line{st(0, idle), st(4, waiting), st(10, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     40,
			wantStates: []handoff.State{A, W, IG, F},
		},
		{
			// Quiet runs of 20 s and 18 s add up past the grace, but only
			// consecutive quiet polls count: the grace ends 30 s after the
			// last processing observation.
			name: "Idle grace resets on processing observation",
			timeline: []trace.Line{st(0, processing), st(10, idle), st(30, processing),
				st(32, completed), st(50, processing), st(52, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     82,
			wantStates: []handoff.State{A, W, IG, W, IG, W, IG, F},
		},

		// ---- beyond the spec ----
		{
			name:        "blank file is archived and counts as absent",
			timeline:    []trace.Line{st(0, processing), file(10, " \n\t\n"), st(10, idle)},
			wantErr:     handoff.ErrNoResponseFile,
			wantAt:      40,
			wantStates:  []handoff.State{A, W, IG, F},
			wantArchive: []string{"001-analyst.empty.md"},
		},
		{
			name:        "real file after a blank one is the answer",
			timeline:    []trace.Line{st(0, processing), file(10, " \n"), st(10, idle), file(20, "second try")},
			wantSource:  fsm.SourceFile,
			wantContent: "second try",
			wantAt:      20,
			wantStates:  []handoff.State{A, W, IG, D},
			wantArchive: []string{"001-analyst.empty.md", "002-analyst.md"},
		},
		{
			// A shell's > truncates, then its command writes: a file of no
			// bytes read in between must not be moved away from its writer.
			name:        "a file of no bytes is a write under way: left in place, then the answer",
			timeline:    []trace.Line{st(0, processing), file(10, ""), st(10, idle), file(20, "written")},
			wantSource:  fsm.SourceFile,
			wantContent: "written",
			wantAt:      20,
			wantStates:  []handoff.State{A, W, IG, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "file written while processing is not read until quiet",
			timeline:    []trace.Line{st(0, processing), file(4, "half written"), file(8, "final text"), st(30, completed)},
			wantSource:  fsm.SourceFile,
			wantContent: "final text",
			wantAt:      30,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:       "an error status wins over a ready file",
			timeline:   []trace.Line{st(0, processing), file(10, "answer"), st(10, errStatus)},
			wantErr:    handoff.ErrTerminalError,
			wantAt:     10,
			wantStates: []handoff.State{A, W, F},
		},
		{
			name:       "an error status wins over the startup guard",
			timeline:   []trace.Line{st(0, idle), st(3, errStatus)},
			wantErr:    handoff.ErrTerminalError,
			wantAt:     4,
			wantStates: []handoff.State{A, F},
		},
		{
			name:        "unknown status counts as active",
			timeline:    []trace.Line{st(0, idle), st(2, "thinking"), st(12, idle), file(12, "ok")},
			wantSource:  fsm.SourceFile,
			wantContent: "ok",
			wantAt:      12,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			// Poll 7 s, grace 10 s: the grace ends at 17 s, between polls
			// at 14 s and 21 s; it is decided at 17 s.
			name:       "grace expiry is decided at the deadline, not on the next poll",
			cfg:        pollAndGrace(7, 10, 1800),
			timeline:   []trace.Line{st(0, processing), st(7, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     17,
			wantStates: []handoff.State{A, W, IG, F},
		},
		{
			name:       "startup timeout is decided at the deadline, not on the next poll",
			cfg:        pollAndGrace(7, 10, 1800),
			timeline:   []trace.Line{st(0, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     20,
			wantStates: []handoff.State{A, ST, F},
		},
		{
			name:       "response timeout is decided at the deadline, not on the next poll",
			cfg:        pollAndGrace(7, 10, 100),
			timeline:   []trace.Line{st(0, processing)},
			wantErr:    handoff.ErrTimeout,
			wantAt:     100,
			wantStates: []handoff.State{A, W, F},
		},
		{
			// The agent starts exactly at the response deadline: both
			// transitions fire on the one observation.
			name:       "processing seen first at the response deadline",
			cfg:        pollAndGrace(2, 30, 20),
			timeline:   []trace.Line{st(0, idle), st(20, processing)},
			wantErr:    handoff.ErrTimeout,
			wantAt:     20,
			wantStates: []handoff.State{A, W, F},
		},
		{
			name:       "quiet in AwaitingStart at the response deadline (strict)",
			cfg:        pollAndGrace(2, 30, 20),
			timeline:   []trace.Line{st(0, idle)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     20,
			wantStates: []handoff.State{A, ST, F},
		},
		{
			name: "quiet in AwaitingStart at the response deadline (fallback)",
			cfg: func(c *handoff.Config) {
				pollAndGrace(2, 30, 20)(c)
				c.Fallback = true
			},
			timeline:    []trace.Line{st(0, idle), out(0, "stale words")},
			wantSource:  fsm.SourceFallback,
			wantContent: "stale words",
			wantAt:      20,
			wantStates:  []handoff.State{A, ST, D},
		},
		{
			name:        "file appears after the startup timeout",
			timeline:    []trace.Line{st(0, idle), file(45, "answer")},
			wantSource:  fsm.SourceFile,
			wantContent: "answer",
			wantAt:      46,
			wantStates:  []handoff.State{A, ST, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "agent starts after the startup timeout and gets a fresh grace",
			timeline:    []trace.Line{st(0, idle), st(50, processing), st(100, idle), file(125, "slow start")},
			wantSource:  fsm.SourceFile,
			wantContent: "slow start",
			wantAt:      126,
			wantStates:  []handoff.State{A, ST, W, IG, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:       "zero idle grace gives up on the first quiet poll after working",
			cfg:        pollAndGrace(2, 0, 1800),
			timeline:   []trace.Line{st(0, processing), st(6, completed)},
			wantErr:    handoff.ErrNoResponseFile,
			wantAt:     6,
			wantStates: []handoff.State{A, W, IG, F},
		},
		// ---- receipts: an answer proves which prompt it answers ----
		{
			name:    "an earlier prompt's late answer is archived, never returned, and the wait goes on",
			receipt: ours,
			timeline: []trace.Line{st(0, processing), file(20, answered(earlier, "first answer")), st(20, idle),
				st(22, processing), file(40, answered(ours, "second answer\n")), st(40, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "second answer\n",
			wantAt:      40,
			wantStates:  []handoff.State{A, W, A, W, D},
			wantArchive: []string{"001-analyst.mismatch.md", "002-analyst.md"},
		},
		{
			name:        "a late answer seen before the agent was seen working re-arms the guard",
			receipt:     ours,
			timeline:    []trace.Line{file(1, answered(earlier, "first answer")), st(25, processing), file(40, answered(ours, "second answer")), st(40, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "second answer",
			wantAt:      40,
			wantStates:  []handoff.State{A, A, W, D},
			wantArchive: []string{"001-analyst.mismatch.md", "002-analyst.md"},
		},
		{
			name:        "after a late answer, an agent that never takes our prompt up ends at 2 × grace: no response file",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), file(20, answered(earlier, "first answer")), st(20, idle)},
			wantErr:     handoff.ErrNoResponseFile,
			wantAt:      80,
			wantStates:  []handoff.State{A, W, A, ST, F},
			wantArchive: []string{"001-analyst.mismatch.md"},
		},
		{
			name:        "a late answer at the response deadline ends the wait: no response file",
			cfg:         pollAndGrace(2, 30, 60),
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), file(59, answered(earlier, "first answer")), st(59, idle)},
			wantErr:     handoff.ErrNoResponseFile,
			wantAt:      60,
			wantStates:  []handoff.State{A, W, A, ST, F},
			wantArchive: []string{"001-analyst.mismatch.md"},
		},
		{
			name:        "a file without a receipt line is taken as the answer",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), file(10, "written by hand"), st(10, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "written by hand",
			wantAt:      10,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "our receipt with nothing after it is a blank answer",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), file(10, answered(ours, "\n \n")), st(10, idle)},
			wantErr:     handoff.ErrNoResponseFile,
			wantAt:      40,
			wantStates:  []handoff.State{A, W, IG, F},
			wantArchive: []string{"001-analyst.empty.md"},
		},
		{
			name:        "a wait given no receipt takes any",
			timeline:    []trace.Line{st(0, processing), file(10, answered(earlier, "an answer")), st(10, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "an answer",
			wantAt:      10,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "the check at the end: the screen shows the prompt whole, once: done",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{whole}}), file(10, answered(ours, "the answer")), st(10, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "the answer",
			wantAt:      10,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "the check at the end: the screen shows the prompt submitted twice: failed, the answer archived",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{whole, whole}}), file(10, answered(ours, "the answer")), st(10, idle)},
			wantErr:     handoff.ErrPromptNotTaken,
			wantAt:      10,
			wantStates:  []handoff.State{A, W, F},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "the check at the end: the paste placeholder submitted after the prompt: failed",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), st(20, idle), shows(30, handoff.Submission{Messages: []handoff.Message{scrolledOff, placeholder}}), file(30, answered(ours, "the answer"))},
			wantErr:     handoff.ErrPromptNotTaken,
			wantAt:      30,
			wantStates:  []handoff.State{A, W, IG, F},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "the check at the end: only a piece of the prompt was taken: failed",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{{Taken: handoff.TakenOther, Quote: "a piece of the prompt: line 00412 …"}}}), file(10, answered(ours, "the answer")), st(10, idle)},
			wantErr:     handoff.ErrPromptNotTaken,
			wantAt:      10,
			wantStates:  []handoff.State{A, W, F},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "the check at the end: a screen that cannot tell never fails the dispatch",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), shows(10, handoff.CannotTell("a full-screen CLI that redraws")), file(10, answered(ours, "the answer")), st(10, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "the answer",
			wantAt:      10,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:        "the check at the end: one message whose start scrolled off cannot tell: done",
			receipt:     ours,
			timeline:    []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{scrolledOff}}), file(10, answered(ours, "the answer")), st(10, idle)},
			wantSource:  fsm.SourceFile,
			wantContent: "the answer",
			wantAt:      10,
			wantStates:  []handoff.State{A, W, D},
			wantArchive: []string{"001-analyst.md"},
		},
		{
			name:       "waiting_user_answer forever ends at the response timeout",
			cfg:        pollAndGrace(2, 30, 120),
			timeline:   []trace.Line{st(0, waiting)},
			wantErr:    handoff.ErrTimeout,
			wantAt:     120,
			wantStates: []handoff.State{A, W, F},
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) { runTransitionRow(t, row) })
	}
}

func runTransitionRow(t *testing.T, row transitionRow) {
	t.Helper()
	cfg := handoff.DefaultConfig()
	if row.cfg != nil {
		row.cfg(&cfg)
	}
	work := t.TempDir()
	path := testkit.ResponseFile(t, work, "analyst")
	clk := vclock.New(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	start := clk.Now()
	term := &countingTerminal{Terminal: trace.NewScript(row.timeline, clk, path)}
	var logs bytes.Buffer
	archive := responsefile.NewArchive(work, start)
	var observed []fsm.Entry
	res, err := fsm.Wait(context.Background(), term, fsm.Options{
		Config:   cfg,
		Role:     "analyst",
		Workdir:  work,
		Archive:  archive,
		Clock:    clk,
		Logger:   slog.New(slog.NewTextHandler(&logs, nil)),
		Observer: func(e fsm.Entry) { observed = append(observed, e) },
		Receipt:  row.receipt,
	})

	if row.wantErr == nil {
		if err != nil {
			t.Fatalf("want done, got error %v", err)
		}
		if res.Source != row.wantSource || res.Content != row.wantContent {
			t.Errorf("got %s %q, want %s %q", res.Source, res.Content, row.wantSource, row.wantContent)
		}
	} else {
		if !errors.Is(err, row.wantErr) {
			t.Fatalf("want error %v, got %v (result %+v)", row.wantErr, err, res)
		}
		var we *handoff.WaitError
		if !errors.As(err, &we) {
			t.Fatalf("error %v is not a *handoff.WaitError", err)
		}
		if we.Role != "analyst" || we.Elapsed != sec(row.wantAt) {
			t.Errorf("WaitError role %q elapsed %v, want analyst %v", we.Role, we.Elapsed, sec(row.wantAt))
		}
		if n := len(row.wantStates); n >= 2 && we.State != row.wantStates[n-2] {
			t.Errorf("WaitError state %s, want %s (the state it failed in)", we.State, row.wantStates[n-2])
		}
		if res.Content != "" || res.Source != "" {
			t.Errorf("failed wait returned content %q source %q", res.Content, res.Source)
		}
	}
	if res.Elapsed != sec(row.wantAt) || !clk.Now().Equal(start.Add(sec(row.wantAt))) {
		t.Errorf("decided after %v (clock at %v), want %v", res.Elapsed, clk.Now().Sub(start), sec(row.wantAt))
	}

	states := []handoff.State{handoff.AwaitingStart}
	for i, e := range res.Journal {
		if e.From != states[len(states)-1] {
			t.Errorf("journal entry %d leaves %s but the wait was in %s", i, e.From, states[len(states)-1])
		}
		states = append(states, e.To)
	}
	if !slices.Equal(states, row.wantStates) {
		t.Errorf("states %v, want %v", states, row.wantStates)
	}
	if !slices.Equal(observed, res.Journal) {
		t.Errorf("observer saw %v, journal has %v", observed, res.Journal)
	}
	if last := res.Journal[len(res.Journal)-1]; last.At.Sub(start) != sec(row.wantAt) {
		t.Errorf("final transition at %v, want %v", last.At.Sub(start), sec(row.wantAt))
	}

	// The fallback reads the terminal's last output; nothing else does.
	if wantCalls := map[bool]int{true: 1, false: 0}[res.Source == fsm.SourceFallback]; term.lastOutputCalls != wantCalls {
		t.Errorf("LastOutput called %d times, want %d", term.lastOutputCalls, wantCalls)
	}
	// The startup guard's release is always logged as a warning.
	warned := strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "startup guard released")
	if want := slices.Contains(row.wantStates, handoff.StartupTimeout); warned != want {
		t.Errorf("startup-timeout warning logged: %v, want %v; logs:\n%s", warned, want, logs.String())
	}

	// Nothing the agent wrote is lost: a consumed or blank file is in the
	// archive, and the consumed one is gone from the response path.
	var archived []string
	if entries, err := os.ReadDir(archive.Dir()); err == nil {
		for _, e := range entries {
			archived = append(archived, e.Name())
		}
	}
	if !slices.Equal(archived, row.wantArchive) {
		t.Errorf("archive holds %v, want %v", archived, row.wantArchive)
	}
	if res.Source == fsm.SourceFile {
		if res.ArchivedPath != filepath.Join(archive.Dir(), row.wantArchive[len(row.wantArchive)-1]) {
			t.Errorf("ArchivedPath %q is not the last archived file", res.ArchivedPath)
		}
		b, err := os.ReadFile(res.ArchivedPath)
		if answer, _, _ := handoff.SplitReceipt(string(b)); err != nil || answer != res.Content {
			t.Errorf("archived copy %q (%v) differs from the content %q (but for its receipt line)", b, err, res.Content)
		}
		if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("consumed response file still at %s (%v)", path, err)
		}
	}
}

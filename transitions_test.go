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
	cfg func(*handoff.Config)
	// receipt is the dispatch's receipt (fsm.Options.Receipt); "" for none.
	receipt  handoff.Receipt
	timeline []trace.Line
	want     outcome
}

// outcome is how a row's wait ends: with an answer (from the file or the
// fallback) or an error, at seconds from dispatch, through states
// (AwaitingStart first, the final state last), leaving archive (the
// archive's file names at the end, in order).
type outcome struct {
	err     error      // nil: done
	source  fsm.Source // when done
	content string     // when done
	at      float64
	states  []handoff.State
	archive []string
}

// answer is a wait done with content from the response file.
func answer(content string, at float64, states ...handoff.State) outcome {
	return outcome{source: fsm.SourceFile, content: content, at: at, states: states}
}

// fallback is a wait done with content from the terminal's last output.
func fallback(content string, at float64, states ...handoff.State) outcome {
	return outcome{source: fsm.SourceFallback, content: content, at: at, states: states}
}

// failure is a wait failed with err.
func failure(err error, at float64, states ...handoff.State) outcome {
	return outcome{err: err, at: at, states: states}
}

// archived is o leaving the archive holding names.
func (o outcome) archived(names ...string) outcome {
	o.archive = names
	return o
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
		// Both specs; the modified one archives instead of deleting. The
		// file written while the agent still works is not read until
		// the terminal is idle.
		{name: "Agent writes response file and terminal becomes idle",
			timeline: []trace.Line{st(0, processing), file(10, "the analysis"), st(20, idle)},
			want:     answer("the analysis", 20, A, W, D).archived("001-analyst.md")},
		// The stale idle screen lasts 24 s: without the guard the grace
		// would have failed the dispatch at 30 s.
		{name: "Startup guard blocks premature grace timer",
			timeline: []trace.Line{st(0, idle), st(24, processing), st(40, idle), file(60, "late but fine")},
			want:     answer("late but fine", 60, A, W, IG, D).archived("001-analyst.md")},
		{name: "Agent starts processing and then completes",
			timeline: []trace.Line{st(0, completed), st(4, processing), file(19, "done"), st(20, completed)},
			want:     answer("done", 20, A, W, D).archived("001-analyst.md")},
		// Worst case before the false positive: startup timeout (30 s)
		// plus the grace (30 s). The warning is checked for every row
		// that passes StartupTimeout.
		{name: "Startup timeout releases guard",
			timeline: []trace.Line{st(0, idle)},
			want:     failure(handoff.ErrNoResponseFile, 60, A, ST, F)},
		{name: "Response file appears during startup guard",
			timeline: []trace.Line{st(0, idle), file(5, "quick answer")},
			want:     answer("quick answer", 6, A, D).archived("001-analyst.md")},
		// Base reading: the response timeout expires while the terminal
		// is idle without a file.
		{name: "base: Agent ignores file instruction but terminal finishes (default mode)", cfg: strictOff,
			timeline: []trace.Line{st(0, processing), out(1790, "answer on screen"), st(1790, idle)},
			want:     fallback("answer on screen", 1800, A, W, IG, D)},
		// Modified reading: the idle grace runs out after the agent
		// worked.
		{name: "modified: Agent ignores file instruction but terminal finishes (default mode)", cfg: strictOff,
			timeline: []trace.Line{st(0, processing), out(10, "answer on screen"), st(10, idle)},
			want:     fallback("answer on screen", 40, A, W, IG, D)},
		{name: "base: Agent ignores file instruction but terminal finishes (strict mode)",
			timeline: []trace.Line{st(0, processing), out(1790, "answer on screen"), st(1790, idle)},
			want:     failure(handoff.ErrNoResponseFile, 1800, A, W, IG, F)},
		{name: "modified: Agent ignores file instruction but terminal finishes (strict mode)",
			timeline: []trace.Line{st(0, processing), out(10, "answer on screen"), st(10, idle)},
			want:     failure(handoff.ErrNoResponseFile, 40, A, W, IG, F)},
		{name: "Terminal enters error state",
			timeline: []trace.Line{st(0, processing), st(30, errStatus)},
			want:     failure(handoff.ErrTerminalError, 30, A, W, F)},
		{name: "Timeout with terminal still processing",
			timeline: []trace.Line{st(0, processing)},
			want:     failure(handoff.ErrTimeout, 1800, A, W, F)},
		// waiting_user_answer released the guard: the grace starts at
		// the first idle after it, with no startup timeout.
		{name: "waiting_user_answer counts as agent started",
			timeline: []trace.Line{st(0, idle), st(4, waiting), st(10, idle)},
			want:     failure(handoff.ErrNoResponseFile, 40, A, W, IG, F)},
		// Quiet runs of 20 s and 18 s add up past the grace, but only
		// consecutive quiet polls count: the grace ends 30 s after the
		// last processing observation.
		{name: "Idle grace resets on processing observation",
			timeline: []trace.Line{st(0, processing), st(10, idle), st(30, processing),
				st(32, completed), st(50, processing), st(52, idle)},
			want: failure(handoff.ErrNoResponseFile, 82, A, W, IG, W, IG, W, IG, F)},

		// ---- beyond the spec ----
		{name: "blank file is archived and counts as absent",
			timeline: []trace.Line{st(0, processing), file(10, " \n\t\n"), st(10, idle)},
			want:     failure(handoff.ErrNoResponseFile, 40, A, W, IG, F).archived("001-analyst.empty.md")},
		{name: "real file after a blank one is the answer",
			timeline: []trace.Line{st(0, processing), file(10, " \n"), st(10, idle), file(20, "second try")},
			want:     answer("second try", 20, A, W, IG, D).archived("001-analyst.empty.md", "002-analyst.md")},
		// A shell's > truncates, then its command writes: a file of no
		// bytes read in between must not be moved away from its writer.
		{name: "a file of no bytes is a write under way: left in place, then the answer",
			timeline: []trace.Line{st(0, processing), file(10, ""), st(10, idle), file(20, "written")},
			want:     answer("written", 20, A, W, IG, D).archived("001-analyst.md")},
		{name: "file written while processing is not read until quiet",
			timeline: []trace.Line{st(0, processing), file(4, "half written"), file(8, "final text"), st(30, completed)},
			want:     answer("final text", 30, A, W, D).archived("001-analyst.md")},
		{name: "an error status wins over a ready file",
			timeline: []trace.Line{st(0, processing), file(10, "answer"), st(10, errStatus)},
			want:     failure(handoff.ErrTerminalError, 10, A, W, F)},
		{name: "an error status wins over the startup guard",
			timeline: []trace.Line{st(0, idle), st(3, errStatus)},
			want:     failure(handoff.ErrTerminalError, 4, A, F)},
		{name: "unknown status counts as active",
			timeline: []trace.Line{st(0, idle), st(2, "thinking"), st(12, idle), file(12, "ok")},
			want:     answer("ok", 12, A, W, D).archived("001-analyst.md")},
		// Poll 7 s, grace 10 s: the grace ends at 17 s, between polls
		// at 14 s and 21 s; it is decided at 17 s.
		{name: "grace expiry is decided at the deadline, not on the next poll", cfg: pollAndGrace(7, 10, 1800),
			timeline: []trace.Line{st(0, processing), st(7, idle)},
			want:     failure(handoff.ErrNoResponseFile, 17, A, W, IG, F)},
		{name: "startup timeout is decided at the deadline, not on the next poll", cfg: pollAndGrace(7, 10, 1800),
			timeline: []trace.Line{st(0, idle)},
			want:     failure(handoff.ErrNoResponseFile, 20, A, ST, F)},
		{name: "response timeout is decided at the deadline, not on the next poll", cfg: pollAndGrace(7, 10, 100),
			timeline: []trace.Line{st(0, processing)},
			want:     failure(handoff.ErrTimeout, 100, A, W, F)},
		// The agent starts exactly at the response deadline: both
		// transitions fire on the one observation.
		{name: "processing seen first at the response deadline", cfg: pollAndGrace(2, 30, 20),
			timeline: []trace.Line{st(0, idle), st(20, processing)},
			want:     failure(handoff.ErrTimeout, 20, A, W, F)},
		{name: "quiet in AwaitingStart at the response deadline (strict)", cfg: pollAndGrace(2, 30, 20),
			timeline: []trace.Line{st(0, idle)},
			want:     failure(handoff.ErrNoResponseFile, 20, A, ST, F)},
		{name: "quiet in AwaitingStart at the response deadline (fallback)",
			cfg: func(c *handoff.Config) {
				pollAndGrace(2, 30, 20)(c)
				c.Fallback = true
			},
			timeline: []trace.Line{st(0, idle), out(0, "stale words")},
			want:     fallback("stale words", 20, A, ST, D)},
		{name: "file appears after the startup timeout",
			timeline: []trace.Line{st(0, idle), file(45, "answer")},
			want:     answer("answer", 46, A, ST, D).archived("001-analyst.md")},
		{name: "agent starts after the startup timeout and gets a fresh grace",
			timeline: []trace.Line{st(0, idle), st(50, processing), st(100, idle), file(125, "slow start")},
			want:     answer("slow start", 126, A, ST, W, IG, D).archived("001-analyst.md")},
		{name: "zero idle grace gives up on the first quiet poll after working", cfg: pollAndGrace(2, 0, 1800),
			timeline: []trace.Line{st(0, processing), st(6, completed)},
			want:     failure(handoff.ErrNoResponseFile, 6, A, W, IG, F)},
		// ---- receipts: an answer proves which prompt it answers ----
		{name: "an earlier prompt's late answer is archived, never returned, and the wait goes on", receipt: ours,
			timeline: []trace.Line{st(0, processing), file(20, answered(earlier, "first answer")), st(20, idle),
				st(22, processing), file(40, answered(ours, "second answer\n")), st(40, idle)},
			want: answer("second answer\n", 40, A, W, A, W, D).archived("001-analyst.mismatch.md", "002-analyst.md")},
		{name: "a late answer seen before the agent was seen working re-arms the guard", receipt: ours,
			timeline: []trace.Line{file(1, answered(earlier, "first answer")), st(25, processing), file(40, answered(ours, "second answer")), st(40, idle)},
			want:     answer("second answer", 40, A, A, W, D).archived("001-analyst.mismatch.md", "002-analyst.md")},
		{name: "after a late answer, an agent that never takes our prompt up ends at 2 × grace: no response file", receipt: ours,
			timeline: []trace.Line{st(0, processing), file(20, answered(earlier, "first answer")), st(20, idle)},
			want:     failure(handoff.ErrNoResponseFile, 80, A, W, A, ST, F).archived("001-analyst.mismatch.md")},
		{name: "a late answer at the response deadline ends the wait: no response file", cfg: pollAndGrace(2, 30, 60), receipt: ours,
			timeline: []trace.Line{st(0, processing), file(59, answered(earlier, "first answer")), st(59, idle)},
			want:     failure(handoff.ErrNoResponseFile, 60, A, W, A, ST, F).archived("001-analyst.mismatch.md")},
		{name: "a file without a receipt line is taken as the answer", receipt: ours,
			timeline: []trace.Line{st(0, processing), file(10, "written by hand"), st(10, idle)},
			want:     answer("written by hand", 10, A, W, D).archived("001-analyst.md")},
		{name: "our receipt with nothing after it is a blank answer", receipt: ours,
			timeline: []trace.Line{st(0, processing), file(10, answered(ours, "\n \n")), st(10, idle)},
			want:     failure(handoff.ErrNoResponseFile, 40, A, W, IG, F).archived("001-analyst.empty.md")},
		{name: "a wait given no receipt takes any",
			timeline: []trace.Line{st(0, processing), file(10, answered(earlier, "an answer")), st(10, idle)},
			want:     answer("an answer", 10, A, W, D).archived("001-analyst.md")},
		{name: "the check at the end: the screen shows the prompt whole, once: done", receipt: ours,
			timeline: []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{whole}}), file(10, answered(ours, "the answer")), st(10, idle)},
			want:     answer("the answer", 10, A, W, D).archived("001-analyst.md")},
		{name: "the check at the end: the screen shows the prompt submitted twice: failed, the answer archived", receipt: ours,
			timeline: []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{whole, whole}}), file(10, answered(ours, "the answer")), st(10, idle)},
			want:     failure(handoff.ErrPromptNotTaken, 10, A, W, F).archived("001-analyst.md")},
		{name: "the check at the end: the paste placeholder submitted after the prompt: failed", receipt: ours,
			timeline: []trace.Line{st(0, processing), st(20, idle), shows(30, handoff.Submission{Messages: []handoff.Message{scrolledOff, placeholder}}), file(30, answered(ours, "the answer"))},
			want:     failure(handoff.ErrPromptNotTaken, 30, A, W, IG, F).archived("001-analyst.md")},
		{name: "the check at the end: only a piece of the prompt was taken: failed", receipt: ours,
			timeline: []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{{Taken: handoff.TakenOther, Quote: "a piece of the prompt: line 00412 …"}}}), file(10, answered(ours, "the answer")), st(10, idle)},
			want:     failure(handoff.ErrPromptNotTaken, 10, A, W, F).archived("001-analyst.md")},
		{name: "the check at the end: a screen that cannot tell never fails the dispatch", receipt: ours,
			timeline: []trace.Line{st(0, processing), shows(10, handoff.CannotTell("a full-screen CLI that redraws")), file(10, answered(ours, "the answer")), st(10, idle)},
			want:     answer("the answer", 10, A, W, D).archived("001-analyst.md")},
		{name: "the check at the end: one message whose start scrolled off cannot tell: done", receipt: ours,
			timeline: []trace.Line{st(0, processing), shows(10, handoff.Submission{Messages: []handoff.Message{scrolledOff}}), file(10, answered(ours, "the answer")), st(10, idle)},
			want:     answer("the answer", 10, A, W, D).archived("001-analyst.md")},
		{name: "waiting_user_answer forever ends at the response timeout", cfg: pollAndGrace(2, 30, 120),
			timeline: []trace.Line{st(0, waiting)},
			want:     failure(handoff.ErrTimeout, 120, A, W, F)},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) { runTransitionRow(t, row) })
	}
}

func runTransitionRow(t *testing.T, row transitionRow) {
	t.Helper()
	want := row.want
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

	if want.err == nil {
		if err != nil {
			t.Fatalf("want done, got error %v", err)
		}
		if res.Source != want.source || res.Content != want.content {
			t.Errorf("got %s %q, want %s %q", res.Source, res.Content, want.source, want.content)
		}
	} else {
		if !errors.Is(err, want.err) {
			t.Fatalf("want error %v, got %v (result %+v)", want.err, err, res)
		}
		var we *handoff.WaitError
		if !errors.As(err, &we) {
			t.Fatalf("error %v is not a *handoff.WaitError", err)
		}
		if we.Role != "analyst" || we.Elapsed != sec(want.at) {
			t.Errorf("WaitError role %q elapsed %v, want analyst %v", we.Role, we.Elapsed, sec(want.at))
		}
		if n := len(want.states); n >= 2 && we.State != want.states[n-2] {
			t.Errorf("WaitError state %s, want %s (the state it failed in)", we.State, want.states[n-2])
		}
		if res.Content != "" || res.Source != "" {
			t.Errorf("failed wait returned content %q source %q", res.Content, res.Source)
		}
	}
	if res.Elapsed != sec(want.at) || !clk.Now().Equal(start.Add(sec(want.at))) {
		t.Errorf("decided after %v (clock at %v), want %v", res.Elapsed, clk.Now().Sub(start), sec(want.at))
	}

	states := []handoff.State{handoff.AwaitingStart}
	for i, e := range res.Journal {
		if e.From != states[len(states)-1] {
			t.Errorf("journal entry %d leaves %s but the wait was in %s", i, e.From, states[len(states)-1])
		}
		states = append(states, e.To)
	}
	if !slices.Equal(states, want.states) {
		t.Errorf("states %v, want %v", states, want.states)
	}
	if !slices.Equal(observed, res.Journal) {
		t.Errorf("observer saw %v, journal has %v", observed, res.Journal)
	}
	if last := res.Journal[len(res.Journal)-1]; last.At.Sub(start) != sec(want.at) {
		t.Errorf("final transition at %v, want %v", last.At.Sub(start), sec(want.at))
	}

	// The fallback reads the terminal's last output; nothing else does.
	if wantCalls := map[bool]int{true: 1, false: 0}[res.Source == fsm.SourceFallback]; term.lastOutputCalls != wantCalls {
		t.Errorf("LastOutput called %d times, want %d", term.lastOutputCalls, wantCalls)
	}
	// The startup guard's release is always logged as a warning.
	warned := strings.Contains(logs.String(), "level=WARN") && strings.Contains(logs.String(), "startup guard released")
	if want := slices.Contains(want.states, handoff.StartupTimeout); warned != want {
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
	if !slices.Equal(archived, want.archive) {
		t.Errorf("archive holds %v, want %v", archived, want.archive)
	}
	if res.Source == fsm.SourceFile {
		if res.ArchivedPath != filepath.Join(archive.Dir(), want.archive[len(want.archive)-1]) {
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

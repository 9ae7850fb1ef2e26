package trace_test

import (
	"bytes"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

func poll(n int, elapsed time.Duration, st handoff.Status, state handoff.State) fsm.Poll {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return fsm.Poll{Observation: fsm.Observation{At: start.Add(elapsed), Status: st, File: fsm.FileAbsent}, Ready: fsm.Ready{State: state}, Elapsed: elapsed, N: n}
}

// recorder records a wait with cfg into a buffer the test reads back.
func recorder(t *testing.T, cfg handoff.Config) (*trace.Recorder, *bytes.Buffer) {
	t.Helper()
	var buf bytes.Buffer
	rec, err := trace.NewRecorder(&buf, cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	return rec, &buf
}

func TestRecorderWritesATraceThatReplaysToTheSameOutcome(t *testing.T) {
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace = 500*time.Millisecond, 5*time.Second
	rec, buf := recorder(t, cfg)
	// What a live wait saw: a stale completed screen, work, the file
	// appearing while the agent still streams, then read when it is quiet.
	rec.Poll(poll(1, 0, handoff.StatusCompleted, handoff.AwaitingStart))
	rec.Poll(poll(2, 500*time.Millisecond, handoff.StatusCompleted, handoff.AwaitingStart))
	rec.Poll(poll(3, time.Second, handoff.StatusProcessing, handoff.Working))
	present := poll(4, 1500*time.Millisecond, handoff.StatusProcessing, handoff.Working)
	present.File = fsm.FilePresent
	rec.Poll(present) // not the engine's business while the agent works: not read
	ready := poll(5, 2*time.Second, handoff.StatusCompleted, handoff.Done)
	ready.File, ready.Content = fsm.FileReady, "the answer\n"
	rec.Poll(ready)
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(tr.Lines) != 5 || tr.Config == nil || tr.Config.Wait != cfg {
		t.Fatalf("trace %+v", tr)
	}
	rep := replayed(t, tr)
	if rep.Outcome != "done" || rep.Source != "file" || rep.Content != "the answer\n" || rep.At != 2 {
		t.Fatalf("replay %+v", rep)
	}
}

func TestRecordedFallbackAtTheDeadlineReplaysWithItsLastOutput(t *testing.T) {
	// A live wait polls a little after each deadline (tmux takes time); a
	// replay polls exactly on it. The last output fetched at the decision
	// must still be there for the replay's slightly earlier decision.
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout, cfg.Fallback = time.Second, 10*time.Second, 3*time.Second, true
	rec, buf := recorder(t, cfg)
	rec.Poll(poll(1, 0, handoff.StatusIdle, handoff.AwaitingStart))
	rec.Poll(poll(2, 1010*time.Millisecond, handoff.StatusIdle, handoff.AwaitingStart))
	rec.Poll(poll(3, 2020*time.Millisecond, handoff.StatusIdle, handoff.AwaitingStart))
	last := poll(4, 3004*time.Millisecond, handoff.StatusIdle, handoff.Done)
	last.LastOutput = "the answer on screen"
	rec.Poll(last)
	recorded := buf.String()
	tr, err := trace.Read(buf)
	if err != nil {
		t.Fatal(err)
	}
	rep := replayed(t, tr)
	if rep.Outcome != "done" || rep.Source != "fallback" || rep.Content != "the answer on screen" {
		t.Fatalf("replay %+v\ntrace:\n%s", rep, recorded)
	}
}

// The classifier's reason behind each recorded status goes into the trace
// (what explain --record shows), and a reason for another status than the
// one recorded is not written.
func TestRecorderKeepsTheClassifiersReason(t *testing.T) {
	rec, buf := recorder(t, handoff.DefaultConfig())
	p := poll(1, time.Second, handoff.StatusProcessing, handoff.Working)
	p.Classification = &handoff.Classification{Status: handoff.StatusProcessing, Reason: "the spinner runs in the title"}
	rec.Poll(p)
	stale := poll(2, 2*time.Second, handoff.StatusError, handoff.Working)
	stale.Classification = &handoff.Classification{Status: handoff.StatusIdle, Reason: "a ready prompt"}
	rec.Poll(stale)
	tr, err := trace.Read(buf)
	if err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(tr.Lines) != 2 || tr.Lines[0].Reason != "the spinner runs in the title" || tr.Lines[1].Reason != "" {
		t.Fatalf("lines %+v\n%s", tr.Lines, buf.String())
	}
}

package serve_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Every transition of a finished dispatch keeps its evidence: the
// classifier's reason at the poll that fired it, or the file that decided;
// and the history read from the state folder (another process) has it too.
func TestEachTransitionKeepsItsEvidence(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, simtest.Quick())
	s := startService(t, "", true)
	v := s.submit(t, a.body(a.Panes[0], "analyst", "Show your evidence"))
	f := s.final(t, v.ID)
	if f.Outcome != "done" {
		t.Fatalf("final view %+v", f)
	}
	check := func(where string, ts []trace.Transition) {
		t.Helper()
		if len(ts) < 2 {
			t.Fatalf("%s: transitions %+v", where, ts)
		}
		for _, tr := range ts {
			ev := tr.Evidence
			if ev == nil {
				t.Fatalf("%s: %s → %s on %s has no evidence", where, tr.From, tr.To, tr.Event)
			}
			if ev.Reason == "" || ev.Signals == nil {
				t.Errorf("%s: %s on status %s: no classifier reason or signals: %+v", where, tr.Event, tr.Status, *ev)
			}
			switch tr.Event {
			case "active":
				if ev.By != trace.ByScreen {
					t.Errorf("%s: active decided by %q, want the screen", where, ev.By)
				}
			case "file_ready":
				if ev.By != trace.ByFile || ev.File != "ready" || ev.Archived != f.ArchivedPath {
					t.Errorf("%s: file_ready evidence %+v, want the file archived at %s", where, *ev, f.ArchivedPath)
				}
			}
		}
		if last := ts[len(ts)-1]; last.Event != "file_ready" {
			t.Errorf("%s: last transition %+v, want file_ready", where, last)
		}
	}
	check("the API", f.Transitions)
	if _, err := os.Stat(filepath.Join(s.dir, "dispatches", v.ID+".json")); err != nil {
		t.Fatal(err)
	}
	hist, _, err := serve.History(s.dir, serve.Filter{})
	if err != nil || len(hist) != 1 {
		t.Fatalf("history %+v %v", hist, err)
	}
	full, err := s.Get(context.Background(), v.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	check("Get", full.Transitions)
}

// The evidence of the transitions before a restart is kept with the wait
// in the state file, and the new service shows it with the rest.
func TestEvidenceOutlivesARestart(t *testing.T) {
	t.Parallel()
	a := startAgents(t, 1, working(3*time.Second))
	dir := t.TempDir()
	svc := newService(t, dir, true)
	v, err := svc.Accept(serve.Request{State: bodyState(t, a, a.Panes[0], "analyst", "Keep the evidence")})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the agent working", func() bool {
		got, _ := svc.Get(context.Background(), v.ID, 0)
		return got.State == "Working"
	})
	svc.Close()
	st, err := dispatchstate.Read(filepath.Join(dir, "dispatches", v.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Finished != nil || st.Wait == nil || len(st.Evidence) != len(st.Wait.Journal) || len(st.Evidence) == 0 || st.Evidence[0] == nil {
		t.Fatalf("the state file after the stop: finished %v, journal %+v, evidence %+v", st.Finished, st.Wait, st.Evidence)
	}

	s := startService(t, dir, true)
	f := s.final(t, v.ID)
	if f.Outcome != "done" || len(f.Transitions) < 2 {
		t.Fatalf("final %+v", f)
	}
	first := f.Transitions[0]
	if first.Event != "active" || first.Evidence == nil || first.Evidence.By != trace.ByScreen || first.Evidence.Reason == "" {
		t.Errorf("the transition before the restart: %+v (evidence %+v)", first, first.Evidence)
	}
	if last := f.Transitions[len(f.Transitions)-1]; last.Evidence == nil || last.Evidence.By != trace.ByFile {
		t.Errorf("the transition after the restart: %+v", last)
	}
}

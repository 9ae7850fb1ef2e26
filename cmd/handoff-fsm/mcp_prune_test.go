package main

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Each `mcp` run gets a state folder of its own; the next run removes the
// folders of earlier runs with no dispatch younger than --keep, and leaves
// a folder made in the last hour (its run may not hold its lock yet).
func TestMCPPrunesTheFoldersOfEarlierRuns(t *testing.T) {
	runs := t.TempDir()
	long := time.Now().Add(-40 * 24 * time.Hour)
	mk := func(name string, ended time.Time, age time.Duration) string {
		dir := filepath.Join(runs, name)
		if err := os.MkdirAll(filepath.Join(dir, "dispatches"), 0o700); err != nil {
			t.Fatal(err)
		}
		if !ended.IsZero() {
			st := &dispatchstate.State{Version: dispatchstate.Version, ID: "20250101-000000-x", Pane: dispatchstate.Pane{Target: "%1", Provider: "codex"},
				TmuxTimeout: "5s", Role: "analyst", Workdir: "/tmp/w", Prompt: "hi", Created: ended,
				Config:   handoff.DefaultConfig(),
				Finished: &dispatchstate.Finished{Report: trace.Report{Outcome: "done"}, Ended: ended}}
			if err := st.Write(filepath.Join(dir, "dispatches", st.ID+".json")); err != nil {
				t.Fatal(err)
			}
		}
		at := time.Now().Add(-age)
		if err := os.Chtimes(dir, at, at); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	empty := mk("20250101-000000-1", time.Time{}, 2*time.Hour)
	old := mk("20250101-000000-2", long, 2*time.Hour)
	recent := mk("20260101-000000-3", time.Now().Add(-time.Hour), 2*time.Hour)
	starting := mk("20260101-000000-4", time.Time{}, 0)

	pruneMCPRuns(runs, 30*24*time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	for dir, want := range map[string]bool{empty: false, old: false, recent: true, starting: true} {
		_, err := os.Stat(dir)
		if there := !errors.Is(err, os.ErrNotExist); there != want {
			t.Errorf("%s: there %v, want %v", filepath.Base(dir), there, want)
		}
	}
}

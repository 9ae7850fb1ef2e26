package serve_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// finishedState writes, under stateDir, a dispatch that ended at ended.
func finishedState(t *testing.T, stateDir, id string, ended time.Time) {
	t.Helper()
	st := &dispatchstate.State{Version: dispatchstate.Version, ID: id, Pane: dispatchstate.Pane{Target: "%1", Socket: "agents", Provider: "codex"},
		TmuxTimeout: "5s", Role: "analyst", Workdir: "/tmp/w", Prompt: "hi", Created: ended.Add(-time.Minute),
		Config: handoff.DefaultConfig(),
		Finished: &dispatchstate.Finished{Report: trace.Report{Outcome: "done", Source: "file", Content: "the answer\n"},
			ArchivedPath: "/tmp/w/.tmp/run/001-analyst.md", Ended: ended}}
	dir := filepath.Join(stateDir, "dispatches")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := st.Write(filepath.Join(dir, id+".json")); err != nil {
		t.Fatal(err)
	}
}

func historyIDs(t *testing.T, stateDir string) []string {
	t.Helper()
	views, _, err := serve.History(stateDir, serve.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, v := range views {
		ids = append(ids, v.ID)
	}
	return ids
}

// A service prunes the finished dispatches older than Keep from its
// history; what is younger, and a file it cannot read, stay. Keep 0 keeps
// everything.
func TestAServicePrunesFinishedDispatchesOlderThanKeep(t *testing.T) {
	t.Parallel()
	now := time.Now()
	dir := t.TempDir()
	finishedState(t, dir, "20250101-000000-old", now.Add(-40*24*time.Hour))
	finishedState(t, dir, "20260101-000000-recent", now.Add(-24*time.Hour))
	garbled := filepath.Join(dir, "dispatches", "20240101-000000-garbled.json")
	if err := os.WriteFile(garbled, []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}

	kept := t.TempDir()
	finishedState(t, kept, "20250101-000000-old", now.Add(-40*24*time.Hour))
	s0, err := serve.New(serve.Options{StateDir: kept})
	if err != nil {
		t.Fatal(err)
	}
	s0.Close()
	if ids := historyIDs(t, kept); len(ids) != 1 {
		t.Fatalf("Keep 0 pruned: %v", ids)
	}

	s, err := serve.New(serve.Options{StateDir: dir, Keep: 30 * 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if list := s.Dispatches(serve.Filter{}); len(list) != 1 || list[0].ID != "20260101-000000-recent" {
		t.Fatalf("history after pruning: %+v", list)
	}
	if _, err := os.Stat(filepath.Join(dir, "dispatches", "20250101-000000-old.json")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old dispatch's file is still there: %v", err)
	}
	if _, err := os.Stat(garbled); err != nil {
		t.Fatalf("an unreadable state file was removed: %v", err)
	}
}

// PruneFolder, what mcp runs on the folders of its earlier runs: a folder
// a service holds is left alone; one whose dispatches are all old goes
// whole (with the spare a service killed at a dispatch's ending left:
// dispatchstate.State.Rewrite); one with a recent dispatch stays with it.
func TestPruneFolderLeavesHeldAndRecentFolders(t *testing.T) {
	t.Parallel()
	now := time.Now()
	old := now.Add(-40 * 24 * time.Hour)
	keep := 30 * 24 * time.Hour

	held := t.TempDir()
	finishedState(t, held, "20250101-000000-held", old)
	s, err := serve.New(serve.Options{StateDir: held})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, gone, err := serve.PruneFolder(held, keep, now); !errors.Is(err, serve.ErrLocked) || gone {
		t.Fatalf("a held folder: gone %v, %v; want ErrLocked", gone, err)
	}

	stale := filepath.Join(t.TempDir(), "run")
	finishedState(t, stale, "20250101-000000-a", old)
	finishedState(t, stale, "20250101-000000-b", old)
	if err := os.WriteFile(filepath.Join(stale, "dispatches", ".20250101-000000-b.json.spare"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, gone, err := serve.PruneFolder(stale, keep, now); err != nil || n != 2 || !gone {
		t.Fatalf("an old folder: removed %d, gone %v, %v", n, gone, err)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the old folder is still there: %v", err)
	}

	mixed := t.TempDir()
	finishedState(t, mixed, "20250101-000000-a", old)
	finishedState(t, mixed, "20260101-000000-b", now.Add(-time.Hour))
	if n, gone, err := serve.PruneFolder(mixed, keep, now); err != nil || n != 1 || gone {
		t.Fatalf("a folder with a recent dispatch: removed %d, gone %v, %v", n, gone, err)
	}
	if ids := historyIDs(t, mixed); len(ids) != 1 || ids[0] != "20260101-000000-b" {
		t.Fatalf("left %v", ids)
	}
}

package fsm_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// The response file's watch wakes on the file, the hook's marker is the
// turn signal and the wait's TurnMarker, and cheap looks shorten HintPoll.
func TestWakeSourcesWireEveryWakeup(t *testing.T) {
	work := t.TempDir()
	p, err := handoff.ResponsePath(work, "analyst")
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(t.TempDir(), "hooks", "stopped.json")
	out := make(chan struct{})
	w, stop, err := fsm.WakeSources{Workdir: work, Path: p, HookMarker: marker, Output: out, CheapLooks: true}.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if w.Output != (<-chan struct{})(out) || w.HintPoll != fsm.CheapHintPoll || w.TurnMarker != marker {
		t.Errorf("wakeups %+v", w)
	}
	if err := os.WriteFile(p, []byte("answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantSignal(t, "a hint for the response file", w.Hints)
	if err := os.WriteFile(marker, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantSignal(t, "a turn for the hook's marker", w.Turns)
}

// A watch that cannot start is said, and the others are wired anyway.
func TestWakeSourcesKeepWhatStartsWhenOneWatchCannot(t *testing.T) {
	work := t.TempDir()
	p, _ := handoff.ResponsePath(work, "analyst")
	file := filepath.Join(t.TempDir(), "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := make(chan struct{})
	w, stop, err := fsm.WakeSources{Workdir: work, Path: p, HookMarker: filepath.Join(file, "stopped.json"), Output: out}.Open()
	defer stop()
	if err == nil || !strings.Contains(err.Error(), "hook folder") {
		t.Fatalf("want an error naming the hook folder, got %v", err)
	}
	if w.Hints == nil || w.Output == nil || w.TurnMarker != "" || w.HintPoll != 0 {
		t.Errorf("wakeups %+v", w)
	}
}

func wantSignal(t *testing.T, what string, c <-chan struct{}) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("no %s", what)
	}
}

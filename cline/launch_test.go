package cline

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// up's wiring: a configuration folder of the run's own holding only the
// TaskComplete hook, which runs the command with its arguments quoted, and
// the user's data folder kept.
func TestLaunchWiresTheTaskCompleteHookForTheRun(t *testing.T) {
	t.Setenv("HOME", "/home/u")
	w := Provider().Launch.Hook("/run/files", []string{"/opt/handoff fsm", "hook", "--dir", "/w/.tmp/agent-events/analyst"})
	want := []string{"--config", "/run/files/cline-config", "--data-dir", "/home/u/.cline/data"}
	if !slices.Equal(w.Args, want) {
		t.Errorf("args %q, want %q", w.Args, want)
	}
	script, ok := w.Files[filepath.Join("/run/files/cline-config", "hooks", "TaskComplete.sh")]
	if !ok || len(w.Files) != 1 {
		t.Fatalf("files %v, want hooks/TaskComplete.sh alone", w.Files)
	}
	if !strings.Contains(string(script), "\nexec '/opt/handoff fsm' 'hook' '--dir' '/w/.tmp/agent-events/analyst'\n") {
		t.Errorf("hook script:\n%s", script)
	}
	if r := Provider().Launch.Resume; r != nil {
		t.Errorf("resume %q: Cline has no flag that continues its last session", r)
	}
}

package responsefile_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// receive waits for a hint; the bound only catches a watcher that never
// reports (inotify delivers within milliseconds).
func receive(t *testing.T, w *responsefile.Watcher, what string) {
	t.Helper()
	select {
	case _, ok := <-w.C():
		if !ok {
			t.Fatalf("%s: the watcher stopped", what)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: no hint", what)
	}
}

func TestWatchHintsWhenTheResponseFileIsWrittenOrMovedIn(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	w, err := responsefile.Watch(p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// Another role's file is not this wait's business.
	other := testkit.ResponseFile(t, work, "tester")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	receive(t, w, "written")
	if err := os.Rename(p, filepath.Join(work, "away.md")); err != nil {
		t.Fatal(err)
	}
	// Written elsewhere and moved into place (an atomic write).
	tmp := filepath.Join(work, "tmp.md")
	if err := os.WriteFile(tmp, []byte("answer 2"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	receive(t, w, "moved into place")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for range w.C() { // closed after Close
	}
}

func TestWatchNeedsTheResponseFolder(t *testing.T) {
	if _, err := responsefile.Watch(filepath.Join(t.TempDir(), "nope", "analyst_summary.md")); err == nil {
		t.Fatal("watching a missing folder succeeded")
	}
}

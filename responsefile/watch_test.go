package responsefile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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

// A service's waits share one watch: 300 response files in 300 folders
// (more than Linux's default 128 inotify instances a user may hold) each
// get their own hints through one instance; a wait that ends leaves the
// others of its folder watched; closing the shared watch stops them all.
func TestManyWaitsShareOneWatch(t *testing.T) {
	before := inotifyInstances()
	ws, err := responsefile.NewWatches()
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	var paths []string
	var watchers []*responsefile.Watcher
	for i := range 300 {
		p := testkit.ResponseFile(t, filepath.Join(t.TempDir(), fmt.Sprint(i)), "analyst")
		w, err := ws.Watch(p)
		if err != nil {
			t.Fatalf("watch %d: %v", i, err)
		}
		paths, watchers = append(paths, p), append(watchers, w)
	}
	if runtime.GOOS == "linux" {
		if n := inotifyInstances() - before; n != 1 {
			t.Fatalf("300 waits hold %d inotify instances, want 1", n)
		}
	}
	// A second role in the first folder; its end leaves the first watched.
	tester, err := ws.Watch(testkit.ResponseFile(t, filepath.Dir(filepath.Dir(filepath.Dir(paths[0]))), "tester"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tester.Close(); err != nil {
		t.Fatal(err)
	}
	for range tester.C() { // closed
	}
	for i, p := range paths {
		if err := os.WriteFile(p, []byte("answer"), 0o644); err != nil {
			t.Fatal(err)
		}
		receive(t, watchers[i], fmt.Sprintf("file %d", i))
	}
	if err := ws.Close(); err != nil {
		t.Fatal(err)
	}
	for _, w := range watchers {
		for range w.C() { // closed with the shared watch
		}
	}
}

// inotifyInstances counts this process's inotify instances (Linux).
func inotifyInstances() int {
	fds, _ := os.ReadDir("/proc/self/fd")
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && l == "anon_inode:inotify" {
			n++
		}
	}
	return n
}

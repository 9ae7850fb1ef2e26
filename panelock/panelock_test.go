package panelock_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
)

func pane(server, id string) handoff.PaneIdentity {
	return handoff.PaneIdentity{Server: server, ServerPID: 10, ServerStarted: "2026-03-04T05:06:07Z", Pane: id, PID: 11, Started: "42"}
}

func TestAPaneTakesOneDispatchAtATime(t *testing.T) {
	dir := t.TempDir()
	p := pane("/tmp/tmux-1/agents", "%3")
	since := time.Now().Add(-time.Minute)
	first, err := panelock.Acquire(context.Background(), dir, p, panelock.Holder{PID: os.Getpid(), Role: "analyst", Since: since}, false)
	if err != nil {
		t.Fatal(err)
	}
	if h, ok := panelock.HolderOf(dir, p); !ok || h.Role != "analyst" || h.PID != os.Getpid() || h.Pane != p.String() {
		t.Fatalf("holder %+v, %v", h, ok)
	}
	_, err = panelock.Acquire(context.Background(), dir, p, panelock.Holder{PID: os.Getpid(), Role: "tester", Since: time.Now()}, false)
	var busy *panelock.PaneBusyError
	if !errors.Is(err, panelock.ErrPaneBusy) || !errors.As(err, &busy) || busy.Holder.Role != "analyst" ||
		!strings.Contains(err.Error(), "role analyst") || !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) ||
		!strings.Contains(err.Error(), since.Format("15:04:05")) || !strings.Contains(err.Error(), "%3") {
		t.Fatalf("second: %v; want ErrPaneBusy naming the holder's role, pid, since when, and the pane", err)
	}
	// Another pane, or the same pane id on another server, is free.
	for _, other := range []handoff.PaneIdentity{pane("/tmp/tmux-1/agents", "%4"), pane("/tmp/tmux-1/other", "%3")} {
		l, err := panelock.Acquire(context.Background(), dir, other, panelock.Holder{PID: os.Getpid(), Role: "tester"}, false)
		if err != nil {
			t.Fatalf("%v: %v", other, err)
		}
		l.Release()
	}
	// A waiting one gets it once it is released.
	got := make(chan error, 1)
	go func() {
		l, err := panelock.Acquire(context.Background(), dir, p, panelock.Holder{PID: os.Getpid(), Role: "tester"}, true)
		l.Release()
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	select {
	case err := <-got:
		t.Fatalf("the waiting one got the pane while it was held (%v)", err)
	default:
	}
	first.Release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if _, ok := panelock.HolderOf(dir, p); ok {
		t.Fatal("a released pane still has a holder")
	}
}

func TestTheTimedOutMarkerIsPerPaneInstance(t *testing.T) {
	dir := t.TempDir()
	p := pane("/tmp/tmux-1/agents", "%3")
	m := panelock.TimedOut{Role: "analyst", PromptHead: panelock.PromptHead("FIRST task alpha\nsecond line"),
		Started: time.Now().Add(-time.Minute).Round(0), TimedOutAt: time.Now().Round(0), PID: 42, Pane: p}
	if err := panelock.MarkTimedOut(dir, m); err != nil {
		t.Fatal(err)
	}
	got := panelock.TimedOutOn(dir, p)
	if got == nil || got.PromptHead != "FIRST task alpha" || !got.Started.Equal(m.Started) ||
		!strings.Contains(got.Describe(), "role analyst") || !strings.Contains(got.Describe(), "FIRST task alpha") {
		t.Fatalf("marker %+v", got)
	}
	// A new process in the pane is not the agent that had the prompt.
	again := p
	again.PID, again.Started = 12, "43"
	if panelock.TimedOutOn(dir, again) != nil {
		t.Fatal("the marker applies to a new process in the pane")
	}
	if err := panelock.ClearTimedOut(dir, p); err != nil || panelock.TimedOutOn(dir, p) != nil {
		t.Fatalf("clear: %v", err)
	}
	if err := panelock.ClearTimedOut(dir, p); err != nil {
		t.Fatalf("clearing twice: %v", err)
	}
	if h := panelock.PromptHead(strings.Repeat("é", 80)); h != strings.Repeat("é", 60)+"…" {
		t.Fatalf("a long head: %q", h)
	}
}

// The per-user folder is refused when others could use it.
func TestDirIsPrivate(t *testing.T) {
	rt := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", rt)
	dir, err := panelock.Dir()
	if err != nil || dir != filepath.Join(rt, "handoff-fsm") {
		t.Fatalf("%q, %v", dir, err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := panelock.Dir(); err == nil || !strings.Contains(err.Error(), "open to others") {
		t.Fatalf("a folder open to others: %v", err)
	}
	os.Remove(dir)
	if err := os.Symlink(t.TempDir(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := panelock.Dir(); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("a symlink: %v", err)
	}
}

// What status and the boards say of a pane: its holder, and the dispatch
// that timed out on it, still working or ready again.
func TestDispatchesOnSayWhoHoldsThePaneAndWhatTimedOut(t *testing.T) {
	dir := t.TempDir()
	p := pane("/tmp/tmux-1/agents", "%3")
	if d := panelock.DispatchesOn(dir, p, handoff.StatusProcessing); d.Holder != nil || d.TimedOut != nil || d.Note != "" {
		t.Fatalf("a free pane: %+v, want nothing to say", d)
	}
	started := time.Now().Add(-time.Minute)
	if err := panelock.MarkTimedOut(dir, panelock.TimedOut{Role: "analyst", PromptHead: "FIRST task", Started: started,
		TimedOutAt: started.Add(30 * time.Second), PID: 42, Pane: p}); err != nil {
		t.Fatal(err)
	}
	d := panelock.DispatchesOn(dir, p, handoff.StatusProcessing)
	if d.TimedOut == nil || d.TimedOut.Role != "analyst" ||
		!strings.HasPrefix(d.Note, "still working on the timed-out dispatch of role analyst") || !strings.Contains(d.Note, "FIRST task") {
		t.Fatalf("a working agent after a timeout: %+v", d)
	}
	if d := panelock.DispatchesOn(dir, p, handoff.StatusIdle); !strings.HasPrefix(d.Note, "ready again after the timed-out dispatch") {
		t.Fatalf("a quiet agent after a timeout: %+v", d)
	}
	l, err := panelock.Acquire(context.Background(), dir, p, panelock.Holder{PID: os.Getpid(), Role: "tester", Since: time.Now()}, false)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	d = panelock.DispatchesOn(dir, p, handoff.StatusProcessing)
	if d.Holder == nil || d.Holder.Role != "tester" || !strings.HasPrefix(d.Note, "dispatching: ") ||
		!strings.Contains(d.Note, "; still working on the timed-out dispatch") {
		t.Fatalf("a held pane after a timeout: %+v", d)
	}
}

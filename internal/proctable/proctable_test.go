//go:build unix

package proctable_test

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
)

// A tree of three: a shell, its child, and a grandchild that moved to a
// session of its own (as an agent's helper may). Descendants finds both,
// Stat reads their parents, and Alive tells a running process from an
// ended one.
func TestDescendantsFindsTheWholeTree(t *testing.T) {
	if !proctable.Present() {
		t.Skip("no /proc here: nothing to read")
	}
	pidFile := t.TempDir() + "/grandchild"
	top := exec.Command("sh", "-c", `sh -c 'setsid sleep 30 & echo $! > "$0"; wait' "$0"`, pidFile)
	top.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := top.Start(); err != nil {
		t.Fatal(err)
	}
	var grand int
	defer func() {
		_ = syscall.Kill(-top.Process.Pid, syscall.SIGKILL)
		if grand > 0 {
			_ = syscall.Kill(grand, syscall.SIGKILL)
		}
		_ = top.Wait()
	}()
	for deadline := time.Now().Add(10 * time.Second); grand == 0; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(pidFile); err == nil {
			_, _ = fmt.Sscan(string(b), &grand) // none yet while the file is empty
		}
		if time.Now().After(deadline) {
			t.Fatal("the grandchild never started")
		}
	}
	var below []int
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		// setsid forks or execs: the sleep is the grandchild either way
		// once its parent is the middle shell.
		below = proctable.Descendants(top.Process.Pid)
		if len(below) >= 2 && slices.Contains(below, grand) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Descendants(%d) = %v, want the child and the grandchild %d", top.Process.Pid, below, grand)
		}
	}
	child := below[0]
	if got := proctable.StatInt(child, 1); got != top.Process.Pid {
		t.Fatalf("the child's ppid = %d, want %d", got, top.Process.Pid)
	}
	if !proctable.Alive(grand) || proctable.StatInt(grand, 3) == proctable.StatInt(top.Process.Pid, 3) {
		t.Fatalf("the grandchild: alive %v, session %d (the top's %d), want alive in its own session",
			proctable.Alive(grand), proctable.StatInt(grand, 3), proctable.StatInt(top.Process.Pid, 3))
	}
	_ = syscall.Kill(grand, syscall.SIGKILL)
	for deadline := time.Now().Add(10 * time.Second); proctable.Alive(grand); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("Alive(%d) after SIGKILL", grand)
		}
	}
}

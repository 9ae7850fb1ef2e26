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

// A command run the way droid runs one: double-forked into a session of
// its own, working in the agent's folder, its parent gone. No walk down
// from anyone finds it; Detached does, by its folder, and End ends it. A
// child that still has its parent is not detached.
func TestDetachedFindsWhatLeftItsTreeAndEndEndsIt(t *testing.T) {
	if !proctable.Present() {
		t.Skip("no /proc here: nothing to read")
	}
	dir, elsewhere := t.TempDir(), t.TempDir()
	pidFile := elsewhere + "/orphan"
	middle := exec.Command("sh", "-c", `setsid sleep 30 & echo $! > "$0"`, pidFile)
	middle.Dir = dir + "/"
	if err := middle.Run(); err != nil {
		t.Fatal(err)
	}
	var orphan int
	b, err := os.ReadFile(pidFile)
	if err == nil {
		_, err = fmt.Sscan(string(b), &orphan)
	}
	if err != nil {
		t.Fatalf("the orphan's pid: %v", err)
	}
	defer syscall.Kill(orphan, syscall.SIGKILL)
	child := exec.Command("sleep", "30")
	child.Dir = dir
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()

	var found []int
	for deadline := time.Now().Add(10 * time.Second); !slices.Contains(found, orphan); time.Sleep(20 * time.Millisecond) {
		// The middle shell has exited; its child moves to init once the
		// kernel has reparented it.
		found = proctable.Detached(elsewhere, dir)
		if time.Now().After(deadline) {
			t.Fatalf("Detached(%s) = %v, want the orphan %d (its parent now %d)", dir, found, orphan, proctable.StatInt(orphan, 1))
		}
	}
	if slices.Contains(found, child.Process.Pid) {
		t.Errorf("Detached lists %d, a child whose parent is alive", child.Process.Pid)
	}
	if other := proctable.Detached(elsewhere); slices.Contains(other, orphan) {
		t.Errorf("Detached(%s) = %v: the orphan works in %s, not there", elsewhere, other, dir)
	}
	if left := proctable.End(found, nil, 2*time.Second); len(left) > 0 {
		t.Fatalf("End left %v", left)
	}
	if proctable.Alive(orphan) {
		t.Errorf("the orphan %d runs after End", orphan)
	}
}

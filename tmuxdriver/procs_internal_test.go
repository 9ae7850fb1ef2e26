//go:build unix

package tmuxdriver

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestHeldBackSeesAStoppedAgent: a process stopped by a signal (as one
// frozen by a cgroup freezer, state D) cannot act, and the second Enter's
// wait must not count while it is so.
func TestHeldBackSeesAStoppedAgent(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here: heldBack knows nothing, and Send waits as before")
	}
	agent := exec.Command("sleep", "30")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = agent.Process.Kill(); _ = agent.Wait() }()
	pid := agent.Process.Pid
	until := func(want bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			held, _, known := heldBack(pid)
			if !known {
				t.Fatalf("heldBack(%d) knows nothing of a live process", pid)
			}
			if held == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("heldBack(%d) = %v, want %v", pid, held, want)
			}
		}
	}
	until(false)
	if err := agent.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	until(true)
	if err := agent.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	until(false)
}

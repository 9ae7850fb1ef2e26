//go:build unix

package tmuxdriver

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
)

// TestEffortSeesAStoppedAgent: a process stopped by a signal (as one
// frozen by a cgroup freezer, state D) cannot act, and the second Enter's
// wait must not count while it is so.
func TestEffortSeesAStoppedAgent(t *testing.T) {
	requireProc(t)
	agent := exec.Command("sleep", "30")
	if err := agent.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = agent.Process.Kill(); _ = agent.Wait() }()
	pid := agent.Process.Pid
	until := func(want bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			e, known := effortOf(pid)
			if !known {
				t.Fatalf("effortOf(%d) knows nothing of a live process", pid)
			}
			if e.held == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("effortOf(%d).held = %v, want %v", pid, e.held, want)
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

// TestEffortSeesAnAgentAtWork: the CPU time of an agent's processes is
// counted on every thread of each, the pane's process and those below
// it: a shell whose child spins is at work, one whose child sleeps is not.
func TestEffortSeesAnAgentAtWork(t *testing.T) {
	requireProc(t)
	spin := exec.Command("sh", "-c", "sh -c 'while :; do :; done' & sleep 30; kill $!")
	spin.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // ended as a group, the spinner too
	if err := spin.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = syscall.Kill(-spin.Process.Pid, syscall.SIGKILL); _ = spin.Process.Kill(); _ = spin.Wait() }()
	from, _ := effortOf(spin.Process.Pid)
	start := time.Now()
	// However loaded the machine, a spinning child either runs or waits
	// for a CPU: one of them grows.
	for deadline := start.Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		e, known := effortOf(spin.Process.Pid)
		if !known {
			t.Fatal("effortOf knows nothing of a live process")
		}
		if e.acting(from, time.Since(start)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a spinning child was not seen at work in 10 s: %+v from %+v", e, from)
		}
	}
	idle := exec.Command("sh", "-c", "sleep 30")
	if err := idle.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = idle.Process.Kill(); _ = idle.Wait() }()
	time.Sleep(200 * time.Millisecond) // past its start
	from, _ = effortOf(idle.Process.Pid)
	time.Sleep(time.Second)
	e, _ := effortOf(idle.Process.Pid)
	if e.held || e.ran-from.ran > 20*time.Millisecond {
		t.Fatalf("a sleeping process read as held or at work: %+v from %+v", e, from)
	}
}

// requireProc skips a test of effortOf where there is no /proc to read.
func requireProc(t *testing.T) {
	t.Helper()
	if !proctable.Present() {
		t.Skip("no /proc here: effortOf knows nothing, and Send waits as before")
	}
}

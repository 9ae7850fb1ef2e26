package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// waitState waits until the state file parses and ok holds (20 s at most).
func waitState(t *testing.T, path string, what string, ok func(*dispatchstate.State) bool) *dispatchstate.State {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if st, err := dispatchstate.Read(path); err == nil && ok(st) {
			return st
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(path)
			t.Fatalf("timed out waiting for the state file to show %s:\n%s", what, b)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func working(st *dispatchstate.State) bool {
	return st.Wait != nil && st.Wait.Core.State == handoff.Working
}

// send is killed (SIGKILL) in the middle of the wait; resume, in a new
// process, picks it up without sending again and ends as the uninterrupted
// send would: the agent's answer on stdout, exit 0. Resuming the finished
// state prints the outcome again without touching the pane.
func TestResumeAfterSendIsKilled(t *testing.T) {
	t.Parallel()
	for i := range 2 {
		a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "3s", "--stream", "300ms")
		state := filepath.Join(t.TempDir(), "dispatch.json")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		prompt := "resume me, take " + string(rune('1'+i))
		send := cliCmd(ctx, a.sendArgs(append(quickWait, "--state", state, "--prompt", prompt)...)...)
		var errb testkit.Buffer
		send.Stderr = &errb
		if err := send.Start(); err != nil {
			t.Fatal(err)
		}
		waitState(t, state, "the agent working", working)
		if err := send.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		send.Wait()

		stdout, stderr, code := cli(t, "", "resume", "--state", state)
		if code != exitOK || stdout != prompt+"\n" {
			t.Fatalf("resume: exit %d, stdout %q\n%s\nthe killed send said:\n%s", code, stdout, stderr, errb.String())
		}
		if !strings.Contains(stderr, "resuming the wait on pane") || !strings.Contains(stderr, "Working → Done") {
			t.Fatalf("resume does not narrate the rest of the wait:\n%s", stderr)
		}
		if strings.Count(a.screen(t), prompt) != 1 {
			t.Fatalf("the prompt reached the agent %d times:\n%s", strings.Count(a.screen(t), prompt), a.screen(t))
		}
		st := waitState(t, state, "the outcome", func(st *dispatchstate.State) bool { return st.Finished != nil })
		if st.Finished.Exit != exitOK || st.Finished.Report.Content != prompt+"\n" {
			t.Fatalf("recorded outcome %+v", st.Finished)
		}
		archived, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.md"))
		if len(archived) != 1 {
			t.Fatalf("archived responses %v, want the one", archived)
		}

		// The pane is gone now: a finished state file does not need it.
		if err := a.srv.Kill(context.Background()); err != nil {
			t.Fatal(err)
		}
		stdout2, stderr2, code2 := cli(t, "", "resume", "--state", state)
		if code2 != exitOK || stdout2 != stdout || !strings.Contains(stderr2, "already finished") {
			t.Fatalf("resuming a finished dispatch: exit %d, stdout %q\n%s", code2, stdout2, stderr2)
		}
	}
}

// Ctrl-C stops send within a poll and leaves the dispatch resumable; the
// response file and the archive are untouched meanwhile.
func TestInterruptedSendResumes(t *testing.T) {
	t.Parallel()
	a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "3s", "--stream", "300ms")
	state := filepath.Join(t.TempDir(), "dispatch.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	send := cliCmd(ctx, a.sendArgs(append(quickWait, "--state", state, "--prompt", "interrupt me")...)...)
	var errb testkit.Buffer
	send.Stderr = &errb
	if err := send.Start(); err != nil {
		t.Fatal(err)
	}
	waitState(t, state, "the agent working", working)
	sent := time.Now()
	if err := send.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := send.Wait()
	if took := time.Since(sent); took > 5*time.Second || send.ProcessState.ExitCode() != exitFailure {
		t.Fatalf("interrupted send: %v after %v\n%s", err, took, errb.String())
	}
	if !strings.Contains(errb.String(), "interrupted") || !strings.Contains(errb.String(), "resume --state "+state) {
		t.Fatalf("the interrupted send does not say how to go on:\n%s", errb.String())
	}
	if runs, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*")); len(runs) != 0 {
		t.Fatalf("an interrupted wait archived %v", runs)
	}
	stdout, stderr, code := cli(t, "", "resume", "--state", state, "--json")
	if code != exitOK {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	rep := decodeReport(t, stdout)
	if rep.Outcome != "done" || rep.Content != "interrupt me\n" || rep.Transitions[0].From != "AwaitingStart" {
		t.Fatalf("resumed report %+v: want done with the answer and the whole journal", rep)
	}
}

// screen is the agent pane's capture.
func (a *agent) screen(t *testing.T) string {
	t.Helper()
	snap, err := a.pane.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap.Capture
}

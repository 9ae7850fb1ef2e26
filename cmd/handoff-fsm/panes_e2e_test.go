package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// gateFile is a file the simulated agent (--work-until) waits for before it
// ends a turn: the test decides when the agent is done.
func gateFile(t *testing.T) string { return filepath.Join(t.TempDir(), "gate") }

func openGate(t *testing.T, gate string) {
	t.Helper()
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sendAs are the flags that send prompt to this agent for role.
func (a *agent) sendAs(role, prompt string, extra ...string) []string {
	args := []string{"send", "--socket", a.srv.Socket, "--target", a.pane.Target(), "--role", role, "--workdir", a.workdir}
	return append(append(args, extra...), "--prompt", prompt)
}

// started is a send running in the background.
type started struct {
	prompt, role   string
	stdout, stderr testkit.Buffer
	pid            int
	done           chan int // its exit code
}

func startSend(t *testing.T, ctx context.Context, a *agent, role, prompt string, extra ...string) *started {
	t.Helper()
	s := &started{prompt: prompt, role: role, done: make(chan int, 1)}
	cmd := cliCmd(ctx, a.sendAs(role, prompt, extra...)...)
	cmd.Stdout, cmd.Stderr = &s.stdout, &s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.pid = cmd.Process.Pid
	go func() {
		cmd.Wait()
		s.done <- cmd.ProcessState.ExitCode()
	}()
	return s
}

// Two sends for two roles to one pane, 0.2 s apart: one dispatch per pane.
// Whichever takes the pane first gets its own whole answer; the other is
// refused at once naming it, and its prompt never reaches the agent. With
// --wait-slot the second waits and gets its own answer too. Never an
// answer to a merged prompt.
func TestTwoRolesToOnePane(t *testing.T) {
	t.Parallel()
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		gate := gateFile(t)
		a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "300ms", "--stream", "200ms", "--work-until", gate)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		analyst := startSend(t, ctx, a, "analyst", "ALPHA task for the analyst", quickWait...)
		time.Sleep(200 * time.Millisecond)
		tester := startSend(t, ctx, a, "tester", "BETA task for the tester", quickWait...)

		// The agent works until the gate opens, so the one that ends first
		// is the one refused, whichever it is.
		var loser, winner *started
		var code int
		select {
		case code = <-analyst.done:
			loser, winner = analyst, tester
		case code = <-tester.done:
			loser, winner = tester, analyst
		case <-ctx.Done():
			t.Fatal("neither send ended")
		}
		msg := loser.stderr.String()
		if code != exitFailure || !strings.Contains(msg, "pane busy") || !strings.Contains(msg, "role "+winner.role) ||
			!strings.Contains(msg, fmt.Sprintf("pid %d", winner.pid)) || loser.stdout.String() != "" {
			t.Fatalf("the %s send: exit %d, stdout %q\n%s\nwant exit 1 naming the %s dispatch (pid %d)",
				loser.role, code, loser.stdout.String(), msg, winner.role, winner.pid)
		}
		openGate(t, gate)
		if code := <-winner.done; code != exitOK || winner.stdout.String() != winner.prompt+"\n" {
			t.Fatalf("the %s send: exit %d, stdout %q\n%s", winner.role, code, winner.stdout.String(), winner.stderr.String())
		}
		if screen := a.screen(t); strings.Contains(screen, loser.prompt) || strings.Count(screen, winner.prompt) != 1 {
			t.Fatalf("the agent's screen, want the %s prompt once and not the %s one:\n%s", winner.role, loser.role, screen)
		}
	})
	t.Run("waiting", func(t *testing.T) {
		t.Parallel()
		a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "500ms", "--stream", "200ms")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		wait := append([]string{"--wait-slot"}, quickWait...)
		analyst := startSend(t, ctx, a, "analyst", "ALPHA task for the analyst", wait...)
		time.Sleep(200 * time.Millisecond)
		tester := startSend(t, ctx, a, "tester", "BETA task for the tester", wait...)
		for _, s := range []*started{analyst, tester} {
			if code := <-s.done; code != exitOK || s.stdout.String() != s.prompt+"\n" {
				t.Fatalf("the %s send: exit %d, stdout %q\n%s", s.role, code, s.stdout.String(), s.stderr.String())
			}
		}
		screen := a.screen(t)
		if strings.Count(screen, analyst.prompt) != 1 || strings.Count(screen, tester.prompt) != 1 {
			t.Fatalf("want each prompt once on the agent's screen:\n%s", screen)
		}
	})
}

// statusOf runs `status` on the agent's pane (with more flags: --server)
// and decodes it.
func statusOf(t *testing.T, a *agent, more ...string) (st struct {
	Status   string             `json:"status"`
	TimedOut *panelock.TimedOut `json:"timed_out"`
	Dispatch *panelock.Holder   `json:"dispatch"`
	Note     string             `json:"note"`
}) {
	t.Helper()
	stdout, stderr, code := cli(t, "", append([]string{"status", "--socket", a.srv.Socket, "--target", a.pane.Target()}, more...)...)
	if err := json.Unmarshal([]byte(stdout), &st); code != exitOK || err != nil {
		t.Fatalf("status: exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	return st
}

// watchBoard starts the board (watch without --target, piped: a JSON line
// a row) on a's tmux server every 200 ms until ctx ends, and returns the
// command to wait for, its rows and what it says on stderr.
func watchBoard(ctx context.Context, t *testing.T, a *agent) (*exec.Cmd, io.Reader, *bytes.Buffer) {
	t.Helper()
	cmd := cliCmd(ctx, "watch", "--socket", a.srv.Socket, "--interval", "200ms")
	notes := &bytes.Buffer{}
	cmd.Stderr = notes
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, out, notes
}

// boardNote runs the board (watch without --target, piped) until it shows
// a note for the agent's pane, and returns it (20 s at most).
func boardNote(t *testing.T, a *agent) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd, out, _ := watchBoard(ctx, t, a)
	defer cmd.Wait()
	defer cancel()
	dec := json.NewDecoder(out)
	for {
		var row boardRow
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("the board ended without a note for pane %s: %v", a.pane.Target(), err)
		}
		if row.Pane == a.pane.Target() && row.Note != "" {
			return row.Note
		}
	}
}

// The scenario: a dispatch times out while the agent still works,
// and the orchestrator sends the next prompt. It is not pasted into the
// busy agent: with a short --busy-wait it ends with exit 8 saying the agent
// still works on the timed-out dispatch; with the default wait it waits
// until the agent is done, archives the late answer as stale and returns
// its own answer.
func TestNoPasteIntoABusyAgentOnRealTmux(t *testing.T) {
	t.Parallel()
	gate := gateFile(t)
	a := startRelAgent(t, "--echo", "--startup", "300ms", "--work", "300ms", "--stream", "200ms", "--work-until", gate)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	_, stderr, code := cli(t, "", a.sendAs("analyst", "FIRST task alpha", "--poll", "250ms", "--idle-grace", "3s", "--timeout", "3s")...)
	if code != exitTimeout || !strings.Contains(stderr, "marked busy") {
		t.Fatalf("first send: exit %d, want 6 (timeout) and the pane marked busy\n%s", code, stderr)
	}
	st := statusOf(t, a)
	if st.TimedOut == nil || st.TimedOut.Role != "analyst" || st.TimedOut.PromptHead != "FIRST task alpha" ||
		!strings.Contains(st.Note, "still working on the timed-out dispatch of role analyst") {
		t.Fatalf("status after the timeout: %+v", st)
	}

	if note := boardNote(t, a); !strings.Contains(note, "still working on the timed-out dispatch of role analyst") {
		t.Fatalf("the board's note for the pane: %q", note)
	}
	// Through a service, status says the same of the pane's dispatches.
	dir, sock := serveDirs(t)
	startServe(t, dir, sock)
	if rst := statusOf(t, a, "--server", "unix:"+sock); rst.TimedOut == nil || *rst.TimedOut != *st.TimedOut || rst.Note != st.Note {
		t.Fatalf("status through the service after the timeout: %+v, want the local %+v", rst, st)
	}

	_, stderr, code = cli(t, "", a.sendAs("analyst", "SECOND task beta", "--poll", "250ms", "--busy-wait", "1s")...)
	if code != exitBusy || !strings.Contains(stderr, "the agent is busy") || !strings.Contains(stderr, "since") ||
		!strings.Contains(stderr, "still working on the timed-out dispatch of role analyst") ||
		!strings.Contains(stderr, "FIRST task alpha") || !strings.Contains(stderr, "nothing was sent") {
		t.Fatalf("second send: exit %d, want 8 (agent busy) naming the timed-out dispatch\n%s", code, stderr)
	}
	if strings.Contains(a.screen(t), "SECOND task beta") {
		t.Fatalf("the second prompt reached the busy agent:\n%s", a.screen(t))
	}

	third := startSend(t, ctx, a, "analyst", "THIRD task gamma", quickWait...)
	waitOutput(t, &third.stderr, "waiting for a ready prompt before sending")
	openGate(t, gate) // the agent ends the first turn, late
	if code := <-third.done; code != exitOK || third.stdout.String() != "THIRD task gamma\n" {
		t.Fatalf("third send: exit %d, stdout %q, want its own answer\n%s", code, third.stdout.String(), third.stderr.String())
	}
	if !strings.Contains(third.stderr.String(), "the agent finished the timed-out dispatch of role analyst") {
		t.Errorf("the third send does not say the timed-out dispatch is over:\n%s", third.stderr.String())
	}
	stale, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.stale.md"))
	if len(stale) != 1 {
		t.Fatalf("archived stale answers %v, want the first prompt's late one", stale)
	}
	if b, _ := os.ReadFile(stale[0]); !strings.HasSuffix(string(b), "\nFIRST task alpha\n") {
		t.Fatalf("the stale archive holds %q", b)
	}
	if st := statusOf(t, a); st.TimedOut != nil || st.Note != "" {
		t.Fatalf("status once the agent was seen ready: %+v, want no timed-out dispatch", st)
	}
}

// send --state is killed mid-wait, the tmux server restarted with a new
// agent in a pane of the same name: resume ends at once with a terminal
// error (exit 4) saying what changed, and sends nothing to the new agent.
func TestResumeOnARestartedServerIsATerminalError(t *testing.T) {
	t.Parallel()
	gate := gateFile(t)
	simArgs := []string{"--echo", "--startup", "300ms", "--work", "300ms", "--stream", "200ms", "--work-until", gate}
	a := startRelAgent(t, simArgs...)
	state := filepath.Join(t.TempDir(), "dispatch.json")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The target as a person types it: the session's name.
	args := []string{"send", "--socket", a.srv.Socket, "--target", "agent", "--role", "analyst", "--workdir", a.workdir, "--state", state}
	send := cliCmd(ctx, append(append(args, quickWait...), "--prompt", "the prompt before the restart")...)
	var errb testkit.Buffer
	send.Stderr = &errb
	if err := send.Start(); err != nil {
		t.Fatal(err)
	}
	st := waitState(t, state, "the agent working", working)
	if p := st.Wait.Pane; p == nil || p.Pane != a.pane.Target() || p.PID <= 0 || p.Started == "" || p.ServerPID <= 0 {
		t.Fatalf("the state file's pane: %+v, want the pane %s with its process and server", p, a.pane.Target())
	}
	if err := send.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	send.Wait()

	if err := a.srv.Kill(context.Background()); err != nil {
		t.Fatal(err)
	}
	// A new server can listen once the old one has gone; its socket file
	// may stay behind.
	for deadline := time.Now().Add(10 * time.Second); !serverGone(a.srv.Socket); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the old tmux server did not go away")
		}
	}
	os.Remove(st.Wait.Pane.Server)
	fresh := startRelAgentOn(t, tmuxdriver.Server{Socket: a.srv.Socket}, t.TempDir(), simArgs...)
	start := time.Now()
	_, stderr, code := cli(t, "", "resume", "--state", state)
	if code != exitTerminal || !strings.Contains(stderr, "the pane changed") || !strings.Contains(stderr, "was restarted") {
		t.Fatalf("resume: exit %d, want 4 saying the server was restarted\n%s", code, stderr)
	}
	t.Logf("resume said:\n%s", stderr)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("resume took %v, want it to end at once", took)
	}
	if strings.Contains(fresh.screen(t), "the prompt before the restart") {
		t.Fatal("the prompt reached the new agent")
	}
	if st := waitState(t, state, "the outcome", func(st *dispatchstate.State) bool { return st.Finished != nil }); st.Finished.Exit != exitTerminal {
		t.Fatalf("recorded outcome %+v", st.Finished)
	}
}

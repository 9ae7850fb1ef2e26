package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// The end-to-end tests run this test binary as the real command: with
// HANDOFF_FSM_TEST_MAIN=1 it is handoff-fsm (main, signals and exit codes
// included), so `demo` finds itself with os.Executable and runs its
// sim-agent in a real tmux pane, exactly as the built binary does.
const asCLI = "HANDOFF_FSM_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asCLI) == "1" {
		main()
	}
	os.Exit(m.Run())
}

// requireTmux: testkit.RequireTmux.
func requireTmux(t testing.TB) { t.Helper(); testkit.RequireTmux(t) }

// cliCmd prepares this binary as handoff-fsm with args.
func cliCmd(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), asCLI+"=1")
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// cli runs handoff-fsm with args and returns its stdout, stderr and exit
// code. Nothing may take more than two minutes.
func cli(t testing.TB, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cliCmd(ctx, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Stdin = strings.NewReader(stdin)
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("run handoff-fsm %s: %v", strings.Join(args, " "), err)
	}
	return out.String(), errb.String(), code
}

// agent is a simulated agent in a pane of a private tmux server.
type agent struct {
	srv     tmuxdriver.Server
	pane    *tmuxdriver.Pane
	workdir string
}

// startAgent starts a private tmux server (killed when the test ends)
// whose pane runs the sim-agent with simArgs. A second window keeps the
// server alive when the agent's pane is killed.
func startAgent(t testing.TB, simArgs ...string) *agent {
	t.Helper()
	requireTmux(t)
	workdir := t.TempDir()
	cmd := "exec env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) + " sim-agent --cwd " + handoff.ShellQuote(workdir)
	for _, a := range simArgs {
		cmd += " " + handoff.ShellQuote(a)
	}
	// A second window keeps the server up when the agent's pane is killed.
	priv, err := tmuxdriver.StartPrivate(context.Background(), tmuxdriver.PrivateOptions{Prefix: "handoff-test",
		Session: "agent", Width: 110, Height: 32, Dir: workdir, Command: cmd, KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := priv.Close(context.Background()); err != nil {
			t.Errorf("kill private tmux server: %v", err)
		}
	})
	srv := priv.Server
	out := priv.Pane
	pane, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: out, Classifier: codex.Provider()})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{srv: srv, pane: pane, workdir: workdir}
	a.waitStatus(t, "the agent's prompt", func(st handoff.Status) bool { return st.Quiet() })
	return a
}

// waitStatus polls the pane until ok(status) holds (10 s at most).
func (a *agent) waitStatus(t testing.TB, what string, ok func(handoff.Status) bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		snap, err := a.pane.Observe(context.Background())
		if err == nil && ok(snap.Classification.Status) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s (last: %+v, %v)", what, snap.Classification, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// sendArgs are the flags that send a prompt to this agent.
func (a *agent) sendArgs(extra ...string) []string {
	return append([]string{"send", "--socket", a.srv.Socket, "--target", a.pane.Target(),
		"--role", "analyst", "--workdir", a.workdir}, extra...)
}

// decodeReport parses the replay-format result object send --json prints.
func decodeReport(t *testing.T, stdout string) trace.Report {
	t.Helper()
	var rep trace.Report
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("--json output is not a result object: %v\n%s", err, stdout)
	}
	return rep
}

// replaysAsLive runs `handoff-fsm replay` on the recording rec, as a bug
// report's reader would, fails the test unless it ends as the live session
// did (outcome, error, source and content), and returns its report.
func replaysAsLive(t *testing.T, rec string, live trace.Report) trace.Report {
	t.Helper()
	out, stderr, code := cli(t, "", "replay", rec)
	if code != exitOK {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	replayed := decodeReport(t, out)
	if replayed.Outcome != live.Outcome || replayed.Error != live.Error || replayed.Source != live.Source || replayed.Content != live.Content {
		b, _ := os.ReadFile(rec)
		t.Fatalf("replay differs from the live session\nlive:     %+v\nreplayed: %+v\ntrace:\n%s", live, replayed, b)
	}
	return replayed
}

// replayFile replays a recorded trace through the engine, as
// `handoff-fsm replay` does.
func replayFile(t *testing.T, path string) trace.Report {
	t.Helper()
	tr, err := trace.ReadFile(path)
	if err != nil {
		t.Fatalf("the recording is not a valid trace: %v", err)
	}
	rep, err := trace.Replay(context.Background(), tr, trace.ReplayOptions{Config: tr.WaitConfig()})
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return rep
}

// serverGone reports whether no tmux server answers on socket.
func serverGone(socket string) bool {
	_, err := tmuxdriver.Server{Socket: socket}.Run(context.Background(), nil, "list-sessions")
	return errors.Is(err, tmuxdriver.ErrServerNotRunning)
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

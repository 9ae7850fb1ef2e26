package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// startRelAgent is startAgent on a private tmux server whose socket is
// named hfrel-…, killed when the test ends, like everything it starts.
func startRelAgent(t *testing.T, simArgs ...string) *agent {
	t.Helper()
	requireTmux(t)
	srv := tmuxdriver.Server{Socket: fmt.Sprintf("hfrel-%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)}
	return startRelAgentOn(t, srv, t.TempDir(), simArgs...)
}

// startRelAgentOn is startRelAgent on the server srv (which must not run
// yet), with workdir as the agent's folder.
func startRelAgentOn(t *testing.T, srv tmuxdriver.Server, workdir string, simArgs ...string) *agent {
	t.Helper()
	cmd := "exec env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) + " sim-agent --cwd " + handoff.ShellQuote(workdir)
	for _, a := range simArgs {
		cmd += " " + handoff.ShellQuote(a)
	}
	ctx := context.Background()
	out, err := srv.Run(ctx, nil, "new-session", "-d", "-P", "-F", "#{pane_id}", "-s", "agent", "-x", "110", "-y", "32",
		"-c", workdir, cmd, ";", "new-window", "-d", "-t", "agent:", "sleep 3600")
	if err != nil {
		t.Fatalf("start private tmux server: %v", err)
	}
	sock, _ := srv.Run(ctx, nil, "display-message", "-p", "-t", "agent:1", "#{socket_path}")
	t.Cleanup(func() {
		if err := srv.Kill(context.Background()); err != nil {
			t.Errorf("kill private tmux server: %v", err)
		}
		os.Remove(strings.TrimSpace(sock))
	})
	pane, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: strings.TrimSpace(out), Classifier: codex.Provider()})
	if err != nil {
		t.Fatal(err)
	}
	a := &agent{srv: srv, pane: pane, workdir: workdir}
	a.waitStatus(t, "the agent's prompt", func(st handoff.Status) bool { return st.Quiet() })
	return a
}

// waitOutput waits until the buffer holds want (20 s at most).
func waitOutput(t *testing.T, b *testkit.Buffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(b.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %q in:\n%s", want, b.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

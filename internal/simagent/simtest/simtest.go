// Package simtest runs simulated agents (package simagent) in tmux panes
// for the tests of the packages above the engine (serve, mcpserver): a
// private tmux server, ended with the test, whose panes each run the test
// binary itself as a simulated agent, so no other binary is built. A test
// binary that uses it calls Main from its TestMain.
package simtest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// env, when set, makes a test binary a simulated agent with the
// simagent.Options it holds (JSON): what Start runs in its panes.
const env = "HANDOFF_SIMTEST_AGENT"

// Main runs the tests of m, or, in a pane Start made, the simulated agent
// (and exits). Call it as the whole of TestMain.
func Main(m *testing.M) {
	simagent.RunIfEnv(env)
	os.Exit(m.Run())
}

// Command is the shell command that runs this test binary as a simulated
// agent with o.
func Command(o simagent.Options) string { return simagent.EnvCommand(env, o) }

// Quick is an agent that answers after a short startup and work, echoing
// the prompt.
func Quick() simagent.Options {
	return simagent.Options{Echo: true, Startup: 200 * time.Millisecond, Work: 500 * time.Millisecond, Stream: 200 * time.Millisecond}
}

// Agents is a private tmux server (ended with the test) whose panes each
// run a simulated agent, all in one work folder. A zero Priv is no server
// (a test that needs only the work folder).
type Agents struct {
	Priv    *tmuxdriver.Private
	Panes   []string // the panes' ids, %N
	Workdir string
}

// Start starts n simulated agents with o in one private tmux server
// (socket names start with prefix), in a fresh work folder, and waits for
// their prompts. Without tmux the test is skipped (failed in CI).
func Start(t testing.TB, prefix string, n int, o simagent.Options) *Agents {
	t.Helper()
	each := make([]simagent.Options, n)
	for i := range each {
		each[i] = o
	}
	return StartEach(t, prefix, each...)
}

// StartEach is Start with one agent per option set, each in its own window
// (the first in the session's first), in that order.
func StartEach(t testing.TB, prefix string, agents ...simagent.Options) *Agents {
	t.Helper()
	work := t.TempDir()
	cmds := make([]string, len(agents))
	for i := range agents {
		agents[i].Cwd = work
		cmds[i] = Command(agents[i])
	}
	priv, panes := StartCommands(t, prefix, work, cmds...)
	a := &Agents{Priv: priv, Panes: panes, Workdir: work}
	for _, p := range a.Panes {
		a.WaitQuiet(t, p)
	}
	return a
}

// StartCommands starts a private tmux server (socket names start with
// prefix) whose session runs each shell command in a window of its own, in
// that order, in dir, and returns it with the panes' ids; it waits for
// none of them. The server, and every process in it, ends with the test.
// Without tmux the test is skipped (failed in CI).
func StartCommands(t testing.TB, prefix, dir string, commands ...string) (*tmuxdriver.Private, []string) {
	t.Helper()
	testkit.RequireTmux(t)
	ctx := context.Background()
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: prefix, Session: "agents",
		Width: 110, Height: 32, Dir: dir, Command: commands[0], KeepAlive: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := priv.Close(context.Background()); err != nil {
			t.Errorf("stop the private tmux server: %v", err)
		}
	})
	panes := []string{priv.Pane}
	for _, c := range commands[1:] {
		id, err := priv.NewWindow(ctx, dir, c)
		if err != nil {
			t.Fatal(err)
		}
		panes = append(panes, id)
	}
	return priv, panes
}

// WaitQuiet waits until the agent in pane shows its prompt.
func (a *Agents) WaitQuiet(t testing.TB, pane string) {
	t.Helper()
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: a.Priv.Server, Target: pane, Classifier: codex.Provider()})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the agent in "+pane+" showing its prompt", func() bool {
		st, err := p.Status(context.Background())
		return err == nil && st.Quiet()
	})
}

// Screen is what pane shows, with its scrollback.
func (a *Agents) Screen(t testing.TB, pane string) string {
	t.Helper()
	out, err := a.Priv.Run(context.Background(), nil, "capture-pane", "-p", "-J", "-S", "-2000", "-t", pane)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

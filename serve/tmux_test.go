package serve_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Every look of every dispatch on a tmux server goes over one shared
// control client: while three dispatches wait the server has one control
// client, and no look starts a tmux process (a tmux on PATH that logs each
// start shows no capture-pane among them).
func TestDispatchesShareOneControlClientAndLooksStartNoProcess(t *testing.T) {
	requireTmux(t)
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "starts.log")
	wrapper := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

	a := startAgents(t, 3, working(3*time.Second))
	s := startService(t, "", true)
	ctx := context.Background()
	var ids []string
	for i, p := range a.Panes {
		v := s.submit(t, a.body(p, []string{"analyst", "programmer", "tester"}[i], "shared "+p))
		ids = append(ids, v.ID)
	}
	waitFor(t, "every agent working", func() bool {
		for _, id := range ids {
			if v, _ := s.client.Get(ctx, id, 0); v.State != "Working" {
				return false
			}
		}
		return true
	})
	if err := os.WriteFile(log, nil, 0o644); err != nil { // from here on: the looks
		t.Fatal(err)
	}
	out, err := a.Priv.Run(ctx, nil, "list-clients", "-F", "#{client_control_mode}")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, "1"); n != 1 {
		t.Fatalf("%d control clients while three dispatches wait, want 1", n)
	}
	for i, id := range ids {
		if v := s.final(t, id); v.Outcome != "done" || content(v) != "shared "+a.Panes[i]+"\n" {
			t.Fatalf("%s: %+v %q", id, v, content(v))
		}
	}
	starts, _ := os.ReadFile(log)
	for _, line := range strings.Split(string(starts), "\n") {
		if strings.Contains(line, "capture-pane") || strings.Contains(line, "display-message") {
			t.Fatalf("a look started a tmux process: %s\nall starts while waiting:\n%s", line, starts)
		}
	}
	if polls := s.Dispatches(serve.Filter{}); polls[0].Polls < 2 {
		t.Fatalf("the dispatches hardly looked: %+v", polls)
	}
}

// A tmux server that dies fails its own dispatches at once (a terminal
// error, exit 4, long before their next poll), and the dispatches on
// another server go on to their answers.
func TestADyingTmuxServerFailsOnlyItsDispatches(t *testing.T) {
	t.Parallel()
	doomed := startAgents(t, 2, working(5*time.Minute))
	// The other server's agent asks for approval before it answers; the
	// test approves once the first server is dead.
	asks := simtest.Quick()
	asks.Scenario = simagent.ScenarioAsks
	other := startAgents(t, 1, asks)
	s := startService(t, "", true)
	ctx := context.Background()
	lazy := func(b serve.SubmitBody) serve.SubmitBody {
		cfg := handoff.DefaultConfig()
		cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = time.Minute, 2*time.Minute, 10*time.Minute
		b.Config = &cfg
		return b
	}
	var doomedIDs []string
	for i, p := range doomed.Panes {
		v := s.submit(t, lazy(doomed.body(p, []string{"analyst", "tester"}[i], "never finished")))
		doomedIDs = append(doomedIDs, v.ID)
	}
	survivor := s.submit(t, lazy(other.body(other.Panes[0], "analyst", "still here")))
	// With a minute's poll the wait sees the agent working at its next
	// poll, a minute away: wait until every wait has started.
	waitFor(t, "every wait started", func() bool {
		for _, id := range append(doomedIDs, survivor.ID) {
			if v, _ := s.client.Get(ctx, id, 0); v.State != "AwaitingStart" && v.State != "Working" {
				return false
			}
		}
		return true
	})
	killed := time.Now()
	if err := doomed.Priv.Kill(ctx); err != nil {
		t.Fatal(err)
	}
	for _, id := range doomedIDs {
		v := s.final(t, id)
		if v.Outcome != "failed" || v.Report.Error != "terminal_error" || *v.Exit != 4 {
			t.Fatalf("a dispatch on the dead server: %+v", v)
		}
	}
	// The next poll was a minute away: only the wake can have ended them.
	if d := time.Since(killed); d > 30*time.Second {
		t.Fatalf("the dead server's dispatches ended %v after it died", d)
	}
	if v, _ := s.client.Get(ctx, survivor.ID, 0); v.Final {
		t.Fatalf("the other server's dispatch ended with the first server: %+v", v)
	}
	approve(t, other, other.Panes[0])
	if v := s.final(t, survivor.ID); v.Outcome != "done" || content(v) != "still here\n" {
		t.Fatalf("the other server's dispatch: %+v %q", v, content(v))
	}
	if _, err := (tmuxdriver.Server{Socket: other.Priv.Socket}).Run(ctx, nil, "list-sessions"); err != nil {
		t.Fatalf("the other server: %v", err)
	}
}

// approve answers y to the agent in pane once it shows its approval menu.
func approve(t testing.TB, a *agents, pane string) {
	t.Helper()
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: a.Priv.Server, Target: pane, Classifier: codex.Provider()})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the approval menu", func() bool {
		st, err := p.Status(context.Background())
		return err == nil && st == handoff.StatusWaitingUserAnswer
	})
	if err := p.SendKeys(context.Background(), "y"); err != nil {
		t.Fatal(err)
	}
}

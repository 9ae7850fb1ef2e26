package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Demo settings: tight enough that every scenario ends well under a minute.
const (
	demoPoll    = 500 * time.Millisecond
	demoGrace   = 5 * time.Second
	demoTimeout = time.Minute
	demoPrompt  = "Explain in two sentences what a startup guard is for."
)

// demoStory says what each scenario shows and how it must end.
func demoStory(s simagent.Scenario) (shows, expect string) {
	switch s {
	case simagent.ScenarioSlowStart:
		return "the agent keeps the previous turn's idle screen for 3s after Enter (the guard holds: the startup window is the 5s idle grace), then works and writes the response file",
			"done from the response file"
	case simagent.ScenarioNeverWrites:
		return "the agent answers on screen only and never writes the response file",
			"failed: no_response_file after the idle grace (strict); with --strict=false the on-screen answer is the fallback"
	case simagent.ScenarioCrash:
		return "the agent exits in the middle of its turn",
			"failed: terminal_error within one poll of the crash"
	}
	return "the agent keeps the previous turn's idle screen for 1.5s after Enter (the startup race), works, writes the response file through the heredoc and returns to its prompt",
		"done from the response file"
}

// runDemo starts a private tmux server, runs the simulated agent in a pane,
// dispatches a prompt with the engine, prints the response and cleans up
// everything it started — on Ctrl-C too.
func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("demo", "usage: handoff-fsm demo [--scenario normal|slow-start|never-writes|crash] [--keep] [flags]\n"+
		"\nRuns a simulated Codex-like agent in a private tmux server, dispatches a prompt to it with\n"+
		"the state machine (transitions on stderr), prints the response, and cleans up. Needs tmux.\n"+
		"Exit codes as for send (0 done from the file, 4 terminal error, 5 no response file, ...).\n"+
		"\nflags:\n", stderr)
	scenario := cmd.String("scenario", string(simagent.ScenarioNormal), "normal, slow-start, never-writes or crash")
	keep := cmd.Bool("keep", false, "keep the temporary workdir (response file archive, final screen in screen.txt)")
	prompt := cmd.String("prompt", demoPrompt, "the prompt to dispatch")
	demoDef := handoff.DefaultConfig()
	demoDef.Poll, demoDef.IdleGrace, demoDef.ResponseTimeout = demoPoll, demoGrace, demoTimeout
	cf := configflag.Add(cmd.FlagSet, demoDef, " (demo default; send's are the spec's)")
	asJSON := cmd.Bool("json", false, "print the result object of 'handoff-fsm replay' instead of the response")
	record := cmd.String("record", "", "write the observed session as a replay trace to this file")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	sc := simagent.Scenario(*scenario)
	if _, err := simagent.New(simagent.Options{Scenario: sc, Cwd: "/"}); err != nil {
		return cmd.usageErr("%v", err)
	}
	cfg, err := cf.Config(demoDef)
	if err != nil {
		return cmd.usageErr("%v", err)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return cmd.fail(exitFailure, "tmux is not installed (the demo runs its agent in a private tmux server): install tmux 3.3 or newer")
	}
	exe, err := os.Executable()
	if err != nil {
		return cmd.fail(exitFailure, "cannot find this program to run the simulated agent: %v", err)
	}

	say := func(format string, a ...any) { fmt.Fprintf(stderr, "demo: "+format+"\n", a...) }
	workdir, err := os.MkdirTemp("", "handoff-demo-")
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	if resolved, err := filepath.EvalSymlinks(workdir); err == nil {
		workdir = resolved
	}
	ds := &demoSession{workdir: workdir, keep: *keep, say: say}
	// Cleanup runs on every path, Ctrl-C included (ctx is cancelled, the
	// wait returns, and this runs with a fresh context).
	defer ds.close()

	shows, expect := demoStory(sc)
	say("scenario %s: %s", sc, shows)
	say("expected outcome (the spec's): %s", expect)
	if err := ds.start(ctx, exe, sc); err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	say("demo settings: poll %v, idle grace %v, response timeout %v, strict %v (send's defaults: poll 2s, idle grace 30s, timeout 30m)",
		cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout, cfg.Strict())
	if err := awaitPrompt(ctx, ds.pane); err != nil {
		return cmd.fail(exitFailure, "the simulated agent did not come up: %v", err)
	}
	say("the agent is at its prompt (its screen shows a finished previous turn); dispatching: %q", *prompt)

	rep, code := ds.dispatch(ctx, cfg, *prompt, *record, *asJSON, stdout, stderr)
	if rep.Outcome == "done" || rep.Outcome == "failed" {
		got := rep.Outcome + " (" + rep.Source + rep.Error + ")"
		if want := demoWant(sc, cfg.Strict()); got == want {
			say("outcome: %s — as the spec prescribes for this scenario", got)
		} else {
			say("UNEXPECTED outcome: %s (the spec prescribes %s for this scenario)", got, want)
		}
	}
	return code
}

// dispatch sends prompt to the demo's agent as send sends one, on the
// engine in this process, narrating every status change too (the
// startup race's stale screen shows); rep is its ending when the table
// decided one.
func (s *demoSession) dispatch(ctx context.Context, cfg handoff.Config, prompt, record string, asJSON bool, stdout, stderr io.Writer) (rep trace.Report, code int) {
	out := newProgress(stderr)
	out.statuses = true
	l := &local{out: out, logger: engineLogger(out, nil), pane: s.pane}
	body := serve.SubmitBody{Pane: dispatchstate.Pane{Target: s.pane.Target()}, Role: "analyst", Workdir: s.workdir, Prompt: prompt, Config: &cfg}
	final, code := l.dispatch(ctx, sendRun{cmd: "demo", target: body.Target, out: out, asJSON: asJSON}, body, record, true, stdout)
	if final != nil {
		rep = final.Finished().Report
	}
	return rep, code
}

// demoSession is what the demo starts: a private tmux server, the
// simulated agent's pane in it, and a work folder.
type demoSession struct {
	priv    *tmuxdriver.Private
	pane    *tmuxdriver.Pane
	workdir string
	keep    bool // keep the work folder, and the final screen in it
	say     func(format string, a ...any)
}

// start runs the simulated agent (this program, exe) in scenario sc in a
// private tmux server.
func (s *demoSession) start(ctx context.Context, exe string, sc simagent.Scenario) error {
	agentCmd := "exec " + handoff.ShellQuote(exe) + " sim-agent --previous-turn --scenario " + handoff.ShellQuote(string(sc)) +
		" --cwd " + handoff.ShellQuote(s.workdir)
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-demo", Session: "demo",
		Width: 110, Height: 32, Dir: s.workdir, Command: agentCmd, RemainOnExit: true})
	if err != nil {
		return err
	}
	s.priv = priv
	if s.pane, err = tmuxdriver.New(tmuxdriver.Options{Server: priv.Server, Target: priv.Pane, Classifier: codex.Provider()}); err != nil {
		return err
	}
	s.say("private tmux server -L %s, simulated agent in pane %s, workdir %s", priv.Socket, s.pane.Target(), s.workdir)
	s.say("watch it live from another terminal: tmux -L %s attach -t demo", priv.Socket)
	return nil
}

// close stops the private tmux server (keeping the final screen with
// --keep) and removes the work folder unless kept.
func (s *demoSession) close() {
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.priv == nil {
		_ = os.RemoveAll(s.workdir)
		return
	}
	if s.keep && s.pane != nil {
		if out, err := s.priv.Run(cctx, nil, "capture-pane", "-p", "-J", "-t", s.pane.Target()); err == nil {
			_ = os.WriteFile(filepath.Join(s.workdir, "screen.txt"), []byte(out), 0o644)
		}
	}
	if err := s.priv.Close(cctx); err != nil {
		s.say("could not stop the private tmux server: %v", err)
	}
	if s.keep {
		s.say("kept the workdir %s", s.workdir)
	} else {
		_ = os.RemoveAll(s.workdir)
	}
	s.say("cleaned up: stopped the private tmux server%s", map[bool]string{true: "", false: " and removed the workdir"}[s.keep])
}

// demoWant is the outcome the spec prescribes for a scenario, as
// "<outcome> (<source or error>)".
func demoWant(s simagent.Scenario, strict bool) string {
	switch {
	case s == simagent.ScenarioCrash:
		return "failed (terminal_error)"
	case s == simagent.ScenarioNeverWrites && strict:
		return "failed (no_response_file)"
	case s == simagent.ScenarioNeverWrites:
		return "done (fallback)"
	}
	return "done (file)"
}

// awaitPrompt waits until the simulated agent shows its composer, so the
// prompt is not pasted before it listens for bracketed pastes.
func awaitPrompt(ctx context.Context, pane *tmuxdriver.Pane) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		snap, err := pane.Observe(ctx)
		if err == nil && snap.Classification.Status.Quiet() && strings.Contains(snap.Capture, simagent.Placeholder) {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return err
			}
			return fmt.Errorf("%w (last status %q)", ctx.Err(), snap.Classification.Status)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

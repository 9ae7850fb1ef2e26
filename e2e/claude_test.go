package e2e

import (
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// newClaudeRigAt starts a fake model and Claude Code with the work folder
// and HOME under root (t.TempDir() for a fresh one); opts sets the rest
// (permissions, retries, size; zero values are realclaude's defaults).
// Everything is ended in t.Cleanup.
func newClaudeRigAt(t *testing.T, opts realclaude.Options, root string) *rig {
	t.Helper()
	return startRig(t, realclaude.CLI, fakemodel.AnthropicMessages{}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realclaude.Start(ctx, opts) })
}

// turnDone matches the line that ends a Claude Code turn: "✻ Brewed for 3s".
var turnDone = regexp.MustCompile(`✻ \S+ for (\d+m )?\d+s`)

// claudeFinished reports a turn that ended after last (text of its final
// reply): a "✻ … for Ns" line follows it and nothing offers to interrupt.
func claudeFinished(plain, last string) bool {
	i := strings.LastIndex(plain, last)
	return i >= 0 && turnDone.MatchString(plain[i:]) && !strings.Contains(plain, "esc to interrupt")
}

// claudeConfig is e2eConfig with a longer grace (and so startup window):
// on a loaded two-core machine Claude Code takes up to about five seconds
// to show that it took a prompt (the prompt sits in the composer until
// then), measured while other test suites ran.
func claudeConfig(strict bool) handoff.Config {
	cfg := e2eConfig(strict)
	cfg.IdleGrace = 6 * time.Second
	return cfg
}

// Claude Code's hooks fire in this offline setup: Stop with the last
// message when a turn ends, StopFailure with the error when it ends on an
// API error, UserPromptSubmit and PermissionRequest. Registered as
// `handoff-fsm hook --dir DIR`, they leave marker files (package hookmark).
// The test also measures when the Stop marker appears against the screen.
func TestRealClaudeHooksWriteMarkers(t *testing.T) {
	parallel(t)
	realclaude.CLI.Require(t) // skip before building when Claude Code is missing
	bin := buildCommand(t)
	events := filepath.Join(t.TempDir(), "events")
	hook := handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)
	r := newClaudeRigAt(t, realclaude.Options{Hooks: map[string]string{
		"Stop": hook, "StopFailure": hook, "UserPromptSubmit": hook, "PermissionRequest": hook,
	}}, t.TempDir())
	r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("Final words."))
	d := r.send("tester", "Test it.", claudeConfig(true), nil)
	if d.err != nil || d.res.Content != answer+"\n" {
		r.fail("dispatch: %q, %v", d.res.Content, d.err)
	}
	waitMarker := func(ev hookmark.Event) hookmark.Marker {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			if m, ok, err := hookmark.Read(events, ev); err != nil {
				t.Fatal(err)
			} else if ok {
				return m
			}
			time.Sleep(20 * time.Millisecond)
		}
		evs, _ := hookmark.Events(events)
		r.fail("no %s marker; events so far: %+v", ev, evs)
		return hookmark.Marker{}
	}
	stopped := waitMarker(hookmark.Stopped)
	if stopped.LastMessage != "Final words." || stopped.Hook != "Stop" || stopped.Session == "" {
		t.Fatalf("stop marker %+v", stopped)
	}
	if sub := waitMarker(hookmark.Submitted); !strings.HasPrefix(sub.Detail, "Test it.") {
		t.Fatalf("submit marker %+v", sub)
	}
	// When did the Stop marker come, against the first quiet poll after
	// the agent was seen working, and the engine's decision?
	var firstQuiet time.Time
	working := false
	for _, p := range d.polls {
		if !p.Status.Quiet() {
			working = true
		} else if working && firstQuiet.IsZero() {
			firstQuiet = p.At
		}
	}
	if !firstQuiet.IsZero() {
		metric(t, "claude_stop_hook_after_first_quiet_poll(negative: before)", stopped.At.Sub(firstQuiet))
	}
	metric(t, "claude_stop_hook_after_file_written", stopped.At.Sub(d.fileAt))
	metric(t, "claude_done_after_stop_hook(negative: before)", d.doneAt().Sub(stopped.At))

	// An API error: StopFailure, with the error the screen shows.
	r.model.Script(fakemodel.ServerError())
	if d := r.send("tester", "Test again.", claudeConfig(true), nil); !errors.Is(d.err, handoff.ErrTerminalError) {
		r.fail("got %v, want a terminal error", d.err)
	}
	failed := waitMarker(hookmark.Failed)
	if failed.Error != "server_error" || !strings.HasPrefix(failed.LastMessage, "API Error: 500") {
		t.Fatalf("failure marker %+v", failed)
	}
	evs, err := hookmark.Events(events)
	if err != nil {
		t.Fatal(err)
	}
	var hooks []string
	for _, m := range evs {
		hooks = append(hooks, m.Hook)
	}
	t.Logf("hook calls in order: %v", hooks)
	if !slices.Equal(hooks, []string{"UserPromptSubmit", "Stop", "UserPromptSubmit", "StopFailure"}) {
		t.Fatalf("hook calls %v", hooks)
	}
}

// The shipped command with --provider claude: `handoff-fsm send` prints
// exactly what Claude Code wrote (exit 0), and an API error exits 4.
func TestRealClaudeSendCommand(t *testing.T) {
	parallel(t)
	realclaude.CLI.Require(t)
	bin := buildCommand(t)
	run := func(r *rig, args ...string) (stdout string, code int) {
		t.Helper()
		stdout, _, code = r.runSend(bin, append([]string{"--provider", "claude", "--idle-grace", "6s", "--timeout", "60s"}, args...)...)
		return stdout, code
	}
	t.Run("file", func(t *testing.T) {
		r := newClaudeRigAt(t, realclaude.Options{}, t.TempDir())
		r.model.Script(fakemodel.WriteResponse(answer).After(time.Second), fakemodel.Answer("I wrote the response file."))
		if stdout, code := run(r, "--role", "analyst", "--prompt", "Analyse the project."); code != 0 || stdout != answer+"\n" {
			r.fail("exit %d, stdout %q; want 0 and %q", code, stdout, answer+"\n")
		}
	})
	t.Run("api-error", func(t *testing.T) {
		r := newClaudeRigAt(t, realclaude.Options{}, t.TempDir())
		r.model.Script(fakemodel.Overloaded())
		if stdout, code := run(r, "--role", "analyst", "--prompt", "Analyse the project."); code != 4 || stdout != "" {
			r.fail("exit %d, stdout %q; want exit 4 (terminal error), nothing on stdout", code, stdout)
		}
	})
}

// Claude Code's Stop hook ends the wait (see hookEndsTheWait), with the stopped marker as the turn marker
// (what `send --hook-dir DIR` does).
func TestRealClaudeStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realclaude.CLI.Require(t)
	hookEndsTheWait(t, "Stop", func(hooks map[string]string) *rig {
		return newClaudeRigAt(t, realclaude.Options{Hooks: hooks}, t.TempDir())
	})
}

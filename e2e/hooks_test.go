package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// A CLI's end-of-turn hook, registered as `handoff-fsm hook --dir DIR`,
// reports the turn over, and the wait decides on it, not on the screen:
// the poll is a minute, there is no file watch, and the wait still ends
// within seconds of the turn. These tests show it with each CLI's hook.

// Codex's notify program (handoff-fsm hook) reports the turn complete.
func TestRealCodexNotifyHookEndsTheWait(t *testing.T) {
	parallel(t)
	realcodex.CLI.Require(t)
	cli := buildCommand(t)
	r := newRig(t, realcodex.Options{Notify: []string{cli, "hook"}})
	r.model.Script(fakemodel.WriteResponse(answer).In(r.workdir), fakemodel.Answer("I wrote the response file."))

	path, _ := handoff.ResponsePath(r.workdir, "analyst")
	if err := responsefile.EnsureDir(r.workdir); err != nil {
		t.Fatal(err)
	}
	w, err := responsefile.Watch(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	res, polls := r.waitOnHook(fsm.Wakeups{Turns: w.Turns()}, "Analyse the project.", answer+"\n")
	marker, err := os.ReadFile(responsefile.TurnMarker(path))
	if err != nil || !strings.Contains(string(marker), `"agent-turn-complete"`) {
		t.Fatalf("the hook's marker holds %q (%v)", marker, err)
	}
	t.Logf("done %v after dispatch, on the notify hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
}

// Claude Code's Stop hook, with the stopped marker as the turn marker
// (what `send --hook-dir DIR` does).
func TestRealClaudeStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realclaude.CLI.Require(t)
	hookEndsTheWait(t, "Stop", func(hooks map[string]string) *rig {
		return newClaudeRig(t, realclaude.Options{Hooks: hooks})
	})
}

// Gemini CLI's hooks fire in this offline setup: BeforeAgent when it takes
// a prompt, AfterAgent (with the turn's response) when a turn ends, and the
// wait decides on the AfterAgent marker.
func TestRealGeminiAfterAgentHookEndsTheWait(t *testing.T) {
	parallel(t)
	realgemini.CLI.Require(t)
	events := hookEndsTheWait(t, "AfterAgent", func(hooks map[string]string) *rig {
		return newGeminiRig(t, realgemini.Options{Hooks: hooks})
	}, "BeforeAgent")
	sub, ok, err := hookmark.Read(events, hookmark.Submitted)
	if err != nil || !ok || sub.Hook != "BeforeAgent" || !strings.HasPrefix(sub.Detail, "Analyse the project.") {
		t.Fatalf("submit marker %+v, %v, %v", sub, ok, err)
	}
}

// Qwen Code's Stop hook fires in this offline setup when a turn ends, and
// the wait decides on its marker.
func TestRealQwenStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realqwen.CLI.Require(t)
	hookEndsTheWait(t, "Stop", func(hooks map[string]string) *rig {
		return newQwenRig(t, realqwen.Options{Hooks: hooks})
	})
}

// hookEndsTheWait starts a CLI (start, given its hooks) whose stop hook and
// other hooks run `handoff-fsm hook --dir DIR`, waits for an answer on the
// stopped marker (waitOnStopMarker), and checks that stop wrote that
// marker with the turn's last message. It returns DIR.
func hookEndsTheWait(t *testing.T, stop string, start func(hooks map[string]string) *rig, others ...string) string {
	t.Helper()
	bin := buildCommand(t)
	events := t.TempDir()
	hooks := map[string]string{}
	for _, h := range append([]string{stop}, others...) {
		hooks[h] = handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)
	}
	r := start(hooks)
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))

	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the %s hook (%d polls)", res.Elapsed.Round(time.Millisecond), stop, len(polls))
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != stop || stopped.LastMessage != "Final words." || stopped.Session == "" {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
	return events
}

// waitOnStopMarker is waitOnHook with the hook's stopped marker in events
// as the turn marker (what `send --hook-dir` does).
func (r *rig) waitOnStopMarker(events, prompt, want string) (fsm.Result, []fsm.Poll) {
	r.t.Helper()
	marker := hookmark.Path(events, hookmark.Stopped)
	w, err := responsefile.Watch(marker)
	if err != nil {
		r.t.Fatal(err)
	}
	defer w.Close()
	return r.waitOnHook(fsm.Wakeups{Turns: w.C(), TurnMarker: marker}, prompt, want)
}

// waitOnHook dispatches prompt to the analyst role woken by wake (a hook's
// turn reports), with a one-minute poll and no file watch, and checks
// that the wait returned want and was decided by the hook's observation,
// before the first regular poll.
func (r *rig) waitOnHook(wake fsm.Wakeups, prompt, want string) (fsm.Result, []fsm.Poll) {
	r.t.Helper()
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = time.Minute, time.Minute, 3*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var polls []fsm.Poll
	p := r.pane()
	res, err := fsm.SendAndWait(ctx, p, p, prompt, fsm.Options{Config: cfg, Role: "analyst",
		Workdir: r.workdir, Logger: discard(), Wakeups: wake,
		OnPoll: func(p fsm.Poll) { polls = append(polls, p) }})
	if err != nil {
		r.fail("dispatch failed: %v (polls %+v)", err, polls)
	}
	if res.Content != want {
		r.t.Fatalf("got %q, want the file's %q", res.Content, want)
	}
	if last := polls[len(polls)-1]; !last.TurnCompleted || res.Elapsed >= cfg.Poll {
		r.fail("decided after %v by %+v: want the hook's observation, before the first regular poll (polls %+v)", res.Elapsed, last, polls)
	}
	return res, polls
}

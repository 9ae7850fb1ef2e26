package e2e

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Claude Code's Stop hook (handoff-fsm hook --dir DIR) reports the turn
// over, and the wait decides on it, not on the screen: the poll is a
// minute, there is no file watch, and the wait still ends within seconds.
func TestRealClaudeStopHookEndsTheWait(t *testing.T) {
	needClaude(t)
	bin := buildCommand(t)
	events := t.TempDir()
	r := newClaudeRig(t, realclaude.Options{Hooks: map[string]string{
		"Stop": handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)}})
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))

	marker := hookmark.Path(events, hookmark.Stopped)
	w, err := responsefile.Watch(marker)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = time.Minute, time.Minute, 3*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var polls []fsm.Poll
	p := r.pane()
	res, err := fsm.SendAndWait(ctx, p, p, "Analyse the project.", fsm.Options{Config: cfg, Role: "analyst",
		Workdir: r.workdir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Turns: w.C(), TurnMarker: marker,
		OnPoll: func(p fsm.Poll) { polls = append(polls, p) }})
	if err != nil {
		t.Fatalf("dispatch failed: %v (polls %+v)", err, polls)
	}
	if res.Content != answer+"\n" {
		t.Fatalf("got %q, want the file's %q", res.Content, answer+"\n")
	}
	last := polls[len(polls)-1]
	if !last.TurnComplete || res.Elapsed >= cfg.Poll {
		t.Fatalf("decided after %v by %+v: want the Stop hook's observation, before the first regular poll", res.Elapsed, last)
	}
	t.Logf("done %v after dispatch, on the Stop hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
}

package e2e

import (
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Codex's notify program (handoff-fsm hook) reports the turn
// complete, and the wait decides on that, not on the screen: the poll is a
// minute, there is no file watch, and the wait still ends within seconds
// of the turn.
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
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = time.Minute, time.Minute, 3*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var polls []fsm.Poll
	p := r.pane()
	res, err := fsm.SendAndWait(ctx, p, p, "Analyse the project.", fsm.Options{Config: cfg, Role: "analyst",
		Workdir: r.workdir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Wakeups: fsm.Wakeups{Turns: w.Turns()},
		OnPoll: func(p fsm.Poll) { polls = append(polls, p) }})
	if err != nil {
		t.Fatalf("dispatch failed: %v (polls %+v)", err, polls)
	}
	if res.Content != answer+"\n" {
		t.Fatalf("got %q, want the file's %q", res.Content, answer+"\n")
	}
	last := polls[len(polls)-1]
	if !last.TurnCompleted || res.Elapsed >= cfg.Poll {
		for _, p := range polls {
			t.Logf("poll %d at %v: %s file %s turn-complete %v → %s", p.N, p.Elapsed.Round(time.Millisecond), p.Status, p.File, p.TurnCompleted, p.State)
		}
		marker, _ := os.ReadFile(responsefile.TurnMarker(path))
		t.Fatalf("decided after %v by %+v: want the notify hook's observation, before the first regular poll (marker %q)", res.Elapsed, last, marker)
	}
	marker, err := os.ReadFile(responsefile.TurnMarker(path))
	if err != nil || !strings.Contains(string(marker), `"agent-turn-complete"`) {
		t.Fatalf("the hook's marker holds %q (%v)", marker, err)
	}
	t.Logf("done %v after dispatch, on the notify hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
}

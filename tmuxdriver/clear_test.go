package tmuxdriver_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// A composer left in shell mode takes the paste: Send refuses it with
// ErrComposerMode and returns only once the composer is proven empty, so
// the next prompt reaches the agent alone, whole and once. Here the first
// Escape only leaves the mode and keeps the refused fold (as droid's
// does): a composer out of its mode is not yet empty.
func TestARefusedPasteIsClearedWhenEscapeOnlyLeavesTheMode(t *testing.T) {
	refusedThenNext(t, "AGENT_ESC_KEEPS=1")
}

// The same when the agent is still reading the paste ("Pasting… N KB"
// for two seconds, every key but Enter lost meanwhile, as a loaded CLI):
// clear keys pressed before it has done are lost, so none is pressed
// until the screen settles.
func TestARefusedPasteIsClearedOnceTheAgentHasReadIt(t *testing.T) {
	refusedThenNext(t, "AGENT_PASTING=2s")
}

// A fold left in a quiet agent's composer (a paste nobody sent) is not
// pasted into: Send refuses with ErrComposerMode quoting it, pastes
// nothing and leaves it, and the agent receives nothing.
func TestSendRefusesToPasteIntoALeftoverFold(t *testing.T) {
	ctx := context.Background()
	srv := testServer(t)
	p, out := foldPane(t, srv)
	left := "a prompt someone pasted and never sent"
	if _, err := srv.Run(ctx, strings.NewReader(left), "load-buffer", "-b", "left", "-", ";",
		"paste-buffer", "-p", "-d", "-b", "left", "-t", p.Target()); err != nil {
		t.Fatal(err)
	}
	fold := "[Pasted Content 38 chars]"
	waitFor(t, "the leftover fold", func() bool { return shows(p, fold) })
	err := p.Send(ctx, "the next prompt")
	if !errors.Is(err, handoff.ErrComposerMode) || !strings.Contains(err.Error(), fold) {
		t.Fatalf("send = %v, want ErrComposerMode quoting the leftover fold", err)
	}
	time.Sleep(time.Second)
	if b, err := os.ReadFile(out + ".1"); err == nil {
		t.Fatalf("the agent received %q", b)
	}
	if !shows(p, fold) {
		t.Fatal("the leftover fold is gone: Send must leave what it did not put there")
	}
}

// A line typed into a quiet agent's composer and never sent (a person's
// draft) is not pasted onto: Send refuses with ErrComposerMode quoting
// it, pastes and presses nothing, and the line stays; the agent receives
// nothing.
func TestSendRefusesToPasteOntoLeftoverText(t *testing.T) {
	ctx := context.Background()
	srv := testServer(t)
	p, out := foldPane(t, srv, "AGENT_DRAFTS=1")
	if _, err := srv.Run(ctx, nil, "send-keys", "-t", p.Target(), "-l", "hello"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the typed line", func() bool { return shows(p, "READY>\nhello") })
	err := p.Send(ctx, "the next prompt")
	if !errors.Is(err, handoff.ErrComposerMode) || !strings.Contains(err.Error(), `"hello"`) {
		t.Fatalf("send = %v, want ErrComposerMode quoting the typed line", err)
	}
	time.Sleep(time.Second)
	if b, err := os.ReadFile(out + ".1"); err == nil {
		t.Fatalf("the agent received %q", b)
	}
	if shows(p, "the next prompt") || !shows(p, "READY>\nhello") {
		t.Fatal("the composer changed: Send must paste nothing and leave what it did not put there")
	}
}

// refusedThenNext types '!' into the echo agent's empty composer (env
// adds to its settings, folding each paste), sends a prompt, which must
// fail with ErrComposerMode and the composer cleared, then sends the next
// one, which the agent must receive alone.
func refusedThenNext(t *testing.T, env ...string) {
	ctx := context.Background()
	srv := testServer(t)
	p, out := foldPane(t, srv, env...)
	if err := p.SendKeys(ctx, "!"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the shell mode", func() bool { return shows(p, "SHELL MODE") })
	err := p.Send(ctx, "Plain words, typed into a shell mode by mistake.")
	if !errors.Is(err, handoff.ErrComposerMode) || errors.Is(err, tmuxdriver.ErrComposerNotCleared) {
		t.Fatalf("send into the shell mode = %v, want ErrComposerMode with the composer cleared", err)
	}
	if b, err := os.ReadFile(out + ".1"); err == nil {
		t.Fatalf("the refused prompt reached the agent: %q", b)
	}
	next := "Now a plain message."
	if got := delivered(t, p, out, next); got != next {
		t.Fatalf("the agent received %q, want %q alone: the refused paste was left in its composer", got, next)
	}
	noSecondMessage(t, out)
}

// shows reports whether p's screen holds s.
func shows(p *tmuxdriver.Pane, s string) bool {
	snap, err := p.Observe(context.Background())
	return err == nil && strings.Contains(snap.Capture, s)
}

// An agent stopped right after it read the clear key (a loaded machine
// stops one so) shows the composer as it was until it runs again: Send
// waits for it, and presses no clear key again on the composer the first
// one emptied (Esc Esc opens droid's rewind, a second Ctrl-C quits Codex).
func TestNoClearKeyIsPressedAgainWhileTheAgentIsStopped(t *testing.T) {
	ctx := context.Background()
	srv := testServer(t)
	p, out := foldPaneVia(t, srv, "timeout 600", "AGENT_STOP_ON_ESC=1")
	if err := p.SendKeys(ctx, "!"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the shell mode", func() bool { return shows(p, "SHELL MODE") })
	agent := agentPID(t, p)
	t.Cleanup(func() { resume(agent) })
	go func() {
		// Resumed two seconds after it stopped itself.
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if stopped(agent) {
				time.Sleep(2 * time.Second)
				break
			}
		}
		resume(agent)
	}()
	err := p.Send(ctx, "Plain words, typed into a shell mode by mistake.")
	if !errors.Is(err, handoff.ErrComposerMode) || errors.Is(err, tmuxdriver.ErrComposerNotCleared) {
		t.Fatalf("send into the shell mode = %v, want ErrComposerMode with the composer cleared", err)
	}
	if b, err := os.ReadFile(out + ".idle-escape"); err == nil {
		t.Fatalf("a clear key was pressed on the composer already empty (%d times)", strings.Count(string(b), "\n"))
	}
	next := "Now a plain message."
	if got := delivered(t, p, out, next); got != next {
		t.Fatalf("the agent received %q, want %q alone", got, next)
	}
}

package tmuxdriver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// fixedStarts is a ProcessStarts that says every process started at when.
type fixedStarts string

func (f fixedStarts) Started(context.Context, int) (string, error) { return string(f), nil }

// Two targets naming one pane have one identity; another pane, or a new
// process in the pane, has another.
func TestIdentityNamesThePaneAndItsProcess(t *testing.T) {
	srv := testServer(t)
	ctx := context.Background()
	id := newWindow(t, srv, "sleep 600")
	open := func(target string, starts tmuxdriver.ProcessStarts) handoff.PaneIdentity {
		t.Helper()
		p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: target, Classifier: codex.Provider(), Processes: starts})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Identity(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	byID := open(id, nil)
	if err := byID.Validate(); err != nil || byID.Pane != id || !strings.HasPrefix(byID.Server, "/") {
		t.Fatalf("identity %+v (%v)", byID, err)
	}
	win, _ := srv.Run(ctx, nil, "display-message", "-p", "-t", id, "#{session_name}:#{window_index}.#{pane_index}")
	if byName := open(strings.TrimSpace(win), nil); byName != byID {
		t.Fatalf("%s is %+v, %s is %+v: want one identity", win, byName, id, byID)
	}
	if all, err := srv.Identities(ctx, nil); err != nil || all[id] != byID || len(all) != 2 {
		t.Fatalf("the server's identities %v (%v), want %s's among two", all, err, id)
	}
	if other := open("main:0.0", nil); other.Pane == byID.Pane || other.Key() == byID.Key() || byID.Changes(other) == "" {
		t.Fatalf("another pane has the same identity: %+v", other)
	}
	if later := open(id, fixedStarts("later")); !strings.Contains(byID.Changes(later), "another process") {
		t.Fatalf("a new process is not a change: %q", byID.Changes(later))
	}
	// A pane that is gone says so, as Status does.
	if _, err := srv.Run(ctx, nil, "kill-pane", "-t", id); err != nil {
		t.Fatal(err)
	}
	p, _ := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: codex.Provider()})
	if _, err := p.Identity(ctx); !errors.Is(err, handoff.ErrTerminalGone) {
		t.Fatalf("a killed pane: %v, want ErrTerminalGone", err)
	}
}

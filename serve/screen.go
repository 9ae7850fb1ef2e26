package serve

import (
	"context"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// PaneScreen is one look at a pane as its provider's classifier reads it:
// the capture with its colours (capture-pane -e -J, the visible screen and
// History lines above it), its title, and the classification of that very
// capture.
type PaneScreen struct {
	Provider string `json:"provider"`
	Capture  string `json:"capture"`
	Title    string `json:"title"`
	Command  string `json:"command"`
	handoff.Classification
	// Gone: the pane, its agent or its server is gone (Reason says which).
	Gone bool `json:"gone,omitempty"`
}

// Screen reads target's pane on srv once, over the server's shared control
// client: what the web board's live screen shows. providerName picks the
// classifier ("" or "auto": by the pane's command and screen, as Board);
// history is the scrollback above the screen (tmuxdriver.DefaultHistory
// if 0).
func (s *Service) Screen(ctx context.Context, srv tmuxdriver.Server, target, providerName string, history int) (PaneScreen, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	runner, release := s.tmux.runner(ctx, serverKey{srv.Socket, srv.SocketPath}, srv)
	defer release()
	auto := providerName == "" || providerName == provider.Auto
	name := providerName
	if auto {
		name = provider.Default
	}
	cl, err := provider.Lookup(name)
	if err != nil {
		return PaneScreen{}, bad("provider", "%v", err)
	}
	pane, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: target, Classifier: cl, Runner: runner,
		History: history, Escapes: true})
	if err != nil {
		return PaneScreen{}, err
	}
	snap, err := pane.Observe(ctx)
	out := PaneScreen{Provider: name, Capture: snap.Capture, Title: snap.Title, Command: snap.Command}
	if err != nil {
		out.Classification = handoff.Classification{Status: handoff.StatusError, Reason: err.Error()}
		out.Gone = dispatchstate.Gone(err)
		return out, nil
	}
	if auto {
		// Read with the default provider's classifier first; the CLI the
		// command and screen name (provider.Pick) reads it again, as the
		// board's rows do.
		out.Provider, out.Classification, _ = boardProvider(name, snap)
		return out, nil
	}
	out.Classification = snap.Classification
	return out, nil
}

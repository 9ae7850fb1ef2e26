package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// recognize picks the provider of st's pane for a dispatch that asks for
// "auto": the pane is looked at once (its command, title and screen) and
// the provider that recognises it is kept in the dispatch's state, so a
// resume reads the pane with the same rules. No match or two is an error
// on the provider field that names the candidates; a pane that is not
// there is an error on the target.
func (s *Service) recognize(st *dispatchstate.State) (string, error) {
	o, err := st.PaneOptions() // provider auto: the driver picks it on its first look
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(s.ctx, time.Minute)
	defer cancel()
	runner, release := s.tmux.runner(ctx, serverKey{st.Socket, st.SocketPath}, o.Server)
	defer release()
	o.Runner = runner
	pane, err := tmuxdriver.New(o)
	if err != nil {
		return "", err
	}
	name, err := pane.Provider(ctx)
	switch {
	case errors.Is(err, provider.ErrNoMatch) || errors.Is(err, provider.ErrAmbiguous):
		return "", bad("provider", "auto: %v; give the provider by name", err)
	case err != nil && dispatchstate.Gone(err):
		return "", bad("target", "provider auto could not %v", err)
	case err != nil:
		return "", fmt.Errorf("provider auto: %w", err)
	}
	return name, nil
}

// boardProvider is the provider a board row reads its pane with when none
// was asked for ("" or "auto"): provider.Pick's, the one that recognises
// the pane, else the one its command names (with Pick's error). snap was
// read with the command's provider; it is read again, without another
// look, when Pick names another.
func boardProvider(name string, snap tmuxdriver.Snapshot) (string, handoff.Classification, error) {
	if snap.Classification.Status == "" {
		return name, snap.Classification, nil // dead, or at a shell: nothing to read
	}
	picked, perr := provider.Pick(snap.Command, snap.Title, snap.Capture)
	if picked == name {
		return name, snap.Classification, perr
	}
	cl, err := provider.Lookup(picked)
	if err != nil {
		return name, snap.Classification, perr
	}
	return picked, cl.Classify(snap.Capture, snap.Title), perr
}

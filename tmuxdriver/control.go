package tmuxdriver

import (
	"context"
	"fmt"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/tmuxcontrol"
)

// Control carries one pane's tmux commands over a control-mode client
// (tmuxcontrol: no tmux process per poll) and reports when the pane prints
// something or may have ended (events.go), so a wait can look again at
// once instead of at its next poll (fsm.Wakeups.Output). When control mode is unavailable or its client dies,
// commands go back to one tmux process each and the hints stop; onFallback
// is told why, once.
type Control struct {
	runner *tmuxcontrol.Runner
	hints  chan struct{}
	stop   chan struct{}
}

// StartControl attaches a control client to the session of o's target and
// returns o with its Runner set to it, and the Control. Below tmux 3.2
// (ControlVersion) it attaches none: onFallback hears why, and the Control
// gives no hints. An error means the
// target could not be found at all; a control client that cannot start is
// not an error (onFallback hears of it and polling works as before).
func StartControl(ctx context.Context, o Options, onFallback func(error)) (Options, *Control, error) {
	ids, err := o.Server.Run(ctx, nil, "display-message", "-p", "-t", o.Target, "#{session_id} #{pane_id}")
	if err != nil {
		return o, nil, fmt.Errorf("pane %s: %w", o.Target, err)
	}
	session, pane, _ := strings.Cut(strings.TrimSpace(ids), " ")
	if v, err := o.Server.Version(ctx); err == nil && v.Less(ControlVersion) {
		onFallback(fmt.Errorf("%w: this is tmux %s; control mode's output filtering needs tmux %s", ErrTmuxTooOld, v, ControlVersion))
		return o, &Control{hints: make(chan struct{}), stop: make(chan struct{})}, nil
	}
	c := &Control{hints: make(chan struct{}, 1), stop: make(chan struct{})}
	c.runner = tmuxcontrol.NewRunner(ctx, tmuxcontrol.Options{Socket: o.Server.Socket, SocketPath: o.Server.SocketPath,
		Binary: o.Server.Binary, Session: session, OnMessage: func(m tmuxcontrol.Message) {
			if paneMayHaveEnded(m) {
				ring(c.hints)
			}
		}}, o.Server.Run, onFallback)
	if cl := c.runner.Client(); cl != nil {
		subscribeDead(ctx, cl)
		go c.forward(cl.Output(), pane)
	}
	o.Runner = c.runner
	return o, c, nil
}

// forward turns the pane's output events into hints, coalesced, and
// hints once more when the client ends (its server or session may be
// gone: look now).
func (c *Control) forward(events <-chan tmuxcontrol.OutputEvent, pane string) {
	for {
		select {
		case <-c.stop:
			return
		case ev, ok := <-events:
			if !ok {
				ring(c.hints)
				return
			}
			if ev.Pane == pane {
				ring(c.hints)
			}
		}
	}
}

// Hints delivers a value when the pane printed something since the last
// receive.
func (c *Control) Hints() <-chan struct{} { return c.hints }

// Close ends the control client.
func (c *Control) Close() error {
	close(c.stop)
	if c.runner == nil { // tmux too old: there was none
		return nil
	}
	return c.runner.Close()
}

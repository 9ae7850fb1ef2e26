package tmuxdriver

import (
	"context"
	"strings"
	"sync"

	"github.com/handoff-fsm/handoff-fsm/tmuxcontrol"
)

// Shared is one tmux control-mode client for a whole tmux server, shared by
// every pane a program dispatches to on it (a service running many
// dispatches): every command of every pane goes over it (Runner), so a look
// starts no process, and the tmux server sees one control client however
// many dispatches run. tmux sends a control client the output of every
// pane of its session; Shared turns it off for every pane nobody watches
// (refresh-client -A '%N:off') and on for the ones that are (Watch), so
// the server forwards only what a wait reacts to.
//
// tmux reports output only for the panes of the session the client is
// attached to (StartShared's session): panes of other sessions are still
// read over the client, their waits rely on polls and file events.
//
// When control mode cannot start or its client dies, commands go to one
// tmux process each (tmuxcontrol.Runner), onFallback hears why once, and
// every watcher is woken at once, so a wait on a server that died looks
// now and fails now rather than at its next poll.
type Shared struct {
	runner     *tmuxcontrol.Runner
	onFallback func(error)

	mu      sync.Mutex
	client  *tmuxcontrol.Client // nil once fallen back
	watched map[string]map[chan struct{}]struct{}
	off     map[string]bool // panes turned off on the client
	outputs map[string]int  // %output events received, per pane
	fell    bool
	closed  bool
	done    chan struct{}
}

// StartShared attaches one control client to session ("" for the one tmux
// picks) on srv. It never fails: without control mode the Shared runs each
// command as a tmux process and onFallback says why.
func StartShared(ctx context.Context, srv Server, session string, onFallback func(error)) *Shared {
	s := &Shared{onFallback: onFallback, watched: map[string]map[chan struct{}]struct{}{}, off: map[string]bool{},
		outputs: map[string]int{}, done: make(chan struct{})}
	s.runner = tmuxcontrol.NewRunner(ctx, tmuxcontrol.Options{Socket: srv.Socket, SocketPath: srv.SocketPath,
		Binary: srv.Binary, Session: session, Timeout: srv.Timeout}, srv.Run, s.fellBack)
	s.client = s.runner.Client()
	if c := s.client; c != nil {
		s.quiet(ctx, c)
		go s.route(c)
	}
	return s
}

// quiet turns the output of every pane of the client's session off: none
// is watched yet.
func (s *Shared) quiet(ctx context.Context, c *tmuxcontrol.Client) {
	lines, err := c.Command(ctx, "list-panes", "-s", "-F", "#{pane_id}")
	if err != nil || len(lines) == 0 {
		return
	}
	args := []string{"refresh-client"}
	s.mu.Lock()
	for _, p := range lines {
		if p = strings.TrimSpace(p); p != "" {
			args = append(args, "-A", p+":off")
			s.off[p] = true
		}
	}
	s.mu.Unlock()
	_, _ = c.Command(ctx, args...)
}

// route hands each pane's output to its watchers, and turns off the output
// of a pane nobody watches the first time it prints.
func (s *Shared) route(c *tmuxcontrol.Client) {
	for ev := range c.Output() {
		s.mu.Lock()
		s.outputs[ev.Pane] += ev.Count
		subs := s.watched[ev.Pane]
		for ch := range subs {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
		mute := len(subs) == 0 && !s.off[ev.Pane]
		if mute {
			s.off[ev.Pane] = true
		}
		s.mu.Unlock()
		if mute {
			go s.set(c, ev.Pane, "off")
		}
	}
	// The client ended: closed, or died with its server or session.
	select {
	case <-s.done:
	default:
		s.fellBack(c.Err())
	}
}

// set turns a pane's output on or off on the client.
func (s *Shared) set(c *tmuxcontrol.Client, pane, state string) {
	ctx, cancel := context.WithTimeout(context.Background(), tmuxcontrol.DefaultTimeout)
	defer cancel()
	_, _ = c.Command(ctx, "refresh-client", "-A", pane+":"+state)
}

// fellBack drops the client for good, wakes every watcher and says why
// (once).
func (s *Shared) fellBack(err error) {
	s.mu.Lock()
	if s.fell || s.closed {
		s.mu.Unlock()
		return
	}
	s.fell, s.client = true, nil
	for _, subs := range s.watched {
		for ch := range subs {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
	s.mu.Unlock()
	if s.onFallback != nil && err != nil {
		s.onFallback(err)
	}
}

// Runner carries commands over the control client (a tmux process each
// once it has fallen back): pass it as Options.Runner.
func (s *Shared) Runner() Runner { return s.runner }

// FellBack reports whether control mode is off for good on this server.
func (s *Shared) FellBack() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fell
}

// Watch turns the output of pane (an id, %N) on and returns a channel that
// delivers a value when the pane printed since the last receive (for
// fsm.Options.Output), or when control mode ended (look now: the server
// may be gone). stop turns the output off again once no one watches.
func (s *Shared) Watch(pane string) (hints <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	subs := s.watched[pane]
	if subs == nil {
		subs = map[chan struct{}]struct{}{}
		s.watched[pane] = subs
	}
	subs[ch] = struct{}{}
	c := s.client
	turnOn := c != nil && len(subs) == 1
	if turnOn {
		s.off[pane] = false
	}
	s.mu.Unlock()
	if turnOn {
		s.set(c, pane, "on")
	}
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			s.mu.Lock()
			delete(subs, ch)
			c := s.client
			turnOff := len(subs) == 0 && c != nil
			if len(subs) == 0 {
				delete(s.watched, pane)
				s.off[pane] = turnOff
			}
			s.mu.Unlock()
			if turnOff {
				s.set(c, pane, "off")
			}
		})
	}
}

// Outputs is how many %output notifications the client has received for
// pane: what the tmux server forwarded to it (diagnostics, tests).
func (s *Shared) Outputs(pane string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.outputs[pane]
}

// Close ends the control client.
func (s *Shared) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	close(s.done)
	s.mu.Unlock()
	return s.runner.Close()
}

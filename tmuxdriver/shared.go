package tmuxdriver

import (
	"context"
	"sync"

	"github.com/handoff-fsm/handoff-fsm/tmuxcontrol"
)

// Shared is one tmux control-mode client for a whole tmux server, shared by
// every pane a program dispatches to on it (a service running many
// dispatches): every command of every pane goes over it (Runner), so a look
// starts no process, and the tmux server sees one control client however
// many dispatches run.
//
// The client asks tmux for no pane output at all (the no-output client
// flag): a control client otherwise gets every redraw of every pane of its
// session, which costs the tmux server more than the looks it saves. The
// finer tool, turning output off per pane (refresh-client -A '%N:off') and
// on for the panes under dispatch, crashes tmux 3.3a: a server whose
// control client had turned a pane off dies, now and then, when that client
// detaches (docs/reliability.md has the measurement). Waits are woken by
// their response-file watch, the agents' hooks and their polls instead.
//
// Every watcher is also woken when tmux reports that a pane may have
// ended (events.go): the no-output flag stops %output only, not the
// notifications of panes and windows closing.
//
// When control mode cannot start or its client dies, commands go to one
// tmux process each (tmuxcontrol.Runner), onFallback hears why once, and
// every watcher is woken at once, so a wait on a server that died looks now
// and fails now rather than at its next poll.
type Shared struct {
	runner     *tmuxcontrol.Runner
	onFallback func(error)

	mu      sync.Mutex
	watched map[chan struct{}]struct{}
	outputs map[string]int // %output notifications received, per pane
	fell    bool
	closed  bool
	done    chan struct{}
}

// StartShared attaches one control client to session ("" for the one tmux
// picks) on srv. It never fails: without control mode the Shared runs each
// command as a tmux process and onFallback says why.
func StartShared(ctx context.Context, srv Server, session string, onFallback func(error)) *Shared {
	s := &Shared{onFallback: onFallback, watched: map[chan struct{}]struct{}{}, outputs: map[string]int{},
		done: make(chan struct{})}
	s.runner = tmuxcontrol.NewRunner(ctx, tmuxcontrol.Options{Socket: srv.Socket, SocketPath: srv.SocketPath,
		Binary: srv.Binary, Session: session, Timeout: srv.Timeout, NoOutput: true, OnMessage: func(m tmuxcontrol.Message) {
			if paneMayHaveEnded(m) {
				s.wakeAll()
			}
		}}, srv.Run, s.fellBack)
	if c := s.runner.Client(); c != nil {
		subscribeDead(ctx, c)
		go s.route(c)
	}
	return s
}

// route counts what output arrives (none is asked for) and notices when
// the client ends.
func (s *Shared) route(c *tmuxcontrol.Client) {
	for ev := range c.Output() {
		s.mu.Lock()
		s.outputs[ev.Pane] += ev.Count
		s.mu.Unlock()
	}
	// The client ended: closed, or died with its server or session.
	select {
	case <-s.done:
	default:
		s.fellBack(c.Err())
	}
}

// fellBack notes that control mode is over, wakes every watcher and says
// why (once).
func (s *Shared) fellBack(err error) {
	s.mu.Lock()
	if s.fell || s.closed {
		s.mu.Unlock()
		return
	}
	s.fell = true
	for ch := range s.watched {
		ring(ch)
	}
	s.mu.Unlock()
	if s.onFallback != nil && err != nil {
		s.onFallback(err)
	}
}

// wakeAll wakes every watcher: a pane may have ended.
func (s *Shared) wakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watched {
		ring(ch)
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

// Watch returns a channel that delivers a value when control mode ends
// (the server may be gone: look now) or a pane may have ended, for
// fsm.Wakeups.Output; stop forgets it.
func (s *Shared) Watch() (wake <-chan struct{}, stop func()) {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.watched[ch] = struct{}{}
	s.mu.Unlock()
	return ch, func() {
		s.mu.Lock()
		delete(s.watched, ch)
		s.mu.Unlock()
	}
}

// Outputs is how many %output notifications the client has received for
// pane: what the tmux server forwarded to it (diagnostics, tests; none is
// asked for).
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

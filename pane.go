package handoff

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// PaneIdentity names the one pane a dispatch talks to, and which instance
// of it: the server (its socket, process and start time), the pane's id on
// that server, and the process the pane runs (its pid and start time). A
// pane of the same name on a restarted server, or a new process in the
// pane, is another identity, so a resumed wait can tell that the agent it
// waited on is gone even when the target still resolves.
type PaneIdentity struct {
	// Server is the terminal server's address (tmux: the socket path).
	Server string `json:"server"`
	// ServerPID and ServerStarted tell one run of the server from the next.
	ServerPID     int    `json:"server_pid"`
	ServerStarted string `json:"server_started"`
	// Pane is the pane's id on the server (tmux: %N).
	Pane string `json:"pane"`
	// PID and Started are the pane's process and its start time (an opaque
	// token compared for equality: a pid reused by a later process has
	// another).
	PID     int    `json:"pid"`
	Started string `json:"started"`
}

// Identifier is a Terminal that can say which pane it drives (see
// PaneIdentity). The engine uses it to hold one dispatch per pane at a time
// (the pane lock, keyed by Key) and to refuse to resume a wait on a pane
// that changed.
type Identifier interface {
	Identity(ctx context.Context) (PaneIdentity, error)
}

// ErrPaneChanged is wrapped by the error of a resumed wait whose pane is
// not the one the dispatch was sent to (another pane behind the target,
// another process in it, a restarted server). It is a terminal error: the
// agent that had the prompt is gone.
var ErrPaneChanged = errors.New("the pane changed")

// Key is what the pane lock is named by: the server and the pane id. Two
// targets naming one pane (session:window.pane and %id, a socket name and
// its path) have one key.
func (p PaneIdentity) Key() string { return p.Server + "\x00" + p.Pane }

// String names the pane for messages.
func (p PaneIdentity) String() string { return fmt.Sprintf("pane %s on %s", p.Pane, p.Server) }

// Validate checks that every field is there; the error names the field.
func (p PaneIdentity) Validate() error {
	missing := func(s string) string {
		if s == "" {
			return "missing"
		}
		return ""
	}
	notPID := func(n int) string {
		if n <= 0 {
			return fmt.Sprintf("%d is not a pid", n)
		}
		return ""
	}
	for _, f := range []struct{ field, problem string }{
		{"server", missing(p.Server)},
		{"server_pid", notPID(p.ServerPID)},
		{"server_started", missing(p.ServerStarted)},
		{"pane", missing(p.Pane)},
		{"pid", notPID(p.PID)},
		{"started", missing(p.Started)},
	} {
		if f.problem != "" {
			return &PaneFieldError{Field: f.field, Problem: f.problem}
		}
	}
	return nil
}

// PaneFieldError says which field of a PaneIdentity is wrong.
type PaneFieldError struct {
	Field, Problem string
}

func (e *PaneFieldError) Error() string { return fmt.Sprintf("field %q: %s", e.Field, e.Problem) }

// Changes says how now differs from p, the pane a dispatch was sent to, in
// words ("" when it is the same pane): a restarted server, another pane
// behind the target, another process in the pane.
func (p PaneIdentity) Changes(now PaneIdentity) string {
	var what []string
	if p.Server != now.Server {
		what = append(what, fmt.Sprintf("the server is another one (%s, was %s)", now.Server, p.Server))
	} else if p.ServerPID != now.ServerPID || p.ServerStarted != now.ServerStarted {
		what = append(what, fmt.Sprintf("the server at %s was restarted (pid %d started %s, was pid %d started %s)",
			p.Server, now.ServerPID, now.ServerStarted, p.ServerPID, p.ServerStarted))
	}
	if p.Pane != now.Pane {
		what = append(what, fmt.Sprintf("the target is now pane %s, was %s", now.Pane, p.Pane))
	}
	if p.PID != now.PID || p.Started != now.Started {
		what = append(what, fmt.Sprintf("the pane runs another process (pid %d started %s, was pid %d started %s)",
			now.PID, now.Started, p.PID, p.Started))
	}
	return strings.Join(what, "; ")
}

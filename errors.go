package handoff

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels a caller tests with errors.Is. A wait that fails returns a
// *WaitError whose Kind is one of the first three.
var (
	// ErrTerminalError: the terminal reported status error, or could not be
	// read at all (pane gone, tmux server down).
	ErrTerminalError = errors.New("terminal error")
	// ErrNoResponseFile: strict mode, the agent went quiet for the idle grace
	// without writing its response file.
	ErrNoResponseFile = errors.New("no response file")
	// ErrTimeout: the response timeout passed while the agent was still working.
	ErrTimeout = errors.New("response timeout")
	// ErrNeedsUser: the agent kept waiting for the user (a permission prompt,
	// a question) after the configured automatic answers ran out.
	ErrNeedsUser = errors.New("the agent needs the user")

	// ErrUnknownRole: a role with no response file mapping.
	ErrUnknownRole = errors.New("unknown role")
	// ErrResponseFile: the response file exists but cannot be used (a
	// symlink, not a regular file, unreadable, or too large). It is left in
	// place so nothing the agent wrote is lost.
	ErrResponseFile = errors.New("unusable response file")
	// ErrAgentBusy: before pasting, the agent was working or waiting for the
	// user, and it did not show a ready prompt within Config.BusyWait.
	// Nothing was sent. See Refusals.
	ErrAgentBusy = errors.New("the agent is busy")
)

// ErrorKind returns the short machine name of a wait failure, as used by the
// replay format: the Name of the table's failed Outcome that err wraps
// ("terminal_error", "no_response_file", "timeout"); "" for anything else.
func ErrorKind(err error) string {
	o, _ := FailureOf(err)
	return o.Name
}

// WaitError is the error a failed wait returns: which failure (Kind, one of
// the sentinels) with what the caller needs to act on it.
type WaitError struct {
	Kind       error         // ErrTerminalError, ErrNoResponseFile or ErrTimeout
	Role       string        // the agent role waited on ("" if none was given)
	State      State         // the state the wait was in when it failed
	LastStatus Status        // the last terminal status observed
	Elapsed    time.Duration // time since dispatch
	Detail     string        // what the terminal said, when it said anything
	// Cause is the Terminal's error behind a terminal error (a pane gone,
	// the screen's error, the last of the failed polls), for errors.Is and
	// errors.As; nil when there was none. Detail is its message.
	Cause error
}

func (e *WaitError) Error() string {
	role := e.Role
	if role == "" {
		role = "agent"
	}
	msg := fmt.Sprintf("%s: %v after %v (state %s, last status %q)", role, e.Kind, e.Elapsed.Round(time.Millisecond), e.State, e.LastStatus)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

// Unwrap lets errors.Is match the sentinel in Kind, and the Cause.
func (e *WaitError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Cause}
}

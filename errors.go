package handoff

import (
	"errors"
	"fmt"
	"time"
)

// Sentinels a caller tests with errors.Is. A wait that fails returns a
// *WaitError whose Kind is the Err of the table's failed Outcome (see
// Transitions): ErrTerminalError, ErrNoResponseFile, ErrTimeout,
// ErrNeedsUser, ErrResponseFile or ErrPromptNotTaken (submitted.go). ErrAgentBusy ends a dispatch before it
// sends anything (Refusals). A failed wait whose prompt never left the
// agent's composer also wraps ErrNotSubmitted (prompt.go; WaitError.Unsent).
var (
	// ErrTerminalError: the terminal reported status error, is gone (the
	// pane, its agent or the tmux server: ErrTerminalGone), or could not be
	// read on Config.MaxPollFailures polls in a row.
	ErrTerminalError = errors.New("terminal error")
	// ErrNoResponseFile: strict mode, the agent went quiet for the idle grace
	// without writing its response file.
	ErrNoResponseFile = errors.New("no response file")
	// ErrTimeout: the response timeout passed while the agent was still working.
	ErrTimeout = errors.New("response timeout")
	// ErrNeedsUser: the agent kept waiting for the user (a permission prompt,
	// a question) after the configured automatic answers ran out.
	ErrNeedsUser = errors.New("the agent needs the user")

	// ErrUnknownRole: a role that cannot name a response file: not a name
	// of letters, digits, _ and -, a typo away from one of the spec's
	// roles, or one a file system that ignores case would mix up with
	// another.
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
// replay format: the Name of the failed Outcome (the table's, or a
// refusal's) that err wraps ("terminal_error", "no_response_file",
// "timeout", "needs_user", "unusable_response_file", "agent_busy"); "" for
// anything else.
func ErrorKind(err error) string {
	o, _ := FailureOf(err)
	return o.Name
}

// WaitError is the error a failed wait returns: which failure (Kind, one of
// the sentinels) with what the caller needs to act on it.
type WaitError struct {
	Kind       error         // the failed Outcome's Err: ErrTerminalError, ErrTimeout, …
	Role       string        // the agent role waited on ("" if none was given)
	State      State         // the state the wait was in when it failed
	LastStatus Status        // the last terminal status observed
	Elapsed    time.Duration // time since dispatch
	Detail     string        // what the terminal said, when it said anything
	// Cause is the Terminal's error behind a terminal error (a pane gone,
	// the screen's error, the last of the failed polls), for errors.Is and
	// errors.As; nil when there was none. Detail is its message.
	Cause error
	// Unsent, when not "", says the prompt never left the agent's
	// composer: what the last look at it showed as the dispatch failed
	// (see ErrNotSubmitted, which the error then wraps).
	Unsent string
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
	if e.Unsent != "" {
		msg += fmt.Sprintf("; %v (it shows %s) and the agent shows no turn. It is left there: press Enter in the pane to submit it, or clear the composer before the next send (a next paste would join it)", ErrNotSubmitted, e.Unsent)
	}
	return msg
}

// Unwrap lets errors.Is match the sentinel in Kind, the Cause, and
// ErrNotSubmitted when the prompt never left the composer (Unsent).
func (e *WaitError) Unwrap() []error {
	errs := []error{e.Kind}
	if e.Cause != nil {
		errs = append(errs, e.Cause)
	}
	if e.Unsent != "" {
		errs = append(errs, ErrNotSubmitted)
	}
	return errs
}

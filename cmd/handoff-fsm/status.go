package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// runStatus prints the classifier's verdict on a live pane as one JSON
// object, the same shape classify prints: {"status","reason","signals"}.
// A pane that is gone, dead or back at a shell prints status "error" with
// the reason and exits 4.
func runStatus(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("status", "usage: handoff-fsm status --target T [--socket NAME | --socket-path PATH] [flags]\n"+
		"\nPrints the classified status of a live tmux pane as one line of JSON:\n"+
		`{"status":…,"reason":…,"signals":{…}}. Exit 4 when the pane, its agent or the server is gone.`+"\n"+
		"\nflags:\n", stderr)
	pf := addPaneFlags(fs)
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		if errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
			return exitFailure
		}
		return exitUsage
	}
	snap, err := pane.Observe(ctx)
	c := snap.Classification
	code := exitOK
	if err != nil {
		if !paneGone(err) {
			fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
			return exitFailure
		}
		c = handoff.Classification{Status: handoff.StatusError, Reason: err.Error()}
		code = exitTerminal
	}
	if err := writeJSON(stdout, c); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitFailure
	}
	return code
}

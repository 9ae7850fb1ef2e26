package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
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
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	fs.SetOutput(stderr)
	pf := addPaneFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: handoff-fsm status --target T [--socket NAME | --socket-path PATH] [flags]")
		fmt.Fprintln(stderr, "\nPrints the classified status of a live tmux pane as one line of JSON:")
		fmt.Fprintln(stderr, `{"status":…,"reason":…,"signals":{…}}. Exit 4 when the pane, its agent or the server is gone.`)
		fmt.Fprintln(stderr, "\nflags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "handoff-fsm status: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
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
	enc := json.NewEncoder(stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitFailure
	}
	return code
}

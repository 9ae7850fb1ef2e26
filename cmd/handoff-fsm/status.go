package main

import (
	"context"
	"fmt"
	"io"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// runStatus prints the classifier's verdict on a live pane as one JSON
// object, the same shape classify prints: {"status","reason","signals"},
// and, when there are any, the dispatch holding the pane and the one that
// timed out on it ("dispatch", "timed_out", "note"). A pane that is gone,
// dead or back at a shell prints status "error" with the reason and exits
// 4.
func runStatus(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("status", "usage: handoff-fsm status --target T [--socket NAME | --socket-path PATH] [flags]\n"+
		"       handoff-fsm status --team [-f FILE]\n"+
		"\nPrints the classified status of a live tmux pane as one line of JSON:\n"+
		`{"status":…,"reason":…,"signals":{…}}, plus "dispatch" (the send holding the pane), "timed_out"`+"\n"+
		`(a dispatch that timed out while the agent worked, not yet seen finished) and "note" when`+"\n"+
		`there are any. Exit 4 when the pane, its agent or the server is gone.`+"\n"+
		"With --team: a line per agent of the team (handoff-fsm up), exit 4 when one is not running.\n"+
		"\nflags:\n", stderr)
	pf := addPaneFlags(fs)
	server := fs.String("server", "", "ask the service (handoff-fsm serve) at unix:PATH or tcp:HOST:PORT (or HANDOFF_SERVER) instead of starting tmux processes")
	teamMode, teamFile := teamStatusFlags(fs)
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	if *teamMode || *teamFile != "" {
		return teamStatus(ctx, *teamFile, stdout, stderr)
	}
	client, err := pf.service(*server)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitUsage
	}
	if client != nil {
		return remoteStatus(ctx, client, pf, stdout, stderr)
	}
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		return openFailed(stderr, "status", err)
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
	out := struct {
		handoff.Classification
		panelock.Dispatches
	}{c, panelock.Dispatches{}}
	if err == nil {
		id, ierr := pane.Identity(ctx)
		if dir, derr := panelock.Dir(); ierr == nil && derr == nil {
			out.Dispatches = panelock.DispatchesOn(dir, id, c.Status)
		}
	}
	if err := writeJSON(stdout, out); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitFailure
	}
	return code
}

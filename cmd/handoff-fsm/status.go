package main

import (
	"context"
	"fmt"
	"io"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/serve"
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
	var row serve.PaneRow
	var code int
	if client != nil {
		row, code = statusThere(ctx, client, pf, stderr)
	} else {
		row, code = statusHere(ctx, pf, stderr)
	}
	if code != exitOK {
		return code
	}
	// The verdict, and what the pane locks say of its dispatches.
	out := struct {
		handoff.Classification
		panelock.Dispatches
	}{row.Classification, panelock.Dispatches{Holder: row.HeldBy, TimedOut: row.TimedOut, Note: row.Note}}
	if err := writeJSON(stdout, out); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitFailure
	}
	if row.Gone {
		return exitTerminal
	}
	return exitOK
}

// statusHere reads the pane the flags name in this process: its row as
// the service's board gives it, or the exit status of a failure said on
// stderr.
func statusHere(ctx context.Context, pf *paneFlags, stderr io.Writer) (serve.PaneRow, int) {
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		return serve.PaneRow{}, openFailed(stderr, "status", err)
	}
	row, err := lookHere(ctx, pane)
	if err != nil && !row.Gone {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return row, exitFailure
	}
	if err == nil {
		id, ierr := pane.Identity(ctx)
		if dir, derr := panelock.Dir(); ierr == nil && derr == nil {
			d := panelock.DispatchesOn(dir, id, row.Status)
			row.HeldBy, row.TimedOut, row.Note = d.Holder, d.TimedOut, d.Note
		}
	}
	return row, exitOK
}

// lookHere looks at pane once: its verdict, or the look's error as a
// status "error" row (Gone when the pane, its agent or its server is gone)
// together with the error.
func lookHere(ctx context.Context, pane *tmuxdriver.Pane) (serve.PaneRow, error) {
	snap, err := pane.Observe(ctx)
	if err != nil {
		return serve.PaneRow{Classification: handoff.Classification{Status: handoff.StatusError, Reason: err.Error()}, Gone: paneGone(err)}, err
	}
	return serve.PaneRow{Classification: snap.Classification}, nil
}

// statusThere asks the service (--server) for the pane the flags name.
func statusThere(ctx context.Context, e serve.Engine, pf *paneFlags, stderr io.Writer) (serve.PaneRow, int) {
	if pf.pane.Target == "" {
		fmt.Fprintln(stderr, "handoff-fsm status: --target is required (the agent's tmux pane: session:window.pane or %id)")
		return serve.PaneRow{}, exitUsage
	}
	rows, err := e.Panes(ctx, paneQuery(pf, pf.pane.Provider))
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return serve.PaneRow{}, exitFailure
	}
	if len(rows) != 1 {
		fmt.Fprintf(stderr, "handoff-fsm status: the service found %d panes for %s\n", len(rows), pf.pane.Target)
		return serve.PaneRow{}, exitFailure
	}
	return rows[0], exitOK
}

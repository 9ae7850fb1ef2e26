package main

import (
	"context"
	"fmt"
	"io"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
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
	if pf.pane.Target == "" {
		fmt.Fprintln(stderr, "handoff-fsm status: --target is required (the agent's tmux pane: session:window.pane or %id)")
		return exitUsage
	}
	r, err := pf.reader(ctx, *server)
	if err != nil {
		return openFailed(stderr, "status", err)
	}
	rows, err := r.read(ctx, pf.pane.Target, pf.pane.Provider)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm status: %v\n", err)
		return exitFailure
	}
	if len(rows) != 1 {
		fmt.Fprintf(stderr, "handoff-fsm status: %d panes found for %s\n", len(rows), pf.pane.Target)
		return exitFailure
	}
	row := rows[0]
	r.note(stderr, "status", pf.pane.Provider, row)
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

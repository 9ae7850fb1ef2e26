package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// runWatch polls a pane and prints a line whenever its status changes,
// until interrupted. A pane that goes away is reported once, and watching
// goes on (it may come back).
func runWatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("watch", "usage: handoff-fsm watch [--target T] [--socket NAME | --socket-path PATH] [--interval D] [flags]\n"+
		"\nWith --target: prints \"TIME STATUS  reason\" whenever the pane's classified status changes,\n"+
		"until interrupted (Ctrl-C). Without: a board of every pane on the server (provider, status,\n"+
		"how long in it), redrawn live on a terminal, a JSON line per change when piped; there\n"+
		"--provider auto (the default) picks each pane's provider by its command.\n"+
		"\nflags:\n", stderr)
	pf := addPaneFlags(fs)
	interval := configflag.DurationVar(fs, "interval", time.Second, "how often the pane is read")
	server := fs.String("server", "", "read through the service (handoff-fsm serve) at unix:PATH or tcp:HOST:PORT (or HANDOFF_SERVER): its shared tmux client, no tmux process per look")
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	if interval.D <= 0 {
		fmt.Fprintln(stderr, "handoff-fsm watch: --interval must be positive")
		return exitUsage
	}
	name := pf.pane.Provider
	if !providerSet(fs) && pf.pane.Target == "" {
		name = provider.Auto
	}
	if pf.pane.Target == "" && *pf.providerFile != "" {
		fmt.Fprintln(stderr, "handoff-fsm watch: --provider-file reads one pane: give --target")
		return exitUsage
	}
	r, err := pf.reader(ctx, *server)
	if err != nil {
		return openFailed(stderr, "watch", err)
	}
	if pf.pane.Target == "" {
		return runBoard(ctx, interval.D, stdout, boardLooks(r, name, stderr))
	}
	return watchPane(ctx, interval.D, stdout, paneLooks(r, pf.pane.Target, name, stderr))
}

// paneLook looks at the watched pane once: its row (nil: not seen this
// time); failed, when the look failed (its reason is then news too); or,
// for a watch that cannot go on, the exit status (said on stderr).
type paneLook func(ctx context.Context) (row *serve.PaneRow, failed bool, exit int)

// watchPane prints a line whenever the pane's status changes, a look every
// interval, until ctx ends.
func watchPane(ctx context.Context, interval time.Duration, stdout io.Writer, look paneLook) int {
	var last string
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		row, failed, code := look(ctx)
		if ctx.Err() != nil {
			return exitOK
		}
		if code != exitOK {
			return code
		}
		// A change of reason alone (same status) is not news.
		key := last
		if row != nil {
			key = string(row.Status)
		}
		if row != nil && failed {
			key += "\x00" + row.Reason
		}
		if row != nil && key != last {
			fmt.Fprintf(stdout, "%s %-19s %s\n", time.Now().Format("15:04:05.000"), row.Status, row.Reason)
			last = key
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-t.C:
		}
	}
}

// paneLooks is the watched pane's look (r's row of target); a tick when
// it is not found alone shows nothing.
func paneLooks(r paneReader, target, providerName string, stderr io.Writer) paneLook {
	noted := false
	return func(ctx context.Context) (*serve.PaneRow, bool, int) {
		rows, err := r.read(ctx, target, providerName)
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
			}
			return nil, false, exitFailure
		}
		if len(rows) != 1 {
			return nil, false, exitOK
		}
		if !noted && !rows[0].Gone {
			r.note(stderr, "watch", providerName, rows[0])
			noted = true
		}
		return &rows[0], rows[0].Gone, exitOK
	}
}

// providerSet reports whether --provider was given.
func providerSet(fs *flag.FlagSet) bool { return flagGiven(fs, "provider") }

// flagGiven reports whether the flag name was given on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

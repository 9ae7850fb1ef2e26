package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"time"

	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
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
	client, err := pf.service(*server)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
		return exitUsage
	}
	name := pf.pane.Provider
	if !providerSet(fs) && pf.pane.Target == "" {
		name = "auto"
	}
	if client != nil && pf.pane.Target == "" {
		return runBoard(ctx, interval.D, stdout, boardThere(client, pf, name, stderr))
	}
	if client != nil {
		return watchPane(ctx, interval.D, stdout, paneThere(client, pf, name, stderr))
	}
	if pf.pane.Target == "" {
		if *pf.providerFile != "" {
			fmt.Fprintln(stderr, "handoff-fsm watch: --provider-file reads one pane: give --target")
			return exitUsage
		}
		srv := pf.pane.Server(pf.tmuxWait.D)
		if _, err := srv.CheckVersion(ctx); errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
			fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
			return exitFailure
		}
		if _, err := provider.Lookup(name); err != nil && name != provider.Auto {
			fmt.Fprintf(stderr, "handoff-fsm watch: --provider: %v\n", err)
			return exitUsage
		}
		return runBoard(ctx, interval.D, stdout, boardHere(srv, name, *pf.history, stderr))
	}
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		return openFailed(stderr, "watch", err)
	}
	return watchPane(ctx, interval.D, stdout, func(ctx context.Context) (*serve.PaneRow, bool, int) {
		row, err := lookHere(ctx, pane)
		return &row, err != nil, exitOK
	})
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

// paneThere is the pane's look through the service; a tick when the
// service does not find it alone shows nothing.
func paneThere(e serve.Engine, pf *paneFlags, providerName string, stderr io.Writer) paneLook {
	return func(ctx context.Context) (*serve.PaneRow, bool, int) {
		rows, err := e.Panes(ctx, paneQuery(pf, providerName))
		if err != nil {
			if ctx.Err() == nil {
				fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
			}
			return nil, false, exitFailure
		}
		if len(rows) != 1 {
			return nil, false, exitOK
		}
		return &rows[0], rows[0].Gone, exitOK
	}
}

// paneQuery is the service's query (GET /v1/panes) for the flags' server,
// and their target's pane alone when one is named.
func paneQuery(pf *paneFlags, providerName string) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"socket": pf.pane.Socket, "socket_path": pf.pane.SocketPath, "target": pf.pane.Target, "provider": providerName} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// providerSet reports whether --provider was given.
func providerSet(fs *flag.FlagSet) bool { return flagGiven(fs, "provider") }

// flagGiven reports whether the flag name was given on the command line.
func flagGiven(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
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
	if client != nil {
		name := pf.pane.Provider
		if !providerSet(fs) && pf.pane.Target == "" {
			name = "auto"
		}
		return remoteWatch(ctx, client, pf, name, interval.D, stdout, stderr)
	}
	if pf.pane.Target == "" {
		if *pf.providerFile != "" {
			fmt.Fprintln(stderr, "handoff-fsm watch: --provider-file reads one pane: give --target")
			return exitUsage
		}
		name := pf.pane.Provider
		if !providerSet(fs) {
			name = "auto"
		}
		srv := pf.pane.Server(pf.tmuxWait.D)
		if _, err := srv.CheckVersion(ctx); errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
			fmt.Fprintf(stderr, "handoff-fsm watch: %v\n", err)
			return exitFailure
		}
		return runBoard(ctx, srv, name, *pf.history, interval.D, stdout, stderr)
	}
	pane, err := pf.open(tmuxdriver.Options{})
	if err != nil {
		return openFailed(stderr, "watch", err)
	}
	var last string
	t := time.NewTicker(interval.D)
	defer t.Stop()
	for {
		snap, err := pane.Observe(ctx)
		if ctx.Err() != nil {
			return exitOK
		}
		status, reason := snap.Classification.Status, snap.Classification.Reason
		if err != nil {
			status, reason = handoff.StatusError, err.Error()
		}
		// A change of reason alone (same status) is not news.
		key := string(status)
		if err != nil {
			key += "\x00" + reason
		}
		if key != last {
			fmt.Fprintf(stdout, "%s %-19s %s\n", time.Now().Format("15:04:05.000"), status, reason)
			last = key
		}
		select {
		case <-ctx.Done():
			return exitOK
		case <-t.C:
		}
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

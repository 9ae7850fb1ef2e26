package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/serve"
)

const waitUsage = `usage: handoff-fsm wait [--server ADDR] [--any | --all] [--json] ID...

Waits for dispatches of handoff-fsm serve (ids from send --server --no-wait, the API or mcp's
assign): with --any (the default) until the first of them ends, with --all until every one
has. It is woken by the service when a dispatch ends, not by polling.

--any prints the answer of the one that ended on stdout (the first named, if several had)
and on stderr which it was and which are still running; it exits with that dispatch's exit
code, as send would have. --all prints each answer on stdout under a line "=== ID (role,
exit N)" and exits 0 when every one was done from its response file, else with the first
other exit code in the order named. --json prints the service's answer instead:
{"ended":[…],"pending":[…]}. The service is --server, or HANDOFF_SERVER.

flags:
`

// runWait waits for one or all of several dispatches of the service.
func runWait(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("wait", waitUsage, stderr)
	server := fs.String("server", "", "the service at unix:PATH or tcp:HOST:PORT, or default (or HANDOFF_SERVER)")
	anyOf := fs.Bool("any", false, "until the first dispatch ends (the default)")
	all := fs.Bool("all", false, "until every dispatch has ended")
	asJSON := fs.Bool("json", false, "print the service's answer as JSON")
	ids, code, ok := parseArgs(fs, args)
	if !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "handoff-fsm wait: "+format+"\n", a...)
		fmt.Fprintln(stderr, "run handoff-fsm wait -h for the flags")
		return exitUsage
	}
	switch {
	case len(ids) == 0:
		return usageErr("give the ids of the dispatches to wait for")
	case *anyOf && *all:
		return usageErr("--any or --all, not both")
	}
	mode := serve.WaitAny
	if *all {
		mode = serve.WaitAll
	}
	client, err := serverClient(*server)
	if err != nil {
		return usageErr("%v", err)
	}
	if client == nil {
		return usageErr("no service: give --server (unix:PATH, tcp:HOST:PORT or default) or set HANDOFF_SERVER")
	}
	w, err := client.WaitFor(ctx, ids, mode)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm wait: %v\n", err)
		var se *serve.StatusError
		if errors.As(err, &se) && se.Code/100 == 4 {
			return exitUsage
		}
		return exitFailure
	}
	if ctx.Err() != nil {
		fmt.Fprintln(stderr, "handoff-fsm wait: interrupted")
		return exitFailure
	}
	if *asJSON {
		if err := writeJSON(stdout, w); err != nil {
			fmt.Fprintf(stderr, "handoff-fsm wait: %v\n", err)
			return exitFailure
		}
	}
	if mode == serve.WaitAny {
		v := w.Ended[0]
		if !*asJSON {
			printAnswer(stdout, v)
		}
		fmt.Fprintf(stderr, "handoff-fsm: %s (%s in %s) ended first: %s, exit %d", v.ID, v.Role, v.Target, v.Outcome, exitOfView(v))
		if len(w.Pending) > 0 {
			fmt.Fprintf(stderr, "; still running: %s", strings.Join(w.Pending, " "))
		}
		fmt.Fprintln(stderr)
		return exitOfView(v)
	}
	code = exitOK
	for _, v := range w.Ended {
		if !*asJSON {
			fmt.Fprintf(stdout, "=== %s (%s, exit %d)\n", v.ID, v.Role, exitOfView(v))
			printAnswer(stdout, v)
		}
		if e := exitOfView(v); e != exitOK && code == exitOK {
			code = e
		}
	}
	return code
}

// printAnswer prints a dispatch's answer (its error when it has none),
// ending with a line break.
func printAnswer(w io.Writer, v serve.View) {
	text := v.Error
	if v.Content != nil && v.Outcome == "done" {
		text = *v.Content
	}
	fmt.Fprint(w, text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(w)
	}
}

// exitOfView is the exit code send would have ended the dispatch with.
func exitOfView(v serve.View) int {
	if v.Exit == nil {
		return exitFailure
	}
	return *v.Exit
}

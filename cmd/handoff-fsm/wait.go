package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

const waitUsage = `usage: handoff-fsm wait [--server ADDR] [--any | --all] [--timeout D] [--json] ID...

Waits for dispatches of handoff-fsm serve (ids from send --server --no-wait, the API or mcp's
assign): with --any (the default) until the first of them ends, with --all until every one
has. It is woken by the service when a dispatch ends, not by polling.

--any prints the answer of the one that ended on stdout (the first named, if several had)
and on stderr which it was and which are still running; it exits with that dispatch's exit
code, as send would have. --all prints each answer on stdout under a line "=== ID (role,
exit N)" and exits 0 when every one was done from its response file, else with the first
other exit code in the order named. A dispatch that ended without an answer has its error
printed on stderr, never on stdout. --json prints the service's answer instead:
{"ended":[…],"pending":[…]}. The service is --server, or HANDOFF_SERVER.

--timeout D gives up after D (a Go duration or seconds): what ended by then is printed as
above, the ids still running are named on stderr, and wait exits 6. An id the service does
not know exits 2, naming it; nothing is waited for then.

flags:
`

// runWait waits for one or all of several dispatches of the service.
func runWait(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("wait", waitUsage, stderr)
	server := fs.String("server", "", "the service at unix:PATH or tcp:HOST:PORT, or default (or HANDOFF_SERVER)")
	anyOf := fs.Bool("any", false, "until the first dispatch ends (the default)")
	all := fs.Bool("all", false, "until every dispatch has ended")
	asJSON := fs.Bool("json", false, "print the service's answer as JSON")
	timeout := configflag.DurationVar(fs, "timeout", 0, "give up after this long, exit 6 (a Go duration or seconds; 0: no limit)")
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
	case timeout.D < 0:
		return usageErr("--timeout %s: want a duration of 0 or more", timeout.D)
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
	w, err := client.WaitFor(ctx, ids, mode, timeout.D)
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
	if !w.Satisfied(mode) {
		return waitTimedOut(w, *asJSON, timeout.D, stdout, stderr)
	}
	if mode == serve.WaitAny {
		return waitedAny(w, *asJSON, stdout, stderr)
	}
	return waitedAll(w, *asJSON, stdout, stderr)
}

// waitedAny reports the dispatch that ended first: its answer on stdout,
// which it was (and its error) on stderr, and its exit code.
func waitedAny(w serve.Waited, asJSON bool, stdout, stderr io.Writer) int {
	v := w.Ended[0]
	if !asJSON {
		printAnswer(stdout, stderr, v)
	}
	fmt.Fprintf(stderr, "handoff-fsm: %s (%s in %s) ended first: %s, exit %d", v.ID, v.Role, v.Target, v.Outcome, exitOfView(v))
	if len(w.Pending) > 0 {
		fmt.Fprintf(stderr, "; still running: %s", strings.Join(w.Pending, " "))
	}
	fmt.Fprintln(stderr)
	return exitOfView(v)
}

// waitedAll prints every answer under its header and returns 0, or the
// first other exit code in the order named.
func waitedAll(w serve.Waited, asJSON bool, stdout, stderr io.Writer) int {
	code := exitOK
	for _, v := range w.Ended {
		if !asJSON {
			fmt.Fprintf(stdout, "=== %s (%s, exit %d)\n", v.ID, v.Role, exitOfView(v))
			printAnswer(stdout, stderr, v)
		}
		if e := exitOfView(v); e != exitOK && code == exitOK {
			code = e
		}
	}
	return code
}

// waitTimedOut reports a wait whose --timeout ended first: the answers of
// the dispatches that ended, the ids still running, exit 6.
func waitTimedOut(w serve.Waited, asJSON bool, limit time.Duration, stdout, stderr io.Writer) int {
	if len(w.Ended) > 0 {
		waitedAll(w, asJSON, stdout, stderr)
	}
	fmt.Fprintf(stderr, "handoff-fsm wait: --timeout %s passed; still running: %s\n", limit, strings.Join(w.Pending, " "))
	return exitTimeout
}

// printAnswer prints a dispatch's answer on stdout, ending with a line
// break. A dispatch that ended without one (failed, cancelled) has its
// error printed on stderr: a script reading the answer from stdout never
// takes an error for it.
func printAnswer(stdout, stderr io.Writer, v serve.View) {
	if !v.Whole || v.Outcome != "done" {
		fmt.Fprintf(stderr, "handoff-fsm: %s (%s) ended without an answer: %s\n", v.ID, v.Role, v.Error)
		return
	}
	text := v.Content
	fmt.Fprint(stdout, text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(stdout)
	}
}

// exitOfView is the exit code send would have ended the dispatch with.
func exitOfView(v serve.View) int {
	if v.Exit == nil {
		return exitFailure
	}
	return *v.Exit
}

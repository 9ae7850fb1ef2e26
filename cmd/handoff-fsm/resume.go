package main

import (
	"context"
	"fmt"
	"io"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

const resumeUsage = `usage: handoff-fsm resume --state FILE [--json] [--wait-slot]

Continues a dispatch that ` + "`handoff-fsm send --state FILE`" + ` started and that did not finish: its
process was killed, the machine went down, or it was interrupted (Ctrl-C). Nothing is sent
again: the wait goes on from the state file's checkpoint, with the same pane, role, work folder
and settings, and ends exactly as the uninterrupted wait would have: the same outcome, the same
response on stdout, the same exit code (see send -h). A response the dead process had already
moved into the archive is taken from there. The state file is kept current as send keeps it.

The state file knows the pane the prompt went to (its tmux pane id, its process and the
server's, with their start times): when the target now names another pane, the pane runs
another process, or the tmux server was restarted, resume ends at once with a terminal error
(exit 4) saying what changed, and sends nothing.

A state file whose dispatch had finished prints the recorded outcome again, with its exit code,
without touching the pane. A malformed state file is an error naming the field (exit 2).

flags:
`

// runResume continues the wait a state file holds.
func runResume(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("resume", resumeUsage, stderr)
	statePath := fs.String("state", "", "the state file written by send --state (required)")
	asJSON := fs.Bool("json", false, "print the result object (as replay prints it) instead of the response")
	waitSlot := fs.Bool("wait-slot", false, "when another dispatch holds this role's response file, wait for it instead of failing at once")
	if code, ok := parseFlagsOnly(fs, args, stderr); !ok {
		return code
	}
	if *statePath == "" {
		fmt.Fprintln(stderr, "handoff-fsm resume: --state is required")
		return exitUsage
	}
	st, err := dispatchstate.Read(*statePath)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm resume: %v\n", err)
		return exitUsage
	}
	switch st.Next() {
	case dispatchstate.Report:
		return replayFinished(st, *asJSON, stdout, stderr)
	case dispatchstate.Resume:
	default:
		fmt.Fprintf(stderr, "handoff-fsm resume: %s: the prompt was never sent (or its sending was cut short); send it again\n", *statePath)
		return exitUsage
	}
	out := newProgress(stderr)
	l := &local{out: out, logger: engineLogger(out, nil), state: st, statePath: *statePath}
	if l.pane, err = st.Open(nil); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm resume: %v\n", err)
		return exitUsage
	}
	if err := l.start(false); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm resume: %v\n", err)
		return exitFailure
	}
	defer l.svc.Close()
	// The engine is given a copy: it names the dispatch its own way,
	// while l.state is the file's.
	again := *st
	again.WaitSlot = *waitSlot
	r := l.run(sendRun{cmd: "resume", target: st.Target, out: out, asJSON: *asJSON},
		func(context.Context) (serve.View, error) { return l.svc.Accept(serve.Request{State: &again}) })
	r.accepted = func(serve.View) {
		fmt.Fprintf(out, "handoff-fsm: resuming the wait on pane %s on the %s (role %s; poll %v, idle grace %v, timeout %v, strict %v)\n",
			l.pane.Target(), l.pane.Server(), st.Role, st.Config.Poll, st.Config.IdleGrace, st.Config.ResponseTimeout, st.Config.Strict())
	}
	_, code := l.wait(ctx, r, stdout)
	return code
}

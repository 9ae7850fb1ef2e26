package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// sendRun is a dispatch's life on an engine as send and resume show it:
// submit, narrate its transitions on stderr, wait, print its ending. The
// engine is the service --server names, or one in this process (local.go)
// without it: the run is the same.
type sendRun struct {
	cmd    string // the command, in messages
	engine serve.Engine
	// submit accepts the dispatch on engine.
	submit func(ctx context.Context) (serve.View, error)
	// target is the pane, named when the agent waits for the user.
	target string
	// out is stderr, drawing the live line on a terminal.
	out *progress
	// jsonLog, when set, is stderr as JSON lines (--log-format json).
	jsonLog        *jsonLines
	asJSON, noWait bool
	// accepted says that the engine took the dispatch.
	accepted func(v serve.View)
	// interrupted ends the dispatch when ctx ends before it (a service's
	// dispatch is cancelled; one of this process stops where it is) and
	// says so.
	interrupted func(id string)
}

// run submits, narrates and waits, prints the ending as finish does and
// returns the exit code, with the dispatch's final view (nil when it did
// not end: refused, interrupted).
func (r sendRun) run(ctx context.Context, stdout io.Writer) (*serve.View, int) {
	v, err := r.submit(ctx)
	switch {
	case errors.Is(err, serve.ErrBadInput):
		var se *serve.StatusError
		if errors.As(err, &se) {
			err = errors.New(se.APIError.Error)
		}
		fmt.Fprintf(r.out, "handoff-fsm %s: %v\n", r.cmd, err)
		return nil, exitUsage
	case err != nil:
		fmt.Fprintf(r.out, "handoff-fsm %s: %v\n", r.cmd, err)
		return nil, exitFailure
	}
	r.accepted(v)
	if r.noWait {
		fmt.Fprintln(stdout, v.ID)
		return nil, exitOK
	}
	done, stopEvents := r.narrate(ctx, v)
	defer stopEvents()
	final, err := serve.Wait(ctx, r.engine, v.ID)
	if ctx.Err() != nil {
		r.out.stop()
		r.interrupted(v.ID)
		return nil, exitFailure
	}
	if err != nil {
		fmt.Fprintf(r.out, "handoff-fsm %s: %v\n", r.cmd, err)
		return nil, exitFailure
	}
	// The finished event follows the last transition: the narration is
	// complete when it comes, which is at once (the final view is kept
	// before it is published); a stream that broke is not waited for long.
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	stopEvents()
	r.out.stop() // the ending is the last word
	return &final, finishView(r.cmd, final, r.asJSON, stdout, r.out)
}

// narrate prints dispatch v's transitions on stderr as the engine
// publishes them, until its finished event (done closes) or stop. Only
// this dispatch's events, from its acceptance on: the engine filters them
// and keeps what came before this stream opened, so no transition is
// missed and no other dispatch's event is carried.
func (r sendRun) narrate(ctx context.Context, v serve.View) (done <-chan struct{}, stop func()) {
	ectx, stop := context.WithCancel(ctx)
	events, err := r.engine.Events(ectx, v.ID, v.AcceptedSeq)
	if err != nil {
		// Narration only: the wait still says how it ends.
		fmt.Fprintf(r.out, "handoff-fsm %s: no progress from the service: %v\n", r.cmd, err)
		closed := make(chan serve.Event)
		close(closed)
		events = closed
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for e := range events {
			switch e.Type {
			case "finished":
				return
			case "transition":
				r.transition(e)
			case "attention":
				fmt.Fprintf(r.out, "handoff-fsm: the agent waits for you (a permission prompt or a question): answer it in pane %s, or use --auto-answer\n", r.target)
			case "gap":
				fmt.Fprintf(r.out, "handoff-fsm: %s\n", e.Message)
			}
		}
	}()
	return ended, stop
}

// transition prints one transition: a line, or with --log-format json
// an object of its own.
func (r sendRun) transition(e serve.Event) {
	if r.jsonLog != nil {
		logTransition(r.jsonLog.log, e)
		return
	}
	fmt.Fprintf(r.out, "handoff-fsm: %6.2fs  %s → %s  (%s; status %s)\n", e.At, e.From, e.To, e.Event, e.Status)
}

// finishView prints a dispatch of an engine that ended as send prints its
// ending (finish), and returns send's exit code for it.
func finishView(cmd string, final serve.View, asJSON bool, stdout, stderr io.Writer) int {
	f := final.Finished()
	rep := f.Report
	var reportPtr *trace.Report
	if rep.Outcome == "done" || rep.Outcome == "failed" {
		reportPtr = &rep
	}
	code := finish(cmd, reportPtr, f.Result(), f.Err(), asJSON, stdout, stderr)
	if code != f.Exit {
		return f.Exit
	}
	return code
}

// remoteRun is the run of a dispatch on the service --server names:
// interrupted, the dispatch is cancelled there.
func remoteRun(r sendRun, client *serve.Client, body serve.SubmitBody) sendRun {
	r.engine = client
	r.submit = func(ctx context.Context) (serve.View, error) { return client.Submit(ctx, body) }
	r.accepted = func(v serve.View) {
		fmt.Fprintf(r.out, "handoff-fsm: dispatch %s accepted by the service; sending to pane %s (role %s; poll %v, idle grace %v, timeout %v, strict %v)\n",
			v.ID, body.Target, body.Role, body.Config.Poll, body.Config.IdleGrace, body.Config.ResponseTimeout, body.Config.Strict())
	}
	r.interrupted = func(id string) {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if c, err := client.Cancel(cctx, id); err == nil {
			fmt.Fprintf(r.out, "handoff-fsm %s: interrupted; dispatch %s cancelled (%s)\n", r.cmd, id, c.State)
		}
	}
	return r
}

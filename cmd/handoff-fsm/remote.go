package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// remoteFlags are the send flags besides the config's (configFlags, all
// of which a service takes) that a service takes; any other given with
// --server is refused rather than silently ignored.
var remoteFlags = map[string]bool{
	"server": true, "target": true, "socket": true, "socket-path": true, "provider": true, "history": true,
	"allow-shell": true, "tmux-timeout": true, "role": true, "workdir": true, "prompt": true, "prompt-file": true,
	"json": true, "log-format": true, "wait-slot": true, "no-wait": true,
}

// remoteSend is a send through a service (send --server): the same
// prompt, pane and settings, the same stdout and exit code.
type remoteSend struct {
	client   *serve.Client
	pf       *paneFlags
	role     string
	workdir  string
	cfg      handoff.Config
	prompt   string
	waitSlot bool
	asJSON   bool
	// noWait: print the id once accepted, and exit.
	noWait bool
}

// unsupportedRemote names a flag given that a service does not take.
func unsupportedRemote(fs *flag.FlagSet) string {
	bad := ""
	fs.Visit(func(f *flag.Flag) {
		if !remoteFlags[f.Name] && !configflag.IsFlag(f.Name) && bad == "" {
			bad = f.Name
		}
	})
	return bad
}

// run submits the dispatch, narrates its transitions on stderr as a local
// send does, and prints its ending.
func (r remoteSend) run(ctx context.Context, stdout, stderr io.Writer) int {
	workdir, err := filepath.Abs(r.workdir)
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm send: --workdir: %v\n", err)
		return exitUsage
	}
	tmuxTimeout := r.pf.tmuxWait.D.Seconds()
	history := *r.pf.history
	body := serve.SubmitBody{Pane: r.pf.pane, Role: r.role,
		Workdir: workdir, Prompt: r.prompt, History: &history, AllowShell: *r.pf.allowShell,
		TmuxTimeout: &tmuxTimeout, WaitSlot: r.waitSlot, Config: &r.cfg}
	v, err := r.client.Submit(ctx, body)
	var se *serve.StatusError
	switch {
	case errors.As(err, &se) && se.Code == http.StatusBadRequest:
		fmt.Fprintf(stderr, "handoff-fsm send: %s\n", se.APIError.Error)
		return exitUsage
	case err != nil:
		fmt.Fprintf(stderr, "handoff-fsm send: %v\n", err)
		return exitFailure
	}
	fmt.Fprintf(stderr, "handoff-fsm: dispatch %s accepted by the service; sending to pane %s (role %s; poll %v, idle grace %v, timeout %v, strict %v)\n",
		v.ID, r.pf.pane.Target, r.role, r.cfg.Poll, r.cfg.IdleGrace, r.cfg.ResponseTimeout, r.cfg.Strict())
	if r.noWait {
		fmt.Fprintln(stdout, v.ID)
		return exitOK
	}
	done, stopEvents := r.narrate(ctx, v, stderr)
	defer stopEvents()
	final, err := serve.Wait(ctx, r.client, v.ID)
	if ctx.Err() != nil {
		// Interrupted: the dispatch is cancelled, as a local send stops.
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if c, cerr := r.client.Cancel(cctx, v.ID); cerr == nil {
			fmt.Fprintf(stderr, "handoff-fsm send: interrupted; dispatch %s cancelled (%s)\n", v.ID, c.State)
		}
		return exitFailure
	}
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm send: %v\n", err)
		return exitFailure
	}
	// The finished event follows the last transition: the narration is
	// complete when it comes, which is at once (the final view is kept
	// before it is published); a stream that broke is not waited for long.
	select {
	case <-done:
	case <-time.After(2 * time.Second):
	}
	stopEvents()
	return finishView(final, r.asJSON, stdout, stderr)
}

// narrate prints dispatch v's transitions on stderr as the service
// publishes them, until its finished event (done closes) or stop. Only
// this dispatch's events, from its acceptance on: the service filters them
// and keeps what came before this stream opened, so no transition is
// missed and no other dispatch's event is carried.
func (r remoteSend) narrate(ctx context.Context, v serve.View, stderr io.Writer) (done <-chan struct{}, stop func()) {
	ectx, stop := context.WithCancel(ctx)
	events, err := r.client.Events(ectx, v.ID, v.AcceptedSeq)
	if err != nil {
		// Narration only: the wait still says how it ends.
		fmt.Fprintf(stderr, "handoff-fsm send: no progress from the service: %v\n", err)
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
				fmt.Fprintf(stderr, "handoff-fsm: %6.2fs  %s → %s  (%s; status %s)\n", e.At, e.From, e.To, e.Event, e.Status)
			case "attention", "gap":
				fmt.Fprintf(stderr, "handoff-fsm: %s\n", e.Message)
			}
		}
	}()
	return ended, stop
}

// finishView prints a dispatch of the service that ended as send prints
// its own (finish), and returns send's exit code for it.
func finishView(final serve.View, asJSON bool, stdout, stderr io.Writer) int {
	f := final.Finished()
	rep := f.Report
	var reportPtr *trace.Report
	if rep.Outcome == "done" || rep.Outcome == "failed" {
		reportPtr = &rep
	}
	code := finish("send", reportPtr, f.Result(), f.Err(), asJSON, stdout, stderr)
	if code != f.Exit {
		return f.Exit
	}
	return code
}

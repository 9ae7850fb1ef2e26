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
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// remoteFlags are the send flags a service takes; any other given with
// --server is refused rather than silently ignored.
var remoteFlags = map[string]bool{
	"server": true, "target": true, "socket": true, "socket-path": true, "provider": true, "history": true,
	"allow-shell": true, "tmux-timeout": true, "role": true, "workdir": true, "prompt": true, "prompt-file": true,
	"poll": true, "idle-grace": true, "timeout": true, "strict": true, "max-poll-failures": true,
	"json": true, "log-format": true, "wait-slot": true,
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
}

// unsupportedRemote names a flag given that a service does not take.
func unsupportedRemote(fs *flag.FlagSet) string {
	bad := ""
	fs.Visit(func(f *flag.Flag) {
		if !remoteFlags[f.Name] && bad == "" {
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
	secs := func(d time.Duration) *float64 { v := d.Seconds(); return &v }
	strict, failures, maxBytes := r.cfg.Strict(), r.cfg.MaxPollFailures, r.cfg.MaxResponseBytes
	history := *r.pf.history
	body := serve.SubmitBody{Target: *r.pf.target, Socket: *r.pf.socket, SocketPath: *r.pf.socketPath, Role: r.role,
		Workdir: workdir, Prompt: r.prompt, Provider: *r.pf.provider, History: &history, AllowShell: *r.pf.allowShell,
		TmuxTimeout: secs(r.pf.tmuxWait.d), WaitSlot: r.waitSlot,
		Config: &serve.ConfigBody{Poll: secs(r.cfg.Poll), IdleGrace: secs(r.cfg.IdleGrace), ResponseTimeout: secs(r.cfg.ResponseTimeout),
			Strict: &strict, MaxPollFailures: &failures, MaxResponseBytes: &maxBytes}}
	// Listen first, so no transition is missed.
	ectx, stopEvents := context.WithCancel(ctx)
	defer stopEvents()
	events, err := r.client.Events(ectx, "")
	if err != nil {
		fmt.Fprintf(stderr, "handoff-fsm send: %v\n", err)
		return exitFailure
	}
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
		v.ID, *r.pf.target, r.role, r.cfg.Poll, r.cfg.IdleGrace, r.cfg.ResponseTimeout, r.cfg.Strict())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for e := range events {
			switch {
			case e.ID != v.ID:
			case e.Type == "transition":
				fmt.Fprintf(stderr, "handoff-fsm: %6.2fs  %s → %s  (%s; status %s)\n", e.At, e.From, e.To, e.Event, e.Status)
			case e.Type == "attention":
				fmt.Fprintf(stderr, "handoff-fsm: %s\n", e.Message)
			}
		}
	}()
	final, err := r.client.Wait(ctx, v.ID)
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
	// The transitions are in the final view: let the narration catch up a
	// moment, not more.
	select {
	case <-done:
	case <-time.After(200 * time.Millisecond):
	}
	stopEvents()
	rep := final.Report()
	f := dispatchstate.Finished{Exit: *final.Exit, Report: rep, Error: final.Error, ArchivedPath: final.ArchivedPath}
	var reportPtr *trace.Report
	if rep.Outcome == "done" || rep.Outcome == "failed" {
		reportPtr = &rep
	}
	code := finish("send", reportPtr, f.Result(), f.Err(), r.asJSON, stdout, stderr)
	if code != f.Exit {
		return f.Exit
	}
	return code
}

package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
	"github.com/handoff-fsm/handoff-fsm/tracing"
)

// local is the engine of a send without --server (and of resume and
// demo): a serve.Service in this process's memory, given the command's
// own part of its dispatch (part). A service, so that the send's run is
// the one it has on a remote service (sendRun); in memory, so that it
// adds to a local send next to nothing (no state folder to write, sync
// or lock, no tmux call: only the slot's lock probed once more at the
// submission, and the events passed through a channel). What only a
// local send does stays with it:
// the pane its flags opened (--provider-file, --enter-delay, --control),
// the live line and --record from every look, --settle, the engine's log
// on stderr, --state, its span.
type local struct {
	svc *serve.Service
	// pane is the pane the flags opened; nil: the state's (resume).
	pane    *tmuxdriver.Pane
	control *tmuxdriver.Control
	out     *progress
	logger  *slog.Logger
	settle  time.Duration
	// rec records every look (--record) under receipt.
	rec     *trace.Recorder
	receipt handoff.Receipt
	// state is kept at statePath after every checkpoint (--state).
	state     *dispatchstate.State
	statePath string
	tracer    *tracing.Tracer
	provider  string // for the span
}

// start starts the in-process engine.
func (l *local) start(events bool) error {
	svc, err := serve.New(serve.Options{Events: events, Logger: l.logger, Dispatch: l.part})
	l.svc = svc
	return err
}

// run is r on the in-process engine, submitting with submit; stopped,
// the dispatch stops where it is (resumable from --state), as the
// process ends.
func (l *local) run(r sendRun, submit func(context.Context) (serve.View, error)) sendRun {
	r.engine, r.submit = l.svc, submit
	r.interrupted = func(string) {
		l.svc.Close()
		fmt.Fprintf(r.out, "handoff-fsm %s: %v\nhandoff-fsm %s: interrupted\n", r.cmd, context.Canceled, r.cmd)
	}
	return r
}

// part is the command's part of its dispatch's recipe, after the
// service's own.
func (l *local) part(st *dispatchstate.State, h *dispatchstate.Hooks) {
	if l.pane != nil {
		op := dispatchstate.OpenPane{Pane: l.pane}
		if l.control != nil {
			// One control-mode client carries the looks and reports the
			// pane's output.
			op.Output, h.Wake.CheapLooks = l.control.Hints(), true
		}
		h.Pane = func(context.Context) (dispatchstate.OpenPane, error) { return op, nil }
	}
	service := h.Options
	h.Options = func(o *fsm.Options) {
		service(o)
		l.options(o)
	}
	h.OnWakeError = func(err error) {
		fmt.Fprintf(l.out, "handoff-fsm: %v; polling every %v for it instead\n", err, st.Config.Poll)
	}
	if l.tracer != nil {
		h.SendAndWait = func(ctx context.Context, s handoff.Sender, t handoff.Terminal, prompt string, opts fsm.Options) (fsm.Result, error) {
			return l.tracer.SendAndWait(ctx, tracing.Dispatch{Role: st.Role, Provider: l.provider, Pane: st.Target}, s, t, prompt, opts)
		}
	}
}

// options adds the command's part to the engine's options the service set.
func (l *local) options(o *fsm.Options) {
	o.Logger, o.Settle = l.logger, l.settle
	polled := o.OnPoll
	o.OnPoll = func(p fsm.Poll) {
		polled(p)
		l.out.poll(p)
		if l.rec != nil {
			l.rec.Poll(p)
		}
	}
	if l.rec != nil {
		o.Receipt = l.receipt // the recording carries it
	}
	if l.state != nil {
		kept, save := o.OnCheckpoint, l.state.Saver(l.statePath)
		o.OnCheckpoint = func(cp fsm.Checkpoint) error {
			if err := kept(cp); err != nil {
				return err
			}
			return save(cp)
		}
	}
}

// engineLogger is the engine's log as send shows it: lines for people
// (without times) through out, or with jsonLog JSON objects.
func engineLogger(out *progress, jsonLog *jsonLines) *slog.Logger {
	if jsonLog != nil {
		return jsonLog.log
	}
	return slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}))
}

// open opens the pane the flags name (over a control-mode client with
// --control and --events); code is the exit code when it cannot.
func (l *local) open(ctx context.Context, fs *flag.FlagSet, f *sendFlags, usageErr func(string, ...any) int) (code int, ok bool) {
	// Unless given, the pause is the provider's (pf.options), else the default.
	delay := f.enterDelay.D
	if !flagGiven(fs, "enter-delay") {
		delay = 0
	}
	po, err := f.pf.options(tmuxdriver.Options{EnterDelay: delay})
	if errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
		fmt.Fprintf(l.out, "handoff-fsm send: %v\n", err)
		return exitFailure, false
	}
	if err != nil {
		return usageErr("%v", err), false
	}
	if *f.events && *f.control {
		// A target it cannot find is left to the wait to report.
		if o, c, err := tmuxdriver.StartControl(ctx, po, func(err error) {
			fmt.Fprintf(l.out, "handoff-fsm: tmux control mode is unavailable (%v); polling with one tmux process per look\n", err)
		}); err == nil {
			po, l.control = o, c
		}
	}
	if l.pane, err = tmuxdriver.New(po); err != nil {
		if l.control != nil {
			l.control.Close()
		}
		return usageErr("%v", err), false
	}
	return 0, true
}

// startRecord starts --record's trace ("": none) of the dispatch b asks
// for, under the receipt the engine will be given; closeRecord closes
// its file.
func (l *local) startRecord(path string, b serve.SubmitBody) (closeRecord func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	roles, _, err := handoff.ResolveRole(b.Role)
	if err != nil {
		return nil, err
	}
	resp, err := roles.Path(b.Workdir, b.Role)
	if err != nil {
		return nil, err
	}
	if l.receipt, err = handoff.ReceiptFor(b.Prompt, resp, rand.Reader); err != nil {
		return nil, err
	}
	f, err := trace.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--record: %w", err)
	}
	if l.rec, err = trace.NewRecorder(f, *b.Config, l.receipt); err != nil {
		f.Close()
		return nil, fmt.Errorf("--record: %w", err)
	}
	return func() { f.Close() }, nil
}

// wait runs r with the live line drawn, then says what --record and
// --state need said.
func (l *local) wait(ctx context.Context, r sendRun, stdout io.Writer) (*serve.View, int) {
	pctx, stopProgress := context.WithCancel(ctx)
	go l.out.run(pctx)
	final, code := r.run(ctx, stdout)
	stopProgress()
	l.out.stop()
	if l.rec != nil {
		if err := l.rec.Err(); err != nil {
			fmt.Fprintf(l.out, "handoff-fsm: --record: %v\n", err)
		}
	}
	if l.state != nil {
		finishState(l.state, l.statePath, final, l.out)
	}
	return final, code
}

// dispatch runs the dispatch b asks for on the in-process engine, shown
// as r says, with --record's trace (record, "" for none) and the response
// file's watch (events); it returns the final view (nil when the dispatch
// did not end: refused, interrupted) and the exit code.
func (l *local) dispatch(ctx context.Context, r sendRun, b serve.SubmitBody, record string, events bool, stdout io.Writer) (*serve.View, int) {
	closeRecord, err := l.startRecord(record, b)
	if err != nil {
		fmt.Fprintf(r.out, "handoff-fsm %s: %v\n", r.cmd, err)
		return nil, exitFailure
	}
	defer closeRecord()
	var shutdown func()
	l.tracer, shutdown = otelTracer(ctx, r.out)
	defer shutdown()
	if err := l.start(events); err != nil {
		fmt.Fprintf(r.out, "handoff-fsm %s: %v\n", r.cmd, err)
		return nil, exitFailure
	}
	defer l.svc.Close()
	r = l.run(r, func(ctx context.Context) (serve.View, error) { return l.svc.Submit(ctx, b) })
	r.accepted = func(serve.View) {
		fmt.Fprintf(r.out, "handoff-fsm: sending to pane %s on the %s (role %s; poll %v, idle grace %v, timeout %v, strict %v)\n",
			l.pane.Target(), l.pane.Server(), b.Role, b.Config.Poll, b.Config.IdleGrace, b.Config.ResponseTimeout, b.Config.Strict())
	}
	return l.wait(ctx, r, stdout)
}

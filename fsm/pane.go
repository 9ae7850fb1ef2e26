package fsm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
)

// What a dispatch does about its pane, around the wait: one dispatch per
// pane at a time (the pane lock), no paste into a busy agent, a timed-out
// dispatch remembered, and a resumed wait that knows its pane. All of it
// needs a terminal that can say which pane it is (handoff.Identifier),
// except the look before the paste.

// BusyError is the error of a dispatch that did not paste because the
// agent was busy (errors.Is handoff.ErrAgentBusy): what it showed, since
// when, and for how long the dispatch waited.
type BusyError struct {
	Role string
	// Pane names the pane ("" when the terminal does not say).
	Pane string
	// Status is the last status seen.
	Status handoff.Status
	// Since is when the agent was first seen busy: the start of the
	// timed-out dispatch it still works on when there is one (TimedOut),
	// else this dispatch's first look.
	Since  time.Time
	Waited time.Duration
	// TimedOut is the earlier dispatch the agent still works on, if one
	// timed out on this pane.
	TimedOut *panelock.TimedOut
}

func (e *BusyError) Error() string {
	pane := "the agent"
	if e.Pane != "" {
		pane = "the agent in " + e.Pane
	}
	msg := fmt.Sprintf("%s: %v: %s showed no ready prompt within %v (status %s since %s at least)",
		e.Role, handoff.ErrAgentBusy, pane, e.Waited.Round(time.Millisecond), e.Status, e.Since.Format("15:04:05"))
	if e.TimedOut != nil {
		msg += "; it is still working on " + e.TimedOut.Describe()
	}
	return msg + "; nothing was sent: wait longer (--busy-wait, Config.BusyWait) or paste into the agent's own queue (--when-busy=queue, Config.QueueWhenBusy)"
}

// Is makes errors.Is(err, handoff.ErrAgentBusy) true.
func (e *BusyError) Is(target error) bool { return target == handoff.ErrAgentBusy }

// lockPane learns which pane term is and takes its lock for the whole
// dispatch (nil when term cannot say which pane it is). A pane that is
// gone, or a resumed wait's pane that changed, takes no lock: term is
// replaced by one that reports it as a terminal error on the first look, so
// the dispatch ends as the table says (and a state file records it).
func (r *run) lockPane(ctx context.Context, term handoff.Terminal) (*panelock.Lock, handoff.Terminal, error) {
	idt, ok := term.(handoff.Identifier)
	if !ok {
		return nil, term, nil
	}
	id, err := idt.Identity(ctx)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, term, ctx.Err()
	case errors.Is(err, handoff.ErrTerminalGone):
		return nil, lostTerminal{err}, nil
	default:
		return nil, term, fmt.Errorf("%s: %w", r.Role, err)
	}
	if cp := r.Resume; cp != nil && cp.Pane != nil {
		if what := cp.Pane.Changes(id); what != "" {
			return nil, lostTerminal{fmt.Errorf("%w since the prompt was sent: %s", handoff.ErrPaneChanged, what)}, nil
		}
	}
	r.ident = &id
	if r.PaneDir == "" {
		if r.PaneDir, err = panelock.Dir(); err != nil {
			return nil, term, err
		}
	}
	l, err := panelock.Acquire(ctx, r.PaneDir, id,
		panelock.Holder{PID: os.Getpid(), Role: r.Role, Workdir: r.Workdir, Since: time.Now()}, r.WaitSlot)
	if err != nil {
		return nil, term, fmt.Errorf("%s: %w", r.Role, err)
	}
	return l, term, nil
}

// lostTerminal stands for a pane that is gone, or is not the one the prompt
// went to: every look is a terminal error saying why.
type lostTerminal struct{ err error }

func (c lostTerminal) Status(context.Context) (handoff.Status, error) {
	return handoff.StatusError, c.err
}
func (c lostTerminal) LastOutput(context.Context) (string, error) { return "", c.err }

// timedOut is the pane's timed-out dispatch, if any.
func (r *run) timedOut() *panelock.TimedOut {
	if r.ident == nil {
		return nil
	}
	return panelock.TimedOutOn(r.PaneDir, *r.ident)
}

// paneName names the pane for messages; "" when unknown.
func (r *run) paneName() string {
	if r.ident == nil {
		return ""
	}
	return r.ident.String()
}

// ready looks at the agent before the paste and returns once it shows a
// ready prompt (idle/completed). Unless Config.QueueWhenBusy, an agent that
// works or waits for the user is waited for, up to Config.BusyWait, then
// the dispatch fails with a *BusyError and nothing is sent. With settle
// (Options.Settle) it also wants the ready prompt on two looks in a row
// and waits up to settle for it: agents ignore input while they start. An
// agent seen busy must look ready twice in a row too (the next queued turn
// may be about to start). A ready agent clears the pane's timed-out marker:
// that turn is over.
func (r *run) ready(ctx context.Context, term handoff.Terminal, settle time.Duration) error {
	check := !r.Config.QueueWhenBusy
	if m := r.timedOut(); m != nil && !check {
		r.Logger.Warn("pasting into the agent's own queue: it may still be working on "+m.Describe(), "role", r.Role)
	}
	if settle <= 0 && !check {
		return nil
	}
	bound, need := settle, 1
	if settle > 0 {
		need = 2
	}
	if check {
		bound = max(bound, r.Config.BusyWait)
	}
	step := min(r.Config.Poll, 250*time.Millisecond)
	began := r.Clock.Now()
	deadline := began.Add(bound)
	var since time.Time
	quiet, failures := 0, 0
	for {
		st, err := term.Status(ctx)
		switch {
		case err == nil:
			failures = 0
		case ctx.Err() != nil:
			return ctx.Err()
		case st == handoff.StatusError || errors.Is(err, handoff.ErrTerminalGone):
			return fmt.Errorf("%s: before sending: %w: %w", r.Role, handoff.ErrTerminalError, err)
		case errors.Is(err, handoff.ErrNothingShown):
			// Alive and blank: no ready prompt yet, and no failed look.
			quiet = 0
		default:
			// One failed look (tmux busy): try again, as the wait does.
			if failures++; failures >= r.Config.MaxPollFailures {
				return fmt.Errorf("%s: before sending: %w: %w", r.Role, handoff.ErrTerminalError, err)
			}
		}
		switch {
		case err != nil:
		case st.Quiet():
			if quiet++; quiet >= need {
				r.readyNow(began, since)
				return nil
			}
		default:
			quiet, need = 0, 2
			if since.IsZero() {
				since = r.Clock.Now()
				r.Logger.Info("the agent is busy: waiting for a ready prompt before sending", "role", r.Role, "status", st, "wait", bound)
			}
		}
		now := r.Clock.Now()
		if !now.Before(deadline) {
			if since.IsZero() {
				since = began
			}
			e := &BusyError{Role: r.Role, Pane: r.paneName(), Status: st, Since: since, Waited: now.Sub(began), TimedOut: r.timedOut()}
			if e.TimedOut != nil && e.TimedOut.Started.Before(since) {
				e.Since = e.TimedOut.Started
			}
			return e
		}
		if err := r.wake.sleep.SleepUntil(ctx, now.Add(min(step, deadline.Sub(now)))); err != nil {
			return err
		}
	}
}

// readyNow notes that the agent is ready to take the prompt: said on the log
// when the dispatch had to wait, and the pane's timed-out dispatch, if any,
// is over.
func (r *run) readyNow(began, busySince time.Time) {
	if !busySince.IsZero() {
		r.Logger.Info("the agent shows a ready prompt: sending", "role", r.Role, "waited", r.Clock.Since(began))
	}
	m := r.timedOut()
	if m == nil {
		return
	}
	msg := "the agent finished " + m.Describe()
	if m.Role == r.Role && m.Workdir == r.Workdir {
		msg += "; a late answer it wrote is archived as stale, not taken"
	}
	r.Logger.Info(msg, "role", r.Role)
	if err := panelock.ClearTimedOut(r.PaneDir, *r.ident); err != nil {
		r.Logger.Warn("could not clear the timed-out dispatch's marker", "role", r.Role, "error", err)
	}
}

// after records what the pane is left doing: a timeout leaves the agent
// working on this prompt, so the pane is marked with it; an answer means
// the agent is ready, so any earlier mark is cleared.
func (r *run) after(res Result, err error, prompt string) {
	if r.ident == nil {
		return
	}
	switch {
	case err == nil:
		if e := panelock.ClearTimedOut(r.PaneDir, *r.ident); e != nil {
			r.Logger.Warn("could not clear the timed-out dispatch's marker", "role", r.Role, "error", e)
		}
	case errors.Is(err, handoff.ErrTimeout):
		m := panelock.TimedOut{Role: r.Role, Workdir: r.Workdir, PromptHead: panelock.PromptHead(strings.TrimSpace(prompt)),
			Started: res.DispatchedAt, TimedOutAt: res.DispatchedAt.Add(res.Elapsed), PID: os.Getpid(), Pane: *r.ident}
		if e := panelock.MarkTimedOut(r.PaneDir, m); e != nil {
			r.Logger.Warn("could not mark the pane busy with the timed-out dispatch", "role", r.Role, "error", e)
			return
		}
		r.Logger.Warn("the agent still works on this prompt: the pane is marked busy with it until a later dispatch sees it ready",
			"role", r.Role, "pane", r.ident.String())
	}
}

package serve

import (
	"context"
	"errors"
	"fmt"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/tracing"
)

// run is one dispatch's life in this service: send (or resume) and wait,
// then record how it ended.
func (s *Service) run(ctx context.Context, d *dispatch) {
	defer close(d.done)
	defer s.release(d)
	st := d.snapshot()
	switch st.Next() {
	case dispatchstate.Report:
		return
	case dispatchstate.Unsure:
		s.finish(d, s.cutInPaste(ctx, st))
		return
	}
	if err := s.takeSlot(ctx, d); err != nil {
		return // the service stops, or the dispatch was cancelled
	}
	res, err := s.wait(ctx, d, st)
	if s.ctx.Err() != nil && !d.isCancelled() {
		// The service stops: the state file keeps the dispatch for the
		// next one.
		return
	}
	if d.isCancelled() {
		s.finish(d, s.cancelled(d, res))
		return
	}
	f := dispatchstate.FinishedOf(res, err, time.Now().UTC())
	if f == nil { // the context ended without a cancel or a stop
		f = &dispatchstate.Finished{Exit: dispatchstate.ExitOther, Error: fmt.Sprint(err), Ended: time.Now().UTC()}
		f.Report.Outcome, f.Report.Transitions = dispatchstate.OutcomeError, reportOf(res).Transitions
	}
	s.finish(d, f)
}

// cutInPaste ends a dispatch the previous service died pasting. Its prompt
// may sit unsent in the agent's composer, where the next paste would join
// it into one message: when the provider reads the composer and the prompt
// is there, it is cleared and the ending says it never reached the agent;
// otherwise no one can tell, and the ending says that.
func (s *Service) cutInPaste(ctx context.Context, st dispatchstate.State) *dispatchstate.Finished {
	term, release, err := s.tmux.pane(ctx, &st)
	if err == nil {
		defer release()
		cleared, err := term.pane.ClearUnsent(ctx, st.Prompt)
		if err != nil {
			s.log.Warn("a dispatch cut in its paste: its pane could not be looked at", "id", st.ID, "error", err)
		}
		if cleared {
			return dispatchstate.ClearedWhileSending(time.Now().UTC())
		}
	}
	return dispatchstate.InterruptedWhileSending(time.Now().UTC())
}

// takeSlot waits until no other dispatch of the service holds d's response
// slot, and takes it: dispatches of the service to one slot go one after
// the other (a wait_slot one waits for the holder); another process's
// lock is the engine's business (fsm.Options.WaitSlot).
func (s *Service) takeSlot(ctx context.Context, d *dispatch) error {
	p, err := d.responsePath()
	if err != nil {
		return nil // the engine reports it
	}
	if err := s.slots.take(ctx, p, d); err != nil {
		if d.isCancelled() {
			s.finish(d, s.cancelled(d, fsm.Result{}))
		}
		return err
	}
	return nil
}

// release frees d's slot in the service's table.
func (s *Service) release(d *dispatch) {
	if p, err := d.responsePath(); err == nil {
		s.slots.release(p, d)
	}
}

// wait sends the dispatch (or resumes its wait) through the engine
// (dispatchstate.Run): on the pane of the service's shared tmux client,
// woken by the response file's watch (on the service's shared watch) and
// the pane's output, each transition published, the paste marked before
// it starts.
func (s *Service) wait(ctx context.Context, d *dispatch, st dispatchstate.State) (fsm.Result, error) {
	log := s.log.With("id", st.ID, "role", st.Role)
	if st.Next() == dispatchstate.Resume {
		log.Info("resuming the wait", "target", st.Target)
	}
	h := dispatchstate.Hooks{
		Pane: func(ctx context.Context) (dispatchstate.OpenPane, error) {
			term, release, err := s.tmux.pane(ctx, &st)
			return dispatchstate.OpenPane{Pane: term.pane, Output: term.wake, Release: release}, err
		},
		Options: func(opts *fsm.Options) {
			opts.Logger = log
			opts.Observer = func(e fsm.Entry) {
				d.setState(string(e.To))
				s.hub.publish(Event{Type: "transition", ID: st.ID, Role: st.Role, From: string(e.From), To: string(e.To),
					Event: string(e.Event), Status: string(e.Status), State: string(e.To), At: e.At.Sub(d.dispatchedAt()).Seconds()})
			}
			opts.OnPoll = d.polled
			if s.o.OnPoll != nil {
				opts.OnPoll = func(p fsm.Poll) { d.polled(p); s.o.OnPoll(st.ID, st.Role, p) }
			}
			opts.OnAttention = func(p fsm.Poll) {
				s.hub.publish(Event{Type: "attention", ID: st.ID, Role: st.Role,
					Message: "the agent waits for the user (a permission prompt or a question): answer it in pane " + st.Target})
			}
			opts.OnCheckpoint = d.checkpoint
		},
		Wake:        fsm.WakeSources{Watches: s.watches},
		WatchFile:   s.o.Events,
		OnWakeError: func(err error) { log.Warn("polling only", "error", err) },
		Sender:      func(pane *tmuxdriver.Pane) handoff.Sender { return &markingSender{d: d, pane: pane, s: s} },
	}
	if s.o.Tracer != nil {
		h.SendAndWait = func(ctx context.Context, sender handoff.Sender, t handoff.Terminal, prompt string, opts fsm.Options) (fsm.Result, error) {
			return s.o.Tracer.SendAndWait(ctx, tracing.Dispatch{Role: st.Role, Provider: st.Provider, Pane: st.Target}, sender, t, prompt, opts)
		}
	}
	if s.o.Dispatch != nil {
		s.o.Dispatch(&st, &h)
	}
	return dispatchstate.Run(ctx, &st, h)
}

// markingSender records that the paste starts before it does, so a
// service killed during it does not paste again after a restart.
type markingSender struct {
	d    *dispatch
	pane handoff.Sender
	s    *Service
	sent bool
}

func (m *markingSender) Send(ctx context.Context, text string) error {
	if !m.sent {
		m.sent = true
		if err := m.d.markSending(); err != nil {
			return fmt.Errorf("keep the dispatch before pasting: %w", err)
		}
		m.d.setState(StateSending)
	}
	return m.pane.Send(ctx, text)
}

// SendKeys types automatic answers (Config.AutoAnswer) when the pane can.
func (m *markingSender) SendKeys(ctx context.Context, keys string) error {
	k, ok := m.pane.(handoff.KeySender)
	if !ok {
		return errors.New("the pane cannot type keys")
	}
	return k.SendKeys(ctx, keys)
}

// finish records d's ending durably and tells the event stream.
func (s *Service) finish(d *dispatch, f *dispatchstate.Finished) {
	if err := d.finish(f); err != nil {
		s.log.Error("the dispatch's ending could not be kept", "id", d.st.ID, "error", err)
	}
	v := d.view(false)
	s.hub.publish(Event{Type: "finished", ID: v.ID, Role: v.Role, State: v.State, Outcome: v.Outcome, Exit: v.Exit, Message: v.Error})
	s.settle(d)
}

func nextName(n dispatchstate.Next) string {
	return [...]string{"send", "resume", "report", "unsure"}[n]
}

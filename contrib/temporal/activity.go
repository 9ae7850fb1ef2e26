// Package handofftemporal runs handoff-fsm dispatches as durable Temporal
// activities and the specification's three-agent loop as a Temporal
// workflow. It is a module of its own (contrib/temporal), so that embedding
// the core engine never pulls Temporal in.
//
// A worker runs on each host that has agent panes, on a task queue named
// after the host (Address: "HOST/TARGET"); the workflow sends each dispatch
// to its pane's host. A dispatch heartbeats its checkpoint (fsm.Checkpoint)
// at every poll, so when Temporal retries it on another worker process (the
// first one died, its heartbeat timed out) the wait goes on from the last
// checkpoint the server holds, and the prompt is not pasted again.
package handofftemporal

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// DispatchInput is one dispatch: the pane on the worker's host, the
// provider reading its screen, the role, the work folder, the prompt and
// the engine's settings.
type DispatchInput struct {
	// Pane is the pane on the worker's host (its keys inline: target,
	// socket, socket_path, provider; "" the default server and provider).
	dispatchstate.Pane
	Role string `json:"role"`
	// Workdir is the project folder on the worker's host (absolute).
	Workdir string `json:"workdir"`
	Prompt  string `json:"prompt"`
	// Config is the engine's settings; the zero Config is the spec's
	// defaults.
	Config handoff.Config `json:"config"`
}

// DispatchOutput is a dispatch that produced a response.
type DispatchOutput struct {
	Content string `json:"content"`
	// Source is "file" or "fallback".
	Source string `json:"source"`
	// Outcome is the table's ending's name (the Source of a done dispatch).
	Outcome      string `json:"outcome"`
	ArchivedPath string `json:"archived_path,omitempty"`
	Polls        int    `json:"polls"`
	// Attempt is the activity attempt that returned it; Resumed says it
	// went on from an earlier attempt's checkpoint.
	Attempt int32 `json:"attempt"`
	Resumed bool  `json:"resumed,omitempty"`
	// Queue is the task queue (the host) of the worker that returned it.
	Queue string `json:"queue"`
}

// Progress is a dispatch's heartbeat details: what a retried attempt needs
// to go on without sending again.
type Progress struct {
	// Sending is set, and heartbeated, right before the prompt is pasted.
	Sending bool `json:"sending,omitempty"`
	// Wait is the engine's checkpoint once the prompt was sent.
	Wait *fsm.Checkpoint `json:"wait,omitempty"`
}

// The error types (temporal.ApplicationError's type) the activity fails
// with besides the table's outcome names (no_response_file,
// terminal_error, timeout, needs_user, unusable_response_file, agent_busy).
const (
	// ErrTypeBadInput: the input cannot be dispatched (not retryable).
	ErrTypeBadInput = "bad_input"
	// ErrTypeInterruptedWhileSending: an attempt died while pasting the
	// prompt: it may or may not have reached the agent, and it is not
	// pasted again (not retryable).
	ErrTypeInterruptedWhileSending = "interrupted_while_sending"
	// ErrTypeBusy: the role's response slot or the pane is held by
	// another dispatch, or the agent is busy (retryable).
	ErrTypeBusy = "busy"
	// ErrTypeUnavailable: tmux could not be run or read (retryable).
	ErrTypeUnavailable = "unavailable"
)

// Activities are the activities a worker runs for its host. Register a
// *Activities with the worker (worker.RegisterActivity).
type Activities struct {
	// Logger receives the dispatches' transitions; nil is slog.Default().
	Logger *slog.Logger
	// PaneDir is the folder of the pane locks (panelock.Dir() if "").
	PaneDir string
	// Keepalive is how often an attempt heartbeats while it does not poll
	// (waiting for the slot, the pane or a busy agent before the paste);
	// 1s if zero. The SDK throttles heartbeats to the server anyway.
	Keepalive time.Duration
	// sendNow sends a heartbeat's details to the server at once; nil is
	// the activity's client (by task token). The tests run the activity in
	// the SDK's test environments, whose mock service answers only the
	// SDK's own heartbeats (export_test.go).
	sendNow func(ctx context.Context, token []byte, p Progress) error
}

// Dispatch sends the prompt to the pane with fsm.SendAndWait and waits for
// the answer, heartbeating the checkpoint at every poll. A retried attempt
// resumes the wait from the last heartbeat's checkpoint and sends nothing.
// Failures of the table are non-retryable application errors whose type is
// the outcome's name; a busy slot, pane or agent and tmux errors are
// retryable.
func (a *Activities) Dispatch(ctx context.Context, in DispatchInput) (DispatchOutput, error) {
	info := activity.GetInfo(ctx)
	var prev Progress
	if activity.HasHeartbeatDetails(ctx) {
		if err := activity.GetHeartbeatDetails(ctx, &prev); err != nil {
			return DispatchOutput{}, temporal.NewNonRetryableApplicationError("unreadable heartbeat details: "+err.Error(), ErrTypeBadInput, err)
		}
	}
	if prev.Sending && prev.Wait == nil {
		return DispatchOutput{}, temporal.NewNonRetryableApplicationError(
			"an earlier attempt died while pasting the prompt: it may or may not have reached the agent, and was not pasted again; look at the pane and dispatch again if needed",
			ErrTypeInterruptedWhileSending, nil)
	}
	st, err := in.state()
	if err != nil {
		return DispatchOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadInput, err)
	}
	pane, err := st.Open(nil)
	if err != nil {
		return DispatchOutput{}, temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadInput, err)
	}

	hb := &heartbeater{ctx: ctx, token: info.TaskToken, sendNow: a.sendNow}
	hb.set(prev)
	stop := hb.keepalive(a.keepalive())
	defer stop()
	log := a.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("workflow", info.WorkflowExecution.ID, "activity", info.ActivityID, "attempt", info.Attempt)
	// A retried attempt goes on from the last checkpoint, and may start
	// while the dead one's lock is not yet released (a worker that lost
	// its server but still runs): it waits for the slot instead of failing.
	st.Wait, st.WaitSlot = prev.Wait, prev.Wait != nil
	res, err := dispatchstate.Run(ctx, st, dispatchstate.Hooks{
		Pane: func(context.Context) (dispatchstate.OpenPane, error) { return dispatchstate.OpenPane{Pane: pane}, nil },
		Options: func(opts *fsm.Options) {
			opts.Logger, opts.PaneDir = log, a.PaneDir
			opts.OnCheckpoint = func(cp fsm.Checkpoint) error {
				// The checkpoint before a consume must reach the server: an
				// attempt resumed from an older one would not know the file
				// was taken.
				if cp.Core.Consuming != nil {
					return hb.recordNow(Progress{Wait: &cp})
				}
				hb.record(Progress{Wait: &cp})
				return nil
			}
		},
		Sender: func(pane *tmuxdriver.Pane) handoff.Sender {
			return &markingSender{pane: pane, hb: hb, mark: prev.Wait == nil}
		},
	})
	if err != nil {
		return DispatchOutput{}, activityError(err)
	}
	return DispatchOutput{Content: res.Content, Source: string(res.Source), Outcome: res.Outcome().Name,
		ArchivedPath: res.ArchivedPath, Polls: res.Polls, Attempt: info.Attempt, Resumed: prev.Wait != nil, Queue: info.TaskQueue}, nil
}

func (a *Activities) keepalive() time.Duration {
	if a.Keepalive > 0 {
		return a.Keepalive
	}
	return time.Second
}

// state is the input as a persisted dispatch (dispatchstate checks every
// field), its config with the defaults filled in.
func (in DispatchInput) state() (*dispatchstate.State, error) {
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, errors.New("the prompt is empty")
	}
	st := &dispatchstate.State{Version: dispatchstate.Version, Pane: in.Pane,
		History: tmuxdriver.DefaultHistory, TmuxTimeout: tmuxdriver.DefaultCallTimeout.String(),
		Role: in.Role, Workdir: filepath.Clean(in.Workdir), Config: in.Config.WithDefaults(), Prompt: in.Prompt}
	st.Provider = in.ProviderName()
	if err := st.Validate(); err != nil {
		return nil, err
	}
	return st, nil
}

// activityError maps what SendAndWait returned to Temporal: the table's
// failures, bad input and an unusable response file are not retryable
// (another attempt would end the same way, or paste again); a busy slot,
// pane or agent, and tmux that could not be run, are.
func activityError(err error) error {
	var busy *fsm.BusyError
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &busy), errors.Is(err, responsefile.ErrSlotBusy), errors.Is(err, panelock.ErrPaneBusy):
		return temporal.NewApplicationErrorWithCause(err.Error(), ErrTypeBusy, err)
	case errors.Is(err, handoff.ErrInvalidConfig), errors.Is(err, fsm.ErrBadSnapshot):
		return temporal.NewNonRetryableApplicationError(err.Error(), ErrTypeBadInput, err)
	}
	if dispatchstate.Gone(err) {
		err = fmt.Errorf("%w: %w", handoff.ErrTerminalError, err)
	}
	if o, ok := handoff.FailureOf(err); ok {
		return temporal.NewNonRetryableApplicationError(err.Error(), o.Name, err)
	}
	return temporal.NewApplicationErrorWithCause(err.Error(), ErrTypeUnavailable, err)
}

// heartbeater keeps the attempt's latest Progress and records it: at every
// checkpoint, and every keepalive interval while nothing else does. The
// SDK sends a heartbeat at most every 0.8 heartbeat timeouts and keeps the
// latest details for the end of that window; recordNow also sends them at
// once (the client's RecordActivityHeartbeat) for the facts that must not
// wait: the paste starts, a consume starts.
type heartbeater struct {
	ctx     context.Context
	token   []byte
	sendNow func(ctx context.Context, token []byte, p Progress) error // nil: the activity's client
	mu      sync.Mutex
	last    Progress
	at      time.Time
}

func (h *heartbeater) set(p Progress) {
	h.mu.Lock()
	h.last = p
	h.mu.Unlock()
}

func (h *heartbeater) record(p Progress) {
	h.mu.Lock()
	h.last, h.at = p, time.Now()
	h.mu.Unlock()
	activity.RecordHeartbeat(h.ctx, p)
}

func (h *heartbeater) recordNow(p Progress) error {
	h.record(p) // the SDK's pending details too, so its next send is not older
	send := h.sendNow
	if send == nil {
		send = func(ctx context.Context, token []byte, p Progress) error {
			return activity.GetClient(ctx).RecordActivityHeartbeat(ctx, token, p)
		}
	}
	if err := send(h.ctx, h.token, p); err != nil {
		return fmt.Errorf("heartbeat: %w", err)
	}
	return nil
}

func (h *heartbeater) keepalive(every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-h.ctx.Done():
				return
			case <-t.C:
				h.mu.Lock()
				p, quiet := h.last, time.Since(h.at) >= every
				h.mu.Unlock()
				if quiet {
					h.record(p)
				}
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// markingSender heartbeats that the paste starts before it does, so an
// attempt that dies while pasting is not pasted again by the next one.
// Reminders (sent during the wait) go through as they are.
type markingSender struct {
	pane handoff.Sender
	hb   *heartbeater
	// mark: the next Send is the prompt (not a reminder of a resumed wait).
	mark bool
}

func (m *markingSender) Send(ctx context.Context, text string) error {
	if m.mark {
		m.mark = false
		if err := m.hb.recordNow(Progress{Sending: true}); err != nil {
			return err // nothing pasted: the attempt fails, a retry sends
		}
	}
	return m.pane.Send(ctx, text)
}

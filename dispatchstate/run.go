package dispatchstate

import (
	"context"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Hooks are what the owners of a dispatch (send, the service, the loop,
// the Temporal activity) differ in when they run one; the zero Hooks runs
// it plainly: the pane the state names, no wake-ups, no checkpoint kept.
type Hooks struct {
	// Pane opens the dispatch's pane (nil: State.Pane with a tmux process
	// per command).
	Pane func(ctx context.Context) (OpenPane, error)
	// Options adds the owner's part of the engine's options (its logger,
	// observers, the checkpoint's keeper, a pane-lock folder) to those Run
	// made from the state; it may change them.
	Options func(opts *fsm.Options)
	// Wake are the wake-up sources besides the response file and the
	// state's HookDir (a shared watch; the pane's output comes from
	// OpenPane). With WatchFile, the response file is watched too.
	Wake      fsm.WakeSources
	WatchFile bool
	// OnWakeError is told when the wake-ups cannot start (the wait then
	// polls without them); nil: said nowhere.
	OnWakeError func(error)
	// Sender wraps the pane's paste (the service and the activity record
	// that the paste starts before it does); nil: the pane itself.
	Sender func(pane *tmuxdriver.Pane) handoff.Sender
	// SendAndWait replaces fsm.SendAndWait (a traced one); nil: that.
	SendAndWait func(ctx context.Context, s handoff.Sender, t handoff.Terminal, prompt string, opts fsm.Options) (fsm.Result, error)
}

// OpenPane is a pane opened for a dispatch: the pane, its output signal
// (a control client's hints; nil for none), and what lets go of it once
// the dispatch ended (nil for nothing).
type OpenPane struct {
	Pane    *tmuxdriver.Pane
	Output  <-chan struct{}
	Release func()
}

// Run is the one recipe of a dispatch: it opens the state's pane, sets the
// engine's options from the state (its settings, role and role files, work
// folder, slot wait, and its checkpoint: a state that holds a wait is
// resumed without pasting again), wires the wake-ups, then sends st.Prompt
// and waits. h says what the owner does differently.
func Run(ctx context.Context, st *State, h Hooks) (fsm.Result, error) {
	op, err := openPane(ctx, st, h)
	if err != nil {
		return fsm.Result{}, err
	}
	if op.Release != nil {
		defer op.Release()
	}
	pane := op.Pane
	opts := fsm.Options{Config: st.Config, Role: st.Role, Roles: st.Roles(), Workdir: st.Workdir,
		WaitSlot: st.WaitSlot, Resume: st.Wait}
	if h.Options != nil {
		h.Options(&opts)
	}
	src := h.Wake
	if op.Output != nil {
		src.Output = op.Output
	}
	if st.HookDir != "" && src.HookMarker == "" {
		src.HookMarker = hookmark.Path(st.HookDir, hookmark.Stopped)
	}
	if path, err := st.Roles().Path(st.Workdir, st.Role); err == nil && h.WatchFile {
		src.Workdir, src.Path = st.Workdir, path
	}
	wake, stop, err := src.Open()
	if err != nil && h.OnWakeError != nil {
		h.OnWakeError(err)
	}
	defer stop()
	opts.Wakeups = wake
	var sender handoff.Sender = pane
	if h.Sender != nil {
		sender = h.Sender(pane)
	}
	sendAndWait := fsm.SendAndWait
	if h.SendAndWait != nil && opts.Resume == nil {
		sendAndWait = h.SendAndWait
	}
	return sendAndWait(ctx, sender, pane, st.Prompt, opts)
}

func openPane(ctx context.Context, st *State, h Hooks) (OpenPane, error) {
	if h.Pane != nil {
		return h.Pane(ctx)
	}
	pane, err := st.Open(nil)
	return OpenPane{Pane: pane}, err
}

package serve

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Request is a dispatch to accept: the pane, the role, the work folder, the
// prompt and the settings (see api.go for its JSON); ID and Created are set
// by Submit. State.WaitSlot waits for a busy slot instead of a
// SlotBusyError.
type Request struct {
	State *dispatchstate.State
}

// SlotBusyError is Submit's error when the role's response slot in that
// work folder is held: by a dispatch of this service (ID) or by another
// process (PID). It matches responsefile.ErrSlotBusy.
type SlotBusyError struct {
	ID  string
	PID int
	Err error
}

func (e *SlotBusyError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("%v: held by dispatch %s of this service", responsefile.ErrSlotBusy, e.ID)
	}
	return e.Err.Error()
}

func (e *SlotBusyError) Unwrap() error { return responsefile.ErrSlotBusy }

// Submit accepts the dispatch b asks for (as POST /v1/dispatches); bad
// input is the error SubmitBody.State gives, naming the field.
func (s *Service) Submit(_ context.Context, b SubmitBody) (View, error) {
	st, err := b.State()
	if err != nil {
		return View{}, err
	}
	return s.Accept(Request{State: st})
}

// Accept accepts a dispatch: it is on disk (durable) when Accept returns,
// and runs in the background. A busy slot is a *SlotBusyError unless
// WaitSlot.
func (s *Service) Accept(req Request) (View, error) {
	st := req.State
	st.Version = dispatchstate.Version
	st.ID = newID(time.Now())
	st.Created = time.Now().UTC()
	if st.Provider == provider.Auto {
		name, err := s.recognize(st)
		if err != nil {
			return View{}, err
		}
		st.Provider = name
	}
	if err := st.Validate(); err != nil {
		return View{}, err
	}
	file := "" // in memory: no state file
	if s.lock != nil {
		file = s.folder.path(st.ID)
	}
	d := newDispatch(st, file)
	d.onSave = s.onSave
	path, err := d.responsePath()
	if err != nil {
		return View{}, err
	}
	// The slot is reserved at once; the lock probe and the fsync are done
	// after, so submissions do not queue behind each other.
	if !st.WaitSlot {
		if holder, ok := s.slots.reserve(path, d); !ok {
			return View{}, &SlotBusyError{ID: holder.st.ID}
		}
	}
	if err := s.keep(d, path); err != nil {
		s.slots.release(path, d)
		return View{}, err
	}
	v := d.view(false)
	v.AcceptedSeq = d.acceptedSeq
	return v, nil
}

// keep checks that no other process holds d's slot (unless it may wait),
// writes d's state file, and starts it.
func (s *Service) keep(d *dispatch, path string) error {
	st := &d.st
	if !st.WaitSlot {
		// Another process (a local send) may hold it: ask the lock.
		if err := responsefile.EnsureDir(st.Workdir); err != nil {
			// A file where the response folder goes (.handoff) is bad
			// input as a file for the work folder is (checkWorkdir).
			if errors.Is(err, syscall.ENOTDIR) {
				return bad("workdir", "%v", err)
			}
			return err
		}
		slot, err := responsefile.Lock(s.ctx, path, st.Role, st.Workdir, false)
		var busy *responsefile.SlotBusyError
		if errors.As(err, &busy) {
			return &SlotBusyError{PID: busy.PID, Err: err}
		}
		if err != nil {
			return err
		}
		slot.Release()
	}
	if err := d.write(saveAccepted); err != nil {
		return fmt.Errorf("serve: keep the dispatch: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		// Kept on disk: the next service on the folder sends it.
		return errors.New("serve: the service is stopping; the dispatch is kept and goes on at the next start")
	}
	s.all[st.ID] = d
	d.acceptedSeq = s.hub.publish(Event{Type: "accepted", ID: st.ID, Role: st.Role, State: StateAccepted})
	s.start(d)
	return nil
}

// start runs d in the background.
func (s *Service) start(d *dispatch) {
	ctx, cancel := context.WithCancel(s.ctx)
	d.mu.Lock()
	d.cancel = cancel
	d.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		s.run(ctx, d)
	}()
}

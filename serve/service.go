// Package serve is one dispatch engine per host: `handoff-fsm serve`. It
// takes dispatches over an HTTP/JSON API (api.go), keeps each one as a
// persisted dispatch (dispatchstate) in its state folder before it answers,
// runs each through fsm.SendAndWait like a local send, and after a crash
// or a restart finishes every dispatch it had accepted: a waiting one is
// resumed without pasting its prompt again, an accepted one is sent, and
// one whose paste was cut short is not pasted twice (it ends with an error
// saying so). The state files are also the history (List).
//
// Every tmux server is read through one shared tmux control-mode client
// (tmuxdriver.Shared): a look starts no process, and the client asks tmux
// for no pane output.
package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/tracing"
	"golang.org/x/sys/unix"
)

// Options configure a Service.
type Options struct {
	// StateDir holds the dispatches (dispatches/<id>.json) and the lock
	// that keeps a second service off them. Required.
	StateDir string
	// Logger receives the service's own messages; nil is slog.Default().
	Logger *slog.Logger
	// Control shares one tmux control-mode client per tmux server for
	// every look (no process per look). Off: a tmux process per look.
	Control bool
	// Events watches each response folder so a written file ends its wait
	// at once (as send's --events).
	Events bool
	// Tracer, when set, wraps each dispatch sent by this service in a span
	// (as send does under the OpenTelemetry variables). A resumed wait is
	// not traced: its span died with the process that sent it.
	Tracer *tracing.Tracer
	// Keep is how long a finished dispatch stays in the history: older
	// ones are pruned at the start and then once an hour (what the agent
	// wrote stays archived in its work folder). 0 keeps them all.
	Keep time.Duration
}

// Service runs dispatches. Its methods are safe for concurrent use.
type Service struct {
	o    Options
	log  *slog.Logger
	dir  string // <StateDir>/dispatches
	lock *os.File
	hub  *hub
	tmux *terminals

	ctx    context.Context // ends on Close: running waits stop, resumable
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	all   map[string]*dispatch
	slots map[string]string // response file path → id of the dispatch holding it
}

// ErrLocked is returned by New when another service runs on the state
// folder.
var ErrLocked = errors.New("another handoff-fsm serve runs on this state folder")

// New opens the state folder, takes its lock, and goes on with every
// dispatch a previous service left unfinished. Close stops it.
func New(o Options) (*Service, error) {
	if o.StateDir == "" {
		return nil, errors.New("serve: a state folder is required")
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	dir := filepath.Join(o.StateDir, "dispatches")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("serve: state folder: %w", err)
	}
	lock, err := os.OpenFile(filepath.Join(o.StateDir, "serve.lock"), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	if err := lockFolder(lock); err != nil {
		lock.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, o.StateDir)
		}
		return nil, fmt.Errorf("serve: lock %s: %w", o.StateDir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{o: o, log: o.Logger, dir: dir, lock: lock, hub: newHub(), ctx: ctx, cancel: cancel,
		all: map[string]*dispatch{}, slots: map[string]string{}}
	s.tmux = newTerminals(o.Control, s.notice)
	s.prune(time.Now())
	if err := s.reload(); err != nil {
		s.Close()
		return nil, err
	}
	if o.Keep > 0 {
		s.wg.Add(1)
		go s.pruneLoop()
	}
	return s, nil
}

// lockFolder takes the state folder's lock. A lock just released can stay
// held for a moment by a child process between fork and exec (it shares the
// open file until exec closes it), so a busy lock is tried again for a
// second before it counts as another service's.
func lockFolder(f *os.File) error {
	deadline := time.Now().Add(time.Second)
	for {
		err := lockOnce(f)
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lockOnce tries the state folder's lock once.
func lockOnce(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// Close stops the service: running waits stop where they are (their state
// files keep them, and the next service on this folder goes on with them),
// the tmux control clients end, and the folder's lock is released.
func (s *Service) Close() error {
	s.mu.Lock()
	s.cancel() // under the lock: no dispatch starts after this
	s.mu.Unlock()
	s.wg.Wait()
	s.tmux.close()
	s.hub.close()
	return s.lock.Close()
}

// reload reads every state file of the folder: finished dispatches are the
// history; the others run again (sent, resumed, or ended as cut short).
func (s *Service) reload() error {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	var again []*dispatch
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		path := filepath.Join(s.dir, name)
		st, err := dispatchstate.Read(path)
		if err != nil {
			s.log.Error("a state file cannot be read; it is left as it is", "file", path, "error", err)
			continue
		}
		if st.ID != strings.TrimSuffix(name, ".json") {
			s.log.Error("a state file's id is not its name; it is left as it is", "file", path, "id", st.ID)
			continue
		}
		d := newDispatch(st, path)
		s.all[st.ID] = d
		if st.Next() != dispatchstate.Report {
			again = append(again, d)
		}
	}
	slices.SortFunc(again, func(a, b *dispatch) int { return a.st.Created.Compare(b.st.Created) })
	// A dispatch that had pasted owns its slot: it goes on first, and one
	// accepted to the same slot but not pasted waits for it (takeSlot), as
	// it did in the service that died. Then the others, oldest first.
	for _, pasted := range []bool{true, false} {
		for _, d := range again {
			if (d.st.Next() != dispatchstate.Send) != pasted {
				continue
			}
			if p, err := d.responsePath(); err == nil {
				if _, held := s.slots[p]; !held {
					s.slots[p] = d.st.ID
				}
			}
		}
	}
	for _, d := range again {
		s.log.Info("going on with a dispatch of the previous service", "id", d.st.ID, "role", d.st.Role, "next", nextName(d.st.Next()))
		s.start(d)
	}
	return nil
}

func nextName(n dispatchstate.Next) string {
	return [...]string{"send", "resume", "report", "unsure"}[n]
}

// Request is a dispatch to accept: the pane, the role, the work folder, the
// prompt and the settings (see api.go for its JSON); ID and Created are set
// by Submit. State.WaitSlot waits for a busy slot instead of a BusyError.
type Request struct {
	State *dispatchstate.State
}

// BusyError is Submit's error when the role's response slot in that work
// folder is held: by a dispatch of this service (ID) or by another process
// (PID).
type BusyError struct {
	ID  string
	PID int
	Err error
}

func (e *BusyError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("%v: held by dispatch %s of this service", responsefile.ErrSlotBusy, e.ID)
	}
	return e.Err.Error()
}

func (e *BusyError) Unwrap() error { return responsefile.ErrSlotBusy }

// Submit accepts a dispatch: it is on disk (durable) when Submit returns,
// and runs in the background. A busy slot is a *BusyError unless WaitSlot.
func (s *Service) Submit(req Request) (View, error) {
	st := req.State
	st.Version = dispatchstate.Version
	st.ID = newID(time.Now())
	st.Created = time.Now().UTC()
	if st.Provider == provider.Auto {
		name, err := s.recognise(st)
		if err != nil {
			return View{}, err
		}
		st.Provider = name
	}
	if err := st.Validate(); err != nil {
		return View{}, err
	}
	d := newDispatch(st, filepath.Join(s.dir, st.ID+".json"))
	path, err := d.responsePath()
	if err != nil {
		return View{}, err
	}
	// The slot is reserved under the lock; the lock probe and the fsync
	// are done outside it, so submissions do not queue behind each other.
	s.mu.Lock()
	if !st.WaitSlot {
		if holder, ok := s.slots[path]; ok {
			s.mu.Unlock()
			return View{}, &BusyError{ID: holder}
		}
		s.slots[path] = st.ID
	}
	s.mu.Unlock()
	if err := s.keep(d, path); err != nil {
		if !st.WaitSlot {
			s.mu.Lock()
			if s.slots[path] == st.ID {
				delete(s.slots, path)
			}
			s.mu.Unlock()
		}
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
			return &BusyError{PID: busy.PID, Err: err}
		}
		if err != nil {
			return err
		}
		slot.Release()
	}
	if err := st.Write(d.path); err != nil {
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

// Get returns the dispatch id; with wait > 0 it first waits up to that long
// (or until ctx ends) for the dispatch to be over.
func (s *Service) Get(ctx context.Context, id string, wait time.Duration) (View, bool) {
	s.mu.Lock()
	d, ok := s.all[id]
	s.mu.Unlock()
	if !ok {
		return View{}, false
	}
	if wait > 0 {
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-d.done:
		case <-t.C:
		case <-ctx.Done():
		}
	}
	return d.view(true), true
}

// Cancel stops dispatch id and records it as cancelled; what the agent
// wrote is archived. It returns once the dispatch is over (ok false: no
// such dispatch). A finished dispatch is left as it was.
func (s *Service) Cancel(ctx context.Context, id string) (View, bool) {
	s.mu.Lock()
	d, ok := s.all[id]
	s.mu.Unlock()
	if !ok {
		return View{}, false
	}
	d.mu.Lock()
	if d.st.Finished == nil {
		d.cancelled = true
		if d.cancel != nil {
			d.cancel()
		}
	}
	d.mu.Unlock()
	select {
	case <-d.done:
	case <-ctx.Done():
	}
	return d.view(true), true
}

// Filter selects dispatches for List; zero fields select all.
type Filter struct {
	Role  string
	State string // a state name, "running" or "final"
	Since time.Time
	Limit int // the newest Limit (0: all)
}

// List returns the dispatches Filter selects, oldest first, without their
// content and transitions.
func (s *Service) List(f Filter) []View {
	s.mu.Lock()
	ds := make([]*dispatch, 0, len(s.all))
	for _, d := range s.all {
		ds = append(ds, d)
	}
	s.mu.Unlock()
	views := make([]View, 0, len(ds))
	for _, d := range ds {
		views = append(views, d.view(false))
	}
	return f.apply(views)
}

// apply keeps the views f selects, oldest first.
func (f Filter) apply(views []View) []View {
	out := []View{}
	for _, v := range views {
		if f.matches(v) {
			out = append(out, v)
		}
	}
	slices.SortFunc(out, func(a, b View) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if f.Limit > 0 && len(out) > f.Limit {
		out = out[len(out)-f.Limit:]
	}
	return out
}

// History reads the dispatches kept in a service's state folder, running
// or not (the state files are the history): who was asked what, when,
// how it ended and where the response is archived. Unreadable files are
// skipped; bad says how many.
func History(stateDir string, f Filter) (views []View, bad int, err error) {
	dir := filepath.Join(stateDir, "dispatches")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, 0, err
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		st, err := dispatchstate.Read(filepath.Join(dir, name))
		if err != nil {
			bad++
			continue
		}
		views = append(views, newDispatch(st, "").view(false))
	}
	return f.apply(views), bad, nil
}

func (f Filter) matches(v View) bool {
	switch {
	case f.Role != "" && v.Role != f.Role:
		return false
	case !f.Since.IsZero() && v.Created.Before(f.Since):
		return false
	case f.State == "":
		return true
	case f.State == "running":
		return !v.Final
	case f.State == "final":
		return v.Final
	}
	return strings.EqualFold(v.State, f.State)
}

// notice publishes a message of the service (control mode falling back,
// say) on the event stream and in the log.
func (s *Service) notice(msg string, args ...any) {
	s.log.Warn(msg, args...)
	s.hub.publish(Event{Type: "notice", Message: fmt.Sprint(append([]any{msg}, args...)...)})
}

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
		s.finish(d, dispatchstate.InterruptedWhileSending(time.Now().UTC()))
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

// takeSlot waits until no other dispatch of the service holds d's response
// slot, and takes it: dispatches of the service to one slot go one after
// the other (a wait_slot one waits for the holder); another process's
// lock is the engine's business (fsm.Options.WaitSlot).
func (s *Service) takeSlot(ctx context.Context, d *dispatch) error {
	p, err := d.responsePath()
	if err != nil {
		return nil // the engine reports it
	}
	for {
		s.mu.Lock()
		holder, held := s.slots[p]
		var wait <-chan struct{}
		if !held || holder == d.st.ID {
			s.slots[p] = d.st.ID
			s.mu.Unlock()
			return nil
		}
		if h, ok := s.all[holder]; ok {
			wait = h.done
		} else {
			delete(s.slots, p)
		}
		s.mu.Unlock()
		if wait == nil {
			continue
		}
		select {
		case <-wait:
		case <-ctx.Done():
			if d.isCancelled() {
				s.finish(d, s.cancelled(d, fsm.Result{}))
			}
			return ctx.Err()
		}
	}
}

// release frees d's slot in the service's table.
func (s *Service) release(d *dispatch) {
	p, err := d.responsePath()
	if err != nil {
		return
	}
	s.mu.Lock()
	if s.slots[p] == d.st.ID {
		delete(s.slots, p)
	}
	s.mu.Unlock()
}

// wait sends the dispatch (or resumes its wait) through the engine.
func (s *Service) wait(ctx context.Context, d *dispatch, st dispatchstate.State) (fsm.Result, error) {
	cfg, err := st.Config.Engine()
	if err != nil {
		return fsm.Result{}, err
	}
	term, release, err := s.tmux.pane(ctx, &st)
	if err != nil {
		return fsm.Result{}, err
	}
	defer release()
	log := s.log.With("id", st.ID, "role", st.Role)
	opts := fsm.Options{Config: cfg, Role: st.Role, Roles: st.Roles(), Workdir: st.Workdir, Logger: log,
		WaitSlot: st.WaitSlot,
		Observer: func(e fsm.Entry) {
			d.setState(string(e.To))
			s.hub.publish(Event{Type: "transition", ID: st.ID, Role: st.Role, From: string(e.From), To: string(e.To),
				Event: string(e.Event), Status: string(e.Status), State: string(e.To), At: e.At.Sub(d.dispatchedAt()).Seconds()})
		},
		OnPoll: func(p fsm.Poll) { d.polled(p) },
		OnAttention: func(p fsm.Poll) {
			s.hub.publish(Event{Type: "attention", ID: st.ID, Role: st.Role,
				Message: "the agent waits for the user (a permission prompt or a question): answer it in pane " + st.Target})
		},
		OnCheckpoint: d.checkpoint,
	}
	if s.o.Events {
		if stop := watchResponse(st, &opts, log); stop != nil {
			defer stop()
		}
	}
	term.hints(&opts)
	sender := &markingSender{d: d, pane: term.pane, s: s}
	if st.Next() == dispatchstate.Resume {
		opts.Resume = st.Wait
		log.Info("resuming the wait", "target", st.Target)
	}
	if s.o.Tracer != nil && opts.Resume == nil {
		return s.o.Tracer.SendAndWait(ctx, tracing.Dispatch{Role: st.Role, Provider: st.Provider, Pane: st.Target},
			sender, term.pane, st.Prompt, opts)
	}
	return fsm.SendAndWait(ctx, sender, term.pane, st.Prompt, opts)
}

// watchResponse wakes the wait when the response file is written (as
// send's --events); nil when the folder cannot be watched (polling then).
func watchResponse(st dispatchstate.State, opts *fsm.Options, log *slog.Logger) (stop func()) {
	path, err := st.Roles().Path(st.Workdir, st.Role)
	if err != nil {
		return nil
	}
	wake, stop, err := fsm.WatchResponse(st.Workdir, path)
	if err != nil {
		log.Warn("cannot watch the response file; polling only", "error", err)
		return nil
	}
	opts.Hints, opts.Turns = wake.Hints, wake.Turns
	return stop
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

// cancelled is the ending of a cancelled dispatch: whatever the agent left
// at the response path is archived (never deleted, never taken for the
// next dispatch's answer).
func (s *Service) cancelled(d *dispatch, res fsm.Result) *dispatchstate.Finished {
	st := d.snapshot()
	f := &dispatchstate.Finished{Exit: dispatchstate.ExitOther, Ended: time.Now().UTC(), Error: "cancelled"}
	f.Report = reportOf(res)
	f.Report.Outcome = dispatchstate.OutcomeCancelled
	path, err := st.Roles().Path(st.Workdir, st.Role)
	if err != nil || st.SendStarted.IsZero() && st.Wait == nil {
		return f // never sent: nothing at the path is this dispatch's
	}
	archive := responsefile.NewArchive(st.Workdir, time.Now())
	if st.Wait != nil {
		archive = responsefile.OpenArchive(st.Wait.ArchiveDir, st.Wait.ArchiveSeq)
	}
	if err := responsefile.EnsureDir(st.Workdir); err != nil {
		return f
	}
	// Under the slot's lock: a dispatch that took the slot since archives
	// the file itself (as stale) before it sends.
	slot, err := responsefile.Lock(context.Background(), path, st.Role, st.Workdir, false)
	if err != nil {
		return f
	}
	defer slot.Release()
	if _, err := os.Lstat(path); err != nil {
		return f // nothing written
	}
	if p, err := archive.Store(path, st.Role, "cancelled"); err == nil {
		f.ArchivedPath = p
	} else {
		s.log.Warn("cancelled: the response file could not be archived; it is left in place", "id", st.ID, "error", err)
	}
	return f
}

// finish records d's ending durably and tells the event stream.
func (s *Service) finish(d *dispatch, f *dispatchstate.Finished) {
	if err := d.finish(f); err != nil {
		s.log.Error("the dispatch's ending could not be kept", "id", d.st.ID, "error", err)
	}
	v := d.view(false)
	s.hub.publish(Event{Type: "finished", ID: v.ID, Role: v.Role, State: v.State, Outcome: v.Outcome, Exit: v.Exit, Message: v.Error})
}

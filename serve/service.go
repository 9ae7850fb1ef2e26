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
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/tracing"
)

// Options configure a Service.
type Options struct {
	// StateDir holds the dispatches (dispatches/<id>.json) and the lock
	// that keeps a second service off them. "" keeps them in this
	// process's memory only, nothing written: the in-process engine of a
	// command that runs one dispatch and waits for it (send, resume),
	// whose dispatch dies with it (send --state keeps its own file).
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
	// OnPoll, when set, sees every observation of every dispatch's wait
	// (a caller in the service's process: the loop's own engine).
	OnPoll func(id, role string, p fsm.Poll)
	// Dispatch, when set, adds an in-process owner's part to each
	// dispatch's recipe after the service's own: send opens the pane its
	// flags name, records the looks, narrates them, keeps --state. It may
	// change h; st is the dispatch as accepted.
	Dispatch func(st *dispatchstate.State, h *dispatchstate.Hooks)
	// Keep is how long a finished dispatch stays in the history: older
	// ones are pruned at the start and then once an hour (what the agent
	// wrote stays archived in its work folder). 0 keeps them all.
	Keep time.Duration
}

// Service runs dispatches. Its methods are safe for concurrent use. Its
// parts, a file each: the state folder (folder.go), the slot table
// (slots.go), accepting a dispatch (submit.go), its run (run.go), its
// cancellation (cancel.go), the queries (query.go), the panes' board and
// the tmux clients (api.go, tmux.go), and pruning the history (prune.go).
type Service struct {
	o      Options
	log    *slog.Logger
	folder folder
	lock   *os.File
	hub    *hub
	tmux   *terminals
	slots  *slotTable
	// watches is the response-file watch the waits share (Options.Events),
	// one inotify instance for all; nil when it could not start (each
	// wait then tries one of its own).
	watches *responsefile.Watches
	// onSave, when set, is told of each state file write of the
	// dispatches submitted from then on (tests count them).
	onSave func(save)

	ctx    context.Context // ends on Close: running waits stop, resumable
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// closing runs Close once; closeErr is what it returned.
	closing  sync.Once
	closeErr error

	mu  sync.Mutex
	all map[string]*dispatch
	// over is the finished dispatches still whole in memory, oldest
	// first; past keepWhole the oldest is released (dispatch.release).
	over      []*dispatch
	keepWhole int
}

// keepWhole is how many finished dispatches the service keeps whole in
// memory (the answer, the transitions): the newest, which clients are
// still fetching. The older ones are read back from their state files
// when asked for whole, so the service's memory does not grow with its
// history.
const keepWhole = 100

// New opens the state folder, takes its lock, and goes on with every
// dispatch a previous service left unfinished (without a state folder: a
// service in memory, which starts empty). Close stops it.
func New(o Options) (*Service, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Service{o: o, log: o.Logger, hub: newHub(), slots: newSlotTable(),
		ctx: ctx, cancel: cancel, all: map[string]*dispatch{}, keepWhole: keepWhole}
	s.tmux = newTerminals(o.Control, s.notice)
	if o.Events {
		var err error
		if s.watches, err = responsefile.NewWatches(); err != nil {
			s.log.Warn("no shared response-file watch; each wait tries one of its own", "error", err)
		}
	}
	if o.StateDir == "" {
		return s, nil
	}
	s.folder = stateFolder(o.StateDir)
	lock, err := s.folder.open()
	if err != nil {
		s.Close()
		return nil, err
	}
	s.lock = lock
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

// Close stops the service: running waits stop where they are (their state
// files keep them, and the next service on this folder goes on with them),
// the tmux control clients end, and the folder's lock is released. Once:
// a later Close returns the first one's error.
func (s *Service) Close() error {
	s.closing.Do(func() { s.closeErr = s.close() })
	return s.closeErr
}

func (s *Service) close() error {
	s.mu.Lock()
	s.cancel() // under the lock: no dispatch starts after this
	s.mu.Unlock()
	s.wg.Wait()
	s.tmux.close()
	s.hub.close()
	if s.watches != nil {
		s.watches.Close()
	}
	if s.lock == nil {
		return nil // in memory
	}
	return s.lock.Close()
}

// settle counts d, just finished, among the dispatches kept whole, and
// releases the oldest past keepWhole whose run has returned.
func (s *Service) settle(d *dispatch) {
	s.mu.Lock()
	s.over = append(s.over, d)
	var old []*dispatch
	for len(s.over) > s.keepWhole && isClosed(s.over[0].done) {
		// (one whose run is still ending is released with a later one)
		old = append(old, s.over[0])
		s.over = s.over[1:]
	}
	s.mu.Unlock()
	for _, o := range old {
		o.release()
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// reload reads every state file of the folder: finished dispatches are the
// history; the others run again (sent, resumed, or ended as cut short).
func (s *Service) reload() error {
	files, err := s.folder.scan()
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	var again, over []*dispatch
	for _, sf := range files {
		switch {
		case sf.err != nil:
			s.log.Error("a state file cannot be read; it is left as it is", "file", sf.path, "error", sf.err)
			continue
		case sf.st.ID != sf.id:
			s.log.Error("a state file's id is not its name; it is left as it is", "file", sf.path, "id", sf.st.ID)
			continue
		}
		d := newDispatch(sf.st, sf.path)
		s.all[sf.id] = d
		if sf.st.Next() != dispatchstate.Report {
			again = append(again, d)
		} else if sf.st.Finished != nil {
			over = append(over, d)
		}
	}
	slices.SortFunc(over, func(a, b *dispatch) int { return a.st.Finished.Ended.Compare(b.st.Finished.Ended) })
	for _, d := range over {
		s.settle(d)
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
				s.slots.reserve(p, d)
			}
		}
	}
	for _, d := range again {
		s.log.Info("going on with a dispatch of the previous service", "id", d.st.ID, "role", d.st.Role, "next", nextName(d.st.Next()))
		s.start(d)
	}
	return nil
}

// notice publishes a message of the service (control mode falling back,
// say) on the event stream and in the log.
func (s *Service) notice(msg string, args ...any) {
	s.log.Warn(msg, args...)
	s.hub.publish(Event{Type: "notice", Message: fmt.Sprint(append([]any{msg}, args...)...)})
}

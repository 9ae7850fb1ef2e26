package serve

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// The states a dispatch shows besides the engine's (AwaitingStart, Working,
// IdleGrace, StartupTimeout, Done, Failed).
const (
	StateAccepted  = "Accepted"  // kept on disk, not pasted yet
	StateSending   = "Sending"   // the paste is under way
	StateCancelled = "Cancelled" // DELETE
	StateError     = "Error"     // ended without a decision of the table
)

// View is a dispatch as the API shows it: its state, where it runs, and
// once it is over its ending in the replay format (Report: outcome,
// source, the error's kind, the response, when, the transitions), as
// `send --json` prints it. The JSON keeps the API's keys (docs/serve.md):
// the report's error kind is "error_kind", "error" the message.
type View struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Final bool   `json:"final"`
	// Report is the ending once Final (Outcome: done, failed, cancelled
	// or error; Source: file or fallback; Error: the table's name for the
	// failure, terminal_error, no_response_file, timeout, needs_user; At:
	// the decision's time in seconds from dispatch). Transitions and
	// Content are in a single dispatch's view only (Whole).
	trace.Report `json:"-"`
	// Whole: the view carries the response (a single finished dispatch's
	// view, not a list's).
	Whole bool `json:"-"`
	// Exit is the exit status a local send would have ended with.
	Exit *int `json:"exit,omitempty"`
	// Error is the failure's message (Report.Error its kind).
	Error string `json:"error,omitempty"`
	// AcceptedSeq is the number of the dispatch's "accepted" event, in the
	// answer to its submission: following its events after it
	// (GET /v1/events?id=…&after=…) misses none of them.
	AcceptedSeq uint64 `json:"accepted_seq,omitempty"`
	Polls       int    `json:"polls"`

	Role string `json:"role"`
	// Pane is where the agent is, its keys inline.
	dispatchstate.Pane
	Workdir      string     `json:"workdir"`
	Prompt       string     `json:"prompt"`
	Created      time.Time  `json:"created"`
	Ended        *time.Time `json:"ended,omitempty"`
	ArchivedPath string     `json:"archived_path,omitempty"`
}

// Finished is the ending of a final view as a persisted dispatch records
// it: what a caller prints or returns as a dispatch of its own would
// (dispatchstate.Finished's Result, Err and Exit).
func (v View) Finished() dispatchstate.Finished {
	f := dispatchstate.Finished{Exit: dispatchstate.ExitOther, Report: v.Report, Error: v.Error, ArchivedPath: v.ArchivedPath}
	if v.Exit != nil {
		f.Exit = *v.Exit
	}
	if f.Report.Transitions == nil {
		f.Report.Transitions = []trace.Transition{}
	}
	return f
}

// viewJSON is View's wire form: the report's fields under the API's keys,
// the content only in a whole view.
type viewJSON struct {
	viewFields
	Outcome   string  `json:"outcome,omitempty"`
	Source    string  `json:"source,omitempty"`
	Content   *string `json:"content,omitempty"`
	ErrorKind string  `json:"error_kind,omitempty"`
	// NotSubmitted: the prompt never left the agent's composer
	// (handoff.ErrNotSubmitted; Report.NotSubmitted).
	NotSubmitted bool               `json:"not_submitted,omitempty"`
	At           float64            `json:"at,omitempty"`
	Transitions  []trace.Transition `json:"transitions,omitempty"`
}

// viewFields is View without its methods (no recursion into MarshalJSON).
type viewFields View

// MarshalJSON writes the API's form of v.
func (v View) MarshalJSON() ([]byte, error) {
	w := viewJSON{viewFields: viewFields(v), Outcome: v.Outcome, Source: v.Source, ErrorKind: v.Report.Error, At: v.At,
		Transitions: v.Transitions, NotSubmitted: v.NotSubmitted}
	if v.Whole {
		w.Content = &v.Content
	}
	return json.Marshal(w)
}

// UnmarshalJSON reads the API's form of a view (what a client gets).
func (v *View) UnmarshalJSON(b []byte) error {
	var w viewJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*v = View(w.viewFields)
	v.Report = trace.Report{Outcome: w.Outcome, Source: w.Source, Error: w.ErrorKind, NotSubmitted: w.NotSubmitted, At: w.At, Transitions: w.Transitions}
	if w.Content != nil {
		v.Whole, v.Content = true, *w.Content
	}
	return nil
}

// dispatch is one dispatch of the service: its persisted state and what
// the running wait adds to it.
type dispatch struct {
	path string
	done chan struct{}
	// acceptedSeq is the number of its "accepted" event (set once, by
	// the submission, before anyone else sees the dispatch).
	acceptedSeq uint64

	mu        sync.Mutex
	st        dispatchstate.State
	state     string
	polls     int
	journal   []trace.Transition
	cancel    func()
	cancelled bool
	// written is the last checkpoint written to the state file.
	written *fsm.Checkpoint
	// onSave, when set, is told of each write of the state file (tests
	// count them).
	onSave func(save)
	// released: the dispatch is over, and what only a full view shows
	// was dropped from memory (release); fullView reads it back from the
	// state file.
	released bool
}

// save is a write of a dispatch's state file, named by what it keeps.
type save int

// The writes of a dispatch, in the order they happen.
const (
	saveAccepted  save = iota // the dispatch, before the 201 answers its submission
	saveSending               // send_started, before the paste
	saveWaitStart             // the wait's first checkpoint, after the paste
	saveProgress              // a checkpoint after a look that changed a fact
	saveConsume               // the checkpoint before the response file is moved
	saveFinish                // the ending, before anyone is told of it
)

// write writes d's state file, durably (every write: see
// docs/reliability.md, "The service: durable dispatches"), through its
// spare (a state file is written seven times: swapping a spare with it
// costs the kernel less than a new file each time); the ending's write
// removes the spare; a service in memory writes nothing (path ""). d.mu
// is held, or d is not shared yet.
func (d *dispatch) write(w save) error {
	if d.onSave != nil {
		d.onSave(w)
	}
	if d.path == "" {
		return nil
	}
	spare := spareOf(d.path)
	if err := d.st.Rewrite(d.path, spare); err != nil {
		return err
	}
	if w == saveFinish {
		_ = os.Remove(spare) // the state is final; prune removes one left by a kill
	}
	return nil
}

func newDispatch(st *dispatchstate.State, path string) *dispatch {
	d := &dispatch{path: path, st: *st, done: make(chan struct{}), state: StateAccepted}
	if st.Wait != nil {
		d.state = string(st.Wait.Core.State)
		d.polls = st.Wait.Core.Polls
		d.journal = reportOf(fsm.Result{Journal: st.Wait.Journal, DispatchedAt: st.Wait.Core.DispatchedAt}).Transitions
		for i := range min(len(d.journal), len(st.Evidence)) {
			d.journal[i].Evidence = st.Evidence[i]
		}
	}
	if st.Finished != nil {
		d.state = finalState(st.Finished)
		close(d.done)
	}
	return d
}

// reportOf is the replay-format object of a wait's result so far.
func reportOf(res fsm.Result) trace.Report {
	rep, _ := trace.ReportOf(res, nil)
	return rep
}

func (d *dispatch) snapshot() dispatchstate.State {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.st
}

func (d *dispatch) responsePath() (string, error) {
	return d.st.Roles().Path(d.st.Workdir, d.st.Role)
}

func (d *dispatch) isCancelled() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.cancelled
}

func (d *dispatch) setState(s string) {
	d.mu.Lock()
	d.state = s
	d.mu.Unlock()
}

func (d *dispatch) dispatchedAt() time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st.Wait == nil {
		return time.Now()
	}
	return d.st.Wait.Core.DispatchedAt
}

func (d *dispatch) polled(p fsm.Poll) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.polls = p.N
	for _, e := range p.Transitions {
		d.journal = append(d.journal, trace.Transition{At: p.Elapsed.Seconds(), From: string(e.From), To: string(e.To),
			Event: string(e.Event), Status: string(e.Status), Evidence: trace.EvidenceOf(p, e)})
	}
	if len(p.Transitions) > 0 {
		// Kept with the next checkpoint, which the engine writes after
		// this poll.
		d.st.Evidence = make([]*trace.Evidence, len(d.journal))
		for i, t := range d.journal {
			d.st.Evidence[i] = t.Evidence
		}
	}
}

// markSending keeps, before the paste, that it starts.
func (d *dispatch) markSending() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.st.SendStarted = time.Now().UTC()
	return d.write(saveSending)
}

// checkpoint is the wait's OnCheckpoint: the state file follows the wait.
// A checkpoint that differs from the last one written only in the time and
// count of the last look is not written (a working agent is looked at
// every few tens of milliseconds after a file event; each write syncs a
// file and the folder): resumed from the older one, the wait looks at once and decides
// the same, since every fact a decision rests on (state, grace start,
// failures in a row, journal, archive, a consume under way) is in it.
func (d *dispatch) checkpoint(cp fsm.Checkpoint) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	same := d.written != nil && sameFacts(*d.written, cp)
	w := saveProgress
	switch {
	case cp.Core.Consuming != nil:
		w = saveConsume
	case d.st.Wait == nil:
		w = saveWaitStart
	}
	d.st.Wait = &cp
	if d.state == StateAccepted || d.state == StateSending {
		d.state = string(cp.Core.State)
	}
	if same {
		return nil
	}
	if err := d.write(w); err != nil {
		return err
	}
	d.written = &cp
	return nil
}

// sameFacts reports whether two checkpoints differ at most in the last
// look's time and the number of looks.
func sameFacts(a, b fsm.Checkpoint) bool {
	if a.Core.Consuming != nil || b.Core.Consuming != nil || len(a.Journal) != len(b.Journal) ||
		a.ArchiveDir != b.ArchiveDir || a.ArchiveSeq != b.ArchiveSeq {
		return false
	}
	x, y := a.Core, b.Core
	x.LastAt, x.Polls, y.LastAt, y.Polls = time.Time{}, 0, time.Time{}, 0
	return x == y
}

// finish records the ending.
func (d *dispatch) finish(f *dispatchstate.Finished) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	keepEvidence(f.Report.Transitions, d.journal)
	d.st.Evidence = nil // in the ending's transitions now
	d.st.Finished = f
	d.state = finalState(f)
	d.journal = f.Report.Transitions
	return d.write(saveFinish)
}

// keepEvidence gives the ending's transitions the evidence the polls kept
// for the same transitions (the ending is built from the engine's journal,
// which has none; both lists are that journal, in order).
func keepEvidence(into, from []trace.Transition) {
	for i := range into {
		if i < len(from) && into[i].Evidence == nil && into[i].Event == from[i].Event && into[i].From == from[i].From {
			into[i].Evidence = from[i].Evidence
		}
	}
}

func finalState(f *dispatchstate.Finished) string {
	switch f.Report.Outcome {
	case "done":
		return "Done"
	case "failed":
		return "Failed"
	case dispatchstate.OutcomeCancelled:
		return StateCancelled
	}
	return StateError
}

// view is the dispatch as the API shows it; full adds the content and the
// transitions.
func (d *dispatch) view(full bool) View {
	d.mu.Lock()
	defer d.mu.Unlock()
	st := &d.st
	v := View{ID: st.ID, State: d.state, Polls: d.polls, Role: st.Role, Pane: st.Pane, Workdir: st.Workdir, Prompt: st.Prompt,
		Created: st.Created}
	if full {
		v.Transitions = append([]trace.Transition{}, d.journal...)
	}
	if f := st.Finished; f != nil {
		exit := f.Exit
		v.Final, v.Exit, v.Error, v.ArchivedPath = true, &exit, f.Error, f.ArchivedPath
		v.Report = f.Report
		v.Report.Version, v.Content, v.Transitions = nil, "", nil
		if !f.Ended.IsZero() {
			ended := f.Ended
			v.Ended = &ended
		}
		if full {
			v.Whole, v.Content = true, f.Report.Content
			v.Transitions = append([]trace.Transition{}, f.Report.Transitions...)
		}
	}
	return v
}

// release drops from memory, once the dispatch is over, what only a full
// view shows: the answer, the transitions with their evidence, the wait's
// checkpoint and the config. The state file keeps all of it. The service
// keeps each dispatch of its history for its lists until it is pruned
// (30 days by default); whole, each held its answer, up to a response
// file's size limit, and a fleet's service grew with every dispatch.
func (d *dispatch) release() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.st.Finished == nil || d.released || d.path == "" {
		return
	}
	f := *d.st.Finished
	f.Report.Content, f.Report.Transitions = "", nil
	st := d.st
	d.st = dispatchstate.State{Version: st.Version, ID: st.ID, Role: st.Role, Pane: st.Pane,
		Workdir: st.Workdir, Prompt: st.Prompt, Created: st.Created,
		Finished: &f}
	d.journal, d.written = nil, nil
	d.released = true
}

// fullView is view(true): for a released dispatch, read back from its
// state file (with the looks counted in memory, which the last checkpoint
// may not have kept). A file gone or unreadable since gives what memory
// has, without the answer.
func (d *dispatch) fullView() View {
	d.mu.Lock()
	released, path, polls := d.released, d.path, d.polls
	d.mu.Unlock()
	if !released {
		return d.view(true)
	}
	if st, err := dispatchstate.Read(path); err == nil && st.Finished != nil {
		v := newDispatch(st, path).view(true)
		v.Polls = polls
		return v
	}
	v := d.view(true)
	v.Whole, v.Content = false, ""
	return v
}

// newID is a dispatch id: its time, then random, so ids sort by time and
// never repeat.
func newID(now time.Time) string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(b[:])
}

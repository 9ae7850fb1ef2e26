package trace

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// Recorder writes what a live wait observed as a trace in the replay
// format: the config, then every poll's status at its time since dispatch,
// the response file's content when the engine consumed it, the thing at the
// path when the engine refused it, and the terminal's last output when it
// was fetched. So the trace holds the observation each decision was taken
// on, and replaying it reaches the same ending.
//
// It never reads the response file itself: a file the agent is still
// writing is not the engine's business until the agent is quiet, and the
// engine's own reading (responsefile) is the only one.
type Recorder struct {
	enc *Encoder

	mu sync.Mutex
	// lastAt is the time of the last line written.
	lastAt time.Duration
	// changed: the screen has been reported changed since dispatch.
	changed bool
	err     error
}

// NewRecorder writes cfg and the dispatch's receipt (the one given to
// fsm.Options.Receipt; "" for none) as the trace's first line to w and
// returns a Recorder for a wait with that config. Pass its Poll method as
// fsm.Options.OnPoll.
func NewRecorder(w io.Writer, cfg handoff.Config, receipt handoff.Receipt) (*Recorder, error) {
	cfg = cfg.WithDefaults()
	r := &Recorder{enc: NewEncoder(w)}
	if err := r.enc.Config(Config{Wait: cfg, Receipt: receipt}); err != nil {
		return nil, err
	}
	return r, nil
}

// Poll records one observation.
func (r *Recorder) Poll(p fsm.Poll) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || ((p.Unreadable || p.Blank) && p.Outcome == nil) {
		// A failed or blank look that the engine retries saw nothing to
		// record. (A blank look at the response deadline carries the last
		// status read, on which the engine decided: recorded as such.)
		return
	}
	st := p.Status
	l := Line{At: p.Elapsed, Status: &st}
	if c := p.Classification; c != nil && c.Status == st {
		l.Reason = c.Reason
	}
	switch p.File {
	case fsm.FileReady, fsm.FileBlank, fsm.FileMismatched:
		// What the engine consumed (and archived), receipt line included:
		// the replayed agent writes it at this moment, and the replay
		// consumes it too.
		c := p.Content
		l.File = &c
	case fsm.FileUnusable:
		// Refused and left in place: the replay puts the same kind of
		// thing there, never its content.
		problem := p.Problem
		if problem == "" {
			problem = responsefile.Unreadable
		}
		l.Unusable = &problem
	}
	if sub := p.Submission; sub != nil && sub.Tell == "" {
		// What the check at the end read, with the answer it goes with.
		l.Submitted = sub
	}
	if p.Changed && !r.changed {
		l.Changed, r.changed = true, true
	}
	if p.LastOutput != "" {
		// The last output was fetched at the decision, but it was on the
		// screen before: give it the previous poll's time, so a replay that
		// decides a little earlier on its exact deadlines reads it too.
		out := p.LastOutput
		if r.err = r.enc.Line(Line{At: r.lastAt, LastOutput: &out}); r.err != nil {
			return
		}
	}
	if r.err = r.enc.Line(l); r.err == nil {
		r.lastAt = l.At
	}
}

// Err is the first write error, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// Create creates the trace file at path, refusing to replace anything but a
// regular file.
func Create(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, errors.New(path + " exists and is not a regular file")
	}
	return os.Create(path)
}

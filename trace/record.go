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
// the response file when it appeared (with its content) and the terminal's
// last output when it was fetched. Replaying it reaches the same outcome.
type Recorder struct {
	enc  *Encoder
	path string // the response file
	max  int64  // the largest file it reads (the config's MaxResponseBytes)

	mu sync.Mutex
	// onDisk is what the replayed agent's response file holds at this point
	// of the trace; nil when there is none (never written, or consumed and
	// archived by the engine).
	onDisk *string
	// lastAt is the time of the last line written.
	lastAt time.Duration
	err    error
}

// NewRecorder writes cfg and the dispatch's receipt (pass the one given to
// fsm.Options.Receipt; "" for none) as the trace's first line to w and
// returns a Recorder for a wait on the response file at responsePath. Pass
// its Poll method as fsm.Options.OnPoll.
func NewRecorder(w io.Writer, cfg handoff.Config, responsePath string, receipt handoff.Receipt) (*Recorder, error) {
	cfg = cfg.WithDefaults()
	r := &Recorder{enc: NewEncoder(w), path: responsePath, max: cfg.MaxResponseBytes}
	c := ConfigOf(cfg)
	c.Receipt = receipt
	if err := r.enc.Config(c); err != nil {
		return nil, err
	}
	return r, nil
}

// Poll records one observation.
func (r *Recorder) Poll(p fsm.Poll) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil || (p.Unreadable && p.Outcome == nil) {
		// A failed look that the engine retries saw nothing to record.
		return
	}
	st := p.Status
	l := Line{At: p.Elapsed, Status: &st}
	switch p.File {
	case fsm.FilePresent:
		// The engine does not read a file while the agent works; read it here
		// so the trace shows when it appeared. It may still grow: the content
		// the engine finally reads is recorded again if it differs. It is read
		// as the engine reads it: a symlink, a FIFO or an oversized file is
		// not read at all (the engine refuses it when the agent is quiet).
		if r.onDisk == nil {
			if s, present, err := responsefile.Read(r.path, r.max); err == nil && present {
				l.File, r.onDisk = &s, &s
			}
		}
	case fsm.FileReady, fsm.FileBlank, fsm.FileMismatched:
		if r.onDisk == nil || *r.onDisk != p.Content {
			c := p.Content
			l.File = &c
		}
		r.onDisk = nil // archived by the engine
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

package main

import (
	"errors"
	"io"
	"os"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// recorder writes what a live wait observed as a trace in the replay
// format: the config, then every poll's status at its time since dispatch,
// the response file when it appeared (with its content) and the terminal's
// last output when it was fetched. Replaying it reaches the same outcome.
type recorder struct {
	enc  *trace.Encoder
	path string // the response file

	mu sync.Mutex
	// onDisk is what the replayed agent's response file holds at this point
	// of the trace; nil when there is none (never written, or consumed and
	// archived by the engine).
	onDisk *string
	// lastAt is the time of the last line written.
	lastAt time.Duration
	err    error
}

func newRecorder(w io.Writer, cfg handoff.Config, responsePath string) (*recorder, error) {
	r := &recorder{enc: trace.NewEncoder(w), path: responsePath}
	if err := r.enc.Config(trace.ConfigOf(cfg)); err != nil {
		return nil, err
	}
	return r, nil
}

// poll records one observation.
func (r *recorder) poll(p fsm.Poll) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	st := p.Status
	l := trace.Line{At: p.Elapsed, Status: &st}
	switch p.File {
	case fsm.FilePresent:
		// The engine does not read a file while the agent works; read it here
		// so the trace shows when it appeared. It may still grow: the content
		// the engine finally reads is recorded again if it differs.
		if r.onDisk == nil {
			if b, err := os.ReadFile(r.path); err == nil {
				s := string(b)
				l.File, r.onDisk = &s, &s
			}
		}
	case fsm.FileReady, fsm.FileBlank:
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
		if r.err = r.enc.Line(trace.Line{At: r.lastAt, LastOutput: &out}); r.err != nil {
			return
		}
	}
	if r.err = r.enc.Line(l); r.err == nil {
		r.lastAt = l.At
	}
}

// Err is the first write error, if any.
func (r *recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// openRecord creates the trace file (refusing to overwrite nothing but a
// regular file).
func openRecord(path string) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, errors.New(path + " exists and is not a regular file")
	}
	return os.Create(path)
}

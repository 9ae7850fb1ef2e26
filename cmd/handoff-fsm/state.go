package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// stateVersion is the state file format written by send --state.
const stateVersion = 1

// dispatchState is the state file of `send --state FILE`: everything
// `resume` needs to continue the wait in another process without sending
// the prompt again, rewritten atomically after every poll, and the outcome
// once the dispatch is over.
type dispatchState struct {
	Version int `json:"version"`
	// The pane, as send's flags named it.
	Target      string `json:"target"`
	Socket      string `json:"socket,omitempty"`
	SocketPath  string `json:"socket_path,omitempty"`
	Provider    string `json:"provider"`
	History     int    `json:"history"`
	AllowShell  bool   `json:"allow_shell,omitempty"`
	TmuxTimeout string `json:"tmux_timeout"`
	// The dispatch.
	Role    string      `json:"role"`
	Workdir string      `json:"workdir"` // absolute
	Config  stateConfig `json:"config"`
	// Wait is the engine's checkpoint: the core's snapshot, the journal, the
	// archive folder and its last number, and the pane's identity (its id,
	// its process and the server's, with their start times: resume ends
	// with a terminal error when the target now names another pane).
	// Absent only in a state file written before the prompt was sent.
	Wait *fsm.Checkpoint `json:"wait,omitempty"`
	// Finished is the outcome, once there is one.
	Finished *finishedState `json:"finished,omitempty"`
}

// stateConfig is handoff.Config with durations as Go durations ("2s").
type stateConfig struct {
	Poll             string `json:"poll"`
	IdleGrace        string `json:"idle_grace"`
	ResponseTimeout  string `json:"response_timeout"`
	Strict           bool   `json:"strict"`
	MaxResponseBytes int64  `json:"max_response_bytes"`
	MaxPollFailures  int    `json:"max_poll_failures"`
}

// finishedState is how a dispatch ended: what `resume` prints again.
type finishedState struct {
	Exit   int          `json:"exit"`
	Report trace.Report `json:"report"`
	// Error is the failure's message ("" when done).
	Error        string `json:"error,omitempty"`
	ArchivedPath string `json:"archived_path,omitempty"`
}

func stateConfigOf(c handoff.Config) stateConfig {
	return stateConfig{Poll: c.Poll.String(), IdleGrace: c.IdleGrace.String(), ResponseTimeout: c.ResponseTimeout.String(),
		Strict: c.Strict(), MaxResponseBytes: c.MaxResponseBytes, MaxPollFailures: c.MaxPollFailures}
}

// config is the handoff.Config; the error names the field.
func (s stateConfig) config() (handoff.Config, error) {
	var c handoff.Config
	for _, d := range []struct {
		field string
		text  string
		into  *time.Duration
	}{{"config.poll", s.Poll, &c.Poll}, {"config.idle_grace", s.IdleGrace, &c.IdleGrace}, {"config.response_timeout", s.ResponseTimeout, &c.ResponseTimeout}} {
		v, err := time.ParseDuration(d.text)
		if err != nil {
			return c, fieldErr(d.field, "%q is not a duration (like \"2s\")", d.text)
		}
		*d.into = v
	}
	c.Fallback, c.MaxResponseBytes, c.MaxPollFailures = !s.Strict, s.MaxResponseBytes, s.MaxPollFailures
	if err := c.Validate(); err != nil {
		return c, fieldErr("config", "%v", err)
	}
	return c, nil
}

// errBadState is wrapped by every complaint about a state file.
var errBadState = errors.New("malformed state file")

func fieldErr(field, format string, a ...any) error {
	return fmt.Errorf("%w: field %q: %s", errBadState, field, fmt.Sprintf(format, a...))
}

// parseState reads a state file and checks every field; the error names the
// first field that is wrong.
func parseState(b []byte) (*dispatchState, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var st dispatchState
	if err := dec.Decode(&st); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%w: not JSON at byte %d: %v", errBadState, syn.Offset, err)
		case errors.As(err, &typ):
			return nil, fieldErr(typ.Field, "a %s is not a %v", typ.Value, typ.Type)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return nil, fieldErr(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "unknown field")
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%w: the file is empty", errBadState)
		}
		return nil, fmt.Errorf("%w: %v", errBadState, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON object", errBadState)
	}
	return &st, st.validate()
}

func (st *dispatchState) validate() error {
	switch {
	case st.Version != stateVersion:
		return fieldErr("version", "%d is not a known version (want %d)", st.Version, stateVersion)
	case st.Target == "":
		return fieldErr("target", "missing")
	case st.Socket != "" && st.SocketPath != "":
		return fieldErr("socket_path", "give socket or socket_path, not both")
	case st.History < 0:
		return fieldErr("history", "negative")
	case !filepath.IsAbs(st.Workdir):
		return fieldErr("workdir", "%q is not an absolute path", st.Workdir)
	}
	if _, err := provider.Lookup(st.Provider); err != nil {
		return fieldErr("provider", "%v", err)
	}
	if d, err := time.ParseDuration(st.TmuxTimeout); err != nil || d <= 0 {
		return fieldErr("tmux_timeout", "%q is not a positive duration", st.TmuxTimeout)
	}
	if _, err := handoff.ResponsePath(st.Workdir, st.Role); err != nil {
		return fieldErr("role", "%v", err)
	}
	cfg, err := st.Config.config()
	if err != nil {
		return err
	}
	if f := st.Finished; f != nil {
		known := f.Exit == exitOK
		for _, o := range handoff.Outcomes() {
			known = known || f.Exit == o.Exit
		}
		switch {
		case !known:
			return fieldErr("finished.exit", "%d is not the exit status of an outcome", f.Exit)
		case f.Report.Outcome != "done" && f.Report.Outcome != "failed":
			return fieldErr("finished.report.outcome", "%q is neither done nor failed", f.Report.Outcome)
		case f.Report.Outcome == "failed" && handoff.ErrorKind(recordedErr(f)) == "":
			return fieldErr("finished.report.error", "%q is not a failure of the table", f.Report.Error)
		}
		return nil
	}
	w := st.Wait
	switch {
	case w == nil:
		return fieldErr("wait", "missing: the dispatch never started waiting (was the prompt sent?); send it again")
	case w.ArchiveDir == "":
		return fieldErr("wait.archive_dir", "missing")
	case w.ArchiveSeq < 0:
		return fieldErr("wait.archive_seq", "negative")
	}
	if _, err := fsm.Resume(cfg, w.Core); err != nil {
		return fieldErr("wait.core", "%v", err)
	}
	if w.Pane != nil {
		if err := w.Pane.Validate(); err != nil {
			var fe *handoff.PaneFieldError
			if errors.As(err, &fe) {
				return fieldErr("wait.pane."+fe.Field, "%s", fe.Problem)
			}
			return fieldErr("wait.pane", "%v", err)
		}
	}
	if w.Core.State.Final() {
		return fieldErr("wait.core.state", "%s, but the state file has no finished outcome", w.Core.State)
	}
	return nil
}

// readState reads and checks the state file at path.
func readState(path string) (*dispatchState, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	st, err := parseState(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return st, nil
}

// write replaces the state file at path atomically: a temporary file in the
// same folder, synced, renamed over it, and the folder synced. A reader (or
// a resume after a crash) sees the old state or the new one, never a mix.
func (st *dispatchState) write(path string) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// startState prepares the state file of the dispatch d is about to make
// and hooks d to keep it current: the engine writes it first once the slot
// is taken and the prompt sent, so a second send given the same file while
// the first still runs cannot clobber it. Whether it can be written is
// checked now, before anything is sent. The work folder becomes absolute:
// resume may run elsewhere.
func startState(path string, pf *paneFlags, d *dispatch) (*dispatchState, error) {
	abs, err := filepath.Abs(d.workdir)
	if err != nil {
		return nil, err
	}
	d.workdir = abs
	st := &dispatchState{Version: stateVersion, Target: *pf.target, Socket: *pf.socket, SocketPath: *pf.socketPath,
		Provider: *pf.provider, History: *pf.history, AllowShell: *pf.allowShell, TmuxTimeout: pf.tmuxWait.d.String(),
		Role: d.role, Workdir: abs, Config: stateConfigOf(d.cfg)}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	probe, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	probe.Close()
	os.Remove(probe.Name())
	d.onCheckpoint = st.saver(path)
	return st, nil
}

// saver returns the OnCheckpoint hook that keeps the state file at path
// current.
func (st *dispatchState) saver(path string) func(fsm.Checkpoint) error {
	return func(cp fsm.Checkpoint) error {
		st.Wait = &cp
		return st.write(path)
	}
}

// finish records the outcome of a wait that has one (rep non-nil); a wait
// that ended without one (interrupted, an I/O error) keeps its last
// checkpoint, to be resumed.
func (st *dispatchState) finish(path string, rep *trace.Report, res fsm.Result, err error, exit int, stderr io.Writer) {
	if rep == nil || st.Wait == nil {
		if st.Wait != nil {
			fmt.Fprintf(stderr, "handoff-fsm: the wait can go on with: handoff-fsm resume --state %s\n", path)
		}
		return
	}
	st.Finished = &finishedState{Exit: exit, Report: *rep, ArchivedPath: res.ArchivedPath}
	if err != nil {
		st.Finished.Error = err.Error()
	}
	if werr := st.write(path); werr != nil {
		fmt.Fprintf(stderr, "handoff-fsm: --state: %v\n", werr)
	}
}

// recordedError is a failure read back from a state file: its message, and
// the table's sentinel for errors.Is.
type recordedError struct {
	msg  string
	kind error
}

func (e *recordedError) Error() string { return e.msg }
func (e *recordedError) Unwrap() error { return e.kind }

func recordedErr(f *finishedState) error {
	if f.Report.Outcome != "failed" {
		return nil
	}
	for _, o := range handoff.Outcomes() {
		if o.Err != nil && o.Name == f.Report.Error {
			return &recordedError{msg: f.Error, kind: o.Err}
		}
	}
	return &recordedError{msg: f.Error}
}

// replayFinished prints a finished dispatch's outcome as send printed it and
// returns its exit status; the pane is not touched.
func (st *dispatchState) replayFinished(asJSON bool, stdout, stderr io.Writer) int {
	f := st.Finished
	fmt.Fprintf(stderr, "handoff-fsm resume: this dispatch had already finished; its recorded outcome follows (the pane was not touched)\n")
	res := fsm.Result{Content: f.Report.Content, Source: fsm.Source(f.Report.Source),
		Elapsed: time.Duration(f.Report.At * float64(time.Second)), ArchivedPath: f.ArchivedPath}
	rep := f.Report
	code := finish("resume", &rep, res, recordedErr(f), asJSON, stdout, stderr)
	if code != f.Exit {
		fmt.Fprintf(stderr, "handoff-fsm resume: the recorded exit status was %d\n", f.Exit)
		return f.Exit
	}
	return code
}

// openPane opens the pane the state names.
func (st *dispatchState) openPane() (*tmuxdriver.Pane, error) {
	cl, err := provider.Lookup(st.Provider)
	if err != nil {
		return nil, err
	}
	timeout, _ := time.ParseDuration(st.TmuxTimeout)
	return tmuxdriver.New(tmuxdriver.Options{
		Server:     tmuxdriver.Server{Socket: st.Socket, SocketPath: st.SocketPath, Timeout: timeout},
		Target:     st.Target,
		Classifier: cl,
		History:    st.History,
		AllowShell: st.AllowShell,
	})
}

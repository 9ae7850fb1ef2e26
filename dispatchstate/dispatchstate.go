// Package dispatchstate is the one format of a dispatch that must outlive
// its process: `handoff-fsm send --state` and `resume`, the service
// (`handoff-fsm serve`) and examples/three-agents all keep a dispatch as a
// State in a JSON file. It holds the pane, the role, the work folder, the
// settings, the engine's checkpoint (fsm.Checkpoint) and, once there is one,
// the outcome. The package writes it atomically, checks every field (an
// error names the field), and says what a process that finds one must do
// with it (Next): send it, resume the wait, or report the recorded outcome.
package dispatchstate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/atomicfile"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// Version is the format written.
const Version = 1

// State is a dispatch kept on disk: everything another process needs to
// send it, to continue its wait without sending again, or to report how it
// ended.
type State struct {
	Version int `json:"version"`
	// ID is the owner's name for the dispatch (the service's dispatch id,
	// the example's step); "" for send --state.
	ID string `json:"id,omitempty"`
	// Pane is where the agent is, its keys inline (target, socket,
	// socket_path, provider), as send's flags name it.
	Pane
	History     int    `json:"history"`
	AllowShell  bool   `json:"allow_shell,omitempty"`
	TmuxTimeout string `json:"tmux_timeout"`
	// The dispatch.
	Role    string `json:"role"`
	Workdir string `json:"workdir"` // absolute
	// Config is the wait's, in handoff.Config's JSON form (files written
	// before it kept durations as "2s": still read).
	Config handoff.Config `json:"config"`
	// Prompt is kept by owners that may have to send the dispatch from
	// another process (the service accepts it before it pastes) and show
	// who was asked what; "" when the prompt is not kept.
	Prompt string `json:"prompt,omitempty"`
	// WaitSlot: when another dispatch holds the role's response slot, wait
	// for it instead of failing (fsm.Options.WaitSlot).
	WaitSlot bool `json:"wait_slot,omitempty"`
	// HookDir is the folder the agent's turn-end hook writes its markers
	// to (handoff-fsm hook --dir, which up wires): the wait decides on its
	// Stop marker at once. "" for none.
	HookDir string `json:"hook_dir,omitempty"`
	// Created is when the dispatch was accepted (zero when not recorded).
	Created time.Time `json:"created,omitzero"`
	// SendStarted is set, and written, before the prompt is pasted: a state
	// with it but without Wait belongs to a process that died while pasting
	// (see Next).
	SendStarted time.Time `json:"send_started,omitzero"`
	// Wait is the engine's checkpoint: the core's snapshot, the journal,
	// the archive folder and its last number, and the pane's identity (its
	// id, its process and the server's, with their start times: a resumed
	// wait ends with a terminal error when the target now names another
	// pane). Absent until the prompt was sent and the wait started.
	Wait *fsm.Checkpoint `json:"wait,omitempty"`
	// Evidence is, for each transition of Wait's journal in order, what
	// decided it (nil where it was not kept), for owners that show it (the
	// service's history): so it survives a restart with the wait.
	Evidence []*trace.Evidence `json:"evidence,omitempty"`
	// Finished is the outcome, once there is one.
	Finished *Finished `json:"finished,omitempty"`
}

// The outcomes a Finished records besides the table's "done" and "failed"
// (trace.Report's words): both exit with ExitOther.
const (
	// OutcomeCancelled: the owner cancelled the dispatch (the service's
	// DELETE); what the agent wrote was archived.
	OutcomeCancelled = "cancelled"
	// OutcomeError: the dispatch ended without a decision of the table
	// (the slot was busy, the prompt could not be sent, the archive could
	// not be written, the process died while pasting); Error says why.
	OutcomeError = "error"
)

// ExitOther is the exit status of an ending that is not one of the table's
// outcomes (the command's "anything else").
const ExitOther = 1

// Finished is how a dispatch ended: what a resume prints again.
type Finished struct {
	Exit   int          `json:"exit"`
	Report trace.Report `json:"report"`
	// Error is the failure's message ("" when done).
	Error        string `json:"error,omitempty"`
	ArchivedPath string `json:"archived_path,omitempty"`
	// Ended is when the outcome was recorded (zero when not recorded).
	Ended time.Time `json:"ended,omitzero"`
}

// ErrMalformed is wrapped by every complaint about a state file.
var ErrMalformed = errors.New("malformed state file")

func fieldErr(field, format string, a ...any) error {
	return fmt.Errorf("%w: field %q: %s", ErrMalformed, field, fmt.Sprintf(format, a...))
}

// configErr is a config that cannot be read or used, naming its key
// (config.poll) when the error does (handoff.ConfigError).
func configErr(err error) error {
	var ce *handoff.ConfigError
	if errors.As(err, &ce) {
		return fieldErr("config."+ce.Field, "%v", ce.Err)
	}
	return fieldErr("config", "%v", err)
}

// Parse reads a state and checks every field; the error wraps ErrMalformed
// and names the first field that is wrong.
func Parse(b []byte) (*State, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var st State
	if err := dec.Decode(&st); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, handoff.ErrInvalidConfig):
			return nil, configErr(err)
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%w: not JSON at byte %d: %v", ErrMalformed, syn.Offset, err)
		case errors.As(err, &typ):
			return nil, fieldErr(typ.Field, "a %s is not a %v", typ.Value, typ.Type)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return nil, fieldErr(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "unknown field")
		case errors.Is(err, io.EOF):
			return nil, fmt.Errorf("%w: the file is empty", ErrMalformed)
		}
		if field := locate(b); field != "" {
			return nil, fieldErr(field, "%v", err)
		}
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON object", ErrMalformed)
	}
	return &st, st.Validate()
}

// locate finds the top-level field whose value alone fails to decode (a
// time that is not one, say), for errors the decoder does not place.
func locate(b []byte) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(b, &fields) != nil {
		return ""
	}
	for name, v := range fields {
		one, _ := json.Marshal(map[string]json.RawMessage{name: v})
		var st State
		if json.Unmarshal(one, &st) != nil {
			return name
		}
	}
	return ""
}

// Validate checks every field; the error wraps ErrMalformed and names the
// first field that is wrong.
func (st *State) Validate() error {
	switch {
	case st.Version != Version:
		return fieldErr("version", "%d is not a known version (want %d)", st.Version, Version)
	case st.Target == "":
		return fieldErr("target", "missing")
	case st.CheckServer() != nil:
		return fieldErr("socket_path", "%v", ErrSocketAndPath)
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
	if _, err := handoff.DefaultRoleFiles().With(st.Role); err != nil {
		return fieldErr("role", "%v", err)
	}
	if err := handoff.CheckPrompt(st.Prompt); err != nil {
		return fieldErr("prompt", "%v", err)
	}
	if err := st.Config.Validate(); err != nil {
		return configErr(err)
	}
	if f := st.Finished; f != nil {
		return f.validate()
	}
	w := st.Wait
	switch {
	case w == nil && st.Prompt == "":
		return fieldErr("wait", "missing: the dispatch never started waiting (was the prompt sent?); send it again")
	case w == nil:
		return nil // accepted, to be sent (or interrupted while sending: see Next)
	case w.ArchiveDir == "":
		return fieldErr("wait.archive_dir", "missing")
	case w.ArchiveSeq < 0:
		return fieldErr("wait.archive_seq", "negative")
	}
	if _, err := fsm.Resume(st.Config, w.Core); err != nil {
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

func (f *Finished) validate() error {
	known := f.Exit == 0
	for _, o := range handoff.Outcomes() {
		known = known || f.Exit == o.Exit
	}
	switch r := f.Report; {
	case r.Outcome == OutcomeCancelled || r.Outcome == OutcomeError:
		if f.Exit != ExitOther {
			return fieldErr("finished.exit", "%d: a dispatch that ended %s exits %d", f.Exit, r.Outcome, ExitOther)
		}
		if r.Outcome == OutcomeError && f.Error == "" {
			return fieldErr("finished.error", "missing: say why the dispatch ended without an outcome")
		}
	case !known:
		return fieldErr("finished.exit", "%d is not the exit status of an outcome", f.Exit)
	case r.Outcome != "done" && r.Outcome != "failed":
		return fieldErr("finished.report.outcome", "%q is none of done, failed, %s, %s", r.Outcome, OutcomeCancelled, OutcomeError)
	case r.Outcome == "failed" && handoff.ErrorKind(f.Err()) == "":
		return fieldErr("finished.report.error", "%q is not a failure of the table", r.Error)
	}
	return nil
}

// Read reads and checks the state file at path. A file that does not parse
// is read again, twice at most, before it is called malformed: an owner
// that writes through a spare (Rewrite) overwrites in place the file a
// slow reader opened two writes ago, so a reader of a live dispatch can
// catch a mix once; opened again, the path names the new state.
func Read(path string) (*State, error) { return read(path, os.ReadFile) }

func read(path string, readFile func(string) ([]byte, error)) (*State, error) {
	var err error
	for range 3 {
		var b []byte
		if b, err = readFile(path); err != nil {
			return nil, err
		}
		var st *State
		if st, err = Parse(b); err == nil {
			return st, nil
		}
	}
	return nil, fmt.Errorf("%s: %w", path, err)
}

// Marshal is the state file's bytes.
func (st *State) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Write replaces the state file at path atomically and durably: a
// temporary file in the same folder, synced, renamed over it, and the
// folder synced. A reader (or a resume after a crash) sees the old state or
// the new one, never a mix, and once Write returns the new one survives a
// crash of the machine.
func (st *State) Write(path string) error {
	return st.Rewrite(path, "")
}

// Rewrite replaces the state file at path as Write does, atomically and
// durably, for an owner that rewrites it many times (the service: seven
// times per dispatch): with spare, a file of the owner's beside path (""
// for none), the new state is written over spare, synced, swapped with
// path in one atomic step (renameat2 RENAME_EXCHANGE on Linux,
// renameatx_np RENAME_SWAP on macOS), and the folder synced; spare then
// holds the previous state. A temporary file per write costs the kernel a
// new inode and the freeing of the old one, more than the swap. The spare
// is never the state: a crash while it is written leaves path as it was.
// The folder is synced after every swap, so that the next write, which
// writes over the spare in place, never writes over what the disk may
// still name path. Where the system cannot swap, or path does not exist
// yet, it writes as Write. The owner removes spare when the state is
// final.
func (st *State) Rewrite(path, spare string) error {
	b, err := st.Marshal()
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	swapped := false
	if spare != "" {
		if swapped, err = swap(b, spare, path); err != nil {
			return err
		}
	}
	if !swapped {
		if err := atomicfile.WriteSynced(path, b, 0o600); err != nil {
			return err
		}
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// swap writes b over spare, syncs it and exchanges it with path; swapped is
// false, with no error, when path does not exist yet or the system or the
// file system cannot exchange two names (the caller then writes through a
// temporary file).
func swap(b []byte, spare, path string) (swapped bool, err error) {
	if _, err := os.Lstat(path); err != nil {
		return false, nil
	}
	f, err := os.OpenFile(spare, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return false, err
	}
	_, err = f.WriteAt(b, 0)
	if err == nil {
		err = f.Truncate(int64(len(b)))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return false, err
	}
	err = exchange(spare, path)
	if errors.Is(err, errNoExchange) {
		return false, nil
	}
	return err == nil, err
}

// errNoExchange: the system or the file system cannot exchange two names.
var errNoExchange = errors.New("cannot exchange two names")

// Probe checks that a state file can be written at path (its folder exists
// and takes files; path is not a folder) without writing it: callers check
// before they send anything.
func Probe(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a directory", path)
	}
	probe, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// Saver returns the fsm.Options.OnCheckpoint hook that keeps the state
// file at path current. Not safe for use by other goroutines while the
// wait runs; an owner that reads the state concurrently wraps it.
func (st *State) Saver(path string) func(fsm.Checkpoint) error {
	return func(cp fsm.Checkpoint) error {
		st.Wait = &cp
		return st.Write(path)
	}
}

// Next is what a process that finds a state must do with it.
type Next int

// The things to do with a state.
const (
	// Send: accepted and never pasted: send it (fsm.SendAndWait).
	Send Next = iota
	// Resume: the prompt was sent: continue the wait from Wait without
	// sending again (fsm.Options.Resume).
	Resume
	// Report: finished: report the recorded outcome; touch nothing.
	Report
	// Unsure: the process died while pasting the prompt (SendStarted, no
	// Wait): it may or may not have reached the agent. It is not pasted
	// again (twice is worse than once); the owner ends it with
	// InterruptedWhileSending.
	Unsure
)

// Next says what to do with st.
func (st *State) Next() Next {
	switch {
	case st.Finished != nil:
		return Report
	case st.Wait != nil:
		return Resume
	case !st.SendStarted.IsZero():
		return Unsure
	}
	return Send
}

// InterruptedWhileSending is the ending of a state whose Next is Unsure.
func InterruptedWhileSending(now time.Time) *Finished {
	return cutShort(now, "the process died while pasting the prompt: it may or may not have reached the agent, and was not pasted again; look at the pane and dispatch again if needed")
}

// ClearedWhileSending is the ending of a state whose Next is Unsure when
// its prompt was then found unsent in the agent's composer and cleared
// there: it never reached the agent.
func ClearedWhileSending(now time.Time) *Finished {
	return cutShort(now, "the process died while pasting the prompt, before submitting it: it did not reach the agent, and its text was cleared from the agent's composer (not pasted again); dispatch again")
}

func cutShort(now time.Time, msg string) *Finished {
	return &Finished{Exit: ExitOther, Ended: now,
		Report: trace.Report{Outcome: OutcomeError, Transitions: []trace.Transition{}}, Error: msg}
}

// Roles maps the state's role to its response file: the spec's five, and
// the role itself when it is one of the owner's (validated by Parse).
func (st *State) Roles() handoff.RoleFiles {
	roles, err := handoff.DefaultRoleFiles().With(st.Role)
	if err != nil {
		return handoff.DefaultRoleFiles()
	}
	return roles
}

// Open opens the pane the state names, with runner carrying its tmux
// commands (nil: a tmux process per command).
func (st *State) Open(runner tmuxdriver.Runner) (*tmuxdriver.Pane, error) {
	o, err := st.PaneOptions()
	if err != nil {
		return nil, err
	}
	o.Runner = runner
	return tmuxdriver.New(o)
}

// PaneOptions are the tmuxdriver.Options of the pane the state names; a
// provider "auto" is named by the driver on its first look at the pane
// (PickProvider).
func (st *State) PaneOptions() (tmuxdriver.Options, error) {
	var cl handoff.Classifier
	var pick tmuxdriver.Picker
	if st.Provider == provider.Auto {
		pick = PickProvider
	} else {
		var err error
		if cl, err = provider.Lookup(st.Provider); err != nil {
			return tmuxdriver.Options{}, err
		}
	}
	timeout, err := time.ParseDuration(st.TmuxTimeout)
	if err != nil {
		return tmuxdriver.Options{}, fieldErr("tmux_timeout", "%q is not a duration", st.TmuxTimeout)
	}
	return tmuxdriver.Options{
		Server:     st.Server(timeout),
		Target:     st.Target,
		Classifier: cl,
		Pick:       pick,
		History:    st.History,
		AllowShell: st.AllowShell,
		// The provider's own pause before Enter (Qwen Code folds a long
		// paste and would submit the placeholder), as `send` gives it.
		EnterDelay: provider.EnterDelay(st.Provider),
	}, nil
}

// Gone reports whether err says the pane, its agent or its tmux server is
// not there any more (it wraps handoff.ErrTerminalGone): a terminal error,
// as far as the outcome goes. tmux missing from the machine is not one:
// the engine gives up on it at once as well, but it is the machine's setup,
// an ending of its own (ExitOther), as the command's usage says.
func Gone(err error) bool {
	return errors.Is(err, handoff.ErrTerminalGone) && !errors.Is(err, tmuxdriver.ErrTmuxNotFound)
}

// outcomeErr is err as the table's outcomes read it: a pane gone before the
// first look (the wait never ran) is a terminal error all the same.
func outcomeErr(err error) error {
	if Gone(err) && !errors.Is(err, handoff.ErrTerminalError) {
		return &handoff.WaitError{Kind: handoff.ErrTerminalError, Cause: err}
	}
	return err
}

// ExitOf is the exit status of what fsm.SendAndWait returned: the outcome's
// (the table's, or a refusal's before the paste; a pane gone before the
// first look is a terminal error), ExitOther for anything else.
func ExitOf(res fsm.Result, err error) int {
	if err == nil {
		return res.Outcome().Exit
	}
	if o, ok := handoff.FailureOf(outcomeErr(err)); ok {
		return o.Exit
	}
	return ExitOther
}

// ReportOf is the replay-format result object (what send --json prints) of
// what fsm.SendAndWait returned: the table's outcome, a refusal before the
// paste (the agent busy: failed, agent_busy, no transition), or a pane gone
// before the first look (failed, terminal_error). ok is false for an ending
// that is none of them (interrupted, the slot busy, the archive not
// writable): it has no report of its own.
func ReportOf(res fsm.Result, err error) (rep trace.Report, ok bool) {
	rep, rerr := trace.ReportOf(res, outcomeErr(err))
	return rep, rerr == nil
}

// FinishedOf records what fsm.SendAndWait returned, at now. A wait that
// could not decide (the slot busy, the prompt not sent, the archive not
// writable) is OutcomeError; nil when the context ended it (it can be
// resumed, or its owner cancelled it).
func FinishedOf(res fsm.Result, err error, now time.Time) *Finished {
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return nil
	}
	f := &Finished{Exit: ExitOf(res, err), ArchivedPath: res.ArchivedPath, Ended: now}
	if err != nil {
		f.Error = err.Error()
	}
	rep, ok := ReportOf(res, err)
	if !ok {
		rep, _ = trace.ReportOf(res, nil)
		rep.Outcome, rep.Source, rep.Content = OutcomeError, "", ""
	}
	f.Report = rep
	return f
}

// recordedError is a failure read back from a state: its message, and the
// table's sentinel for errors.Is.
type recordedError struct {
	msg    string
	kind   error
	unsent bool
}

func (e *recordedError) Error() string { return e.msg }
func (e *recordedError) Unwrap() []error {
	var errs []error
	if e.kind != nil {
		errs = append(errs, e.kind)
	}
	if e.unsent {
		errs = append(errs, handoff.ErrNotSubmitted)
	}
	return errs
}

// Err is the recorded failure, nil for a dispatch that was done; it wraps
// the table's sentinel (handoff.ErrNoResponseFile, …) when there is one,
// and handoff.ErrNotSubmitted when the prompt never left the agent's
// composer (Report.NotSubmitted).
func (f *Finished) Err() error {
	if f.Report.Outcome == "done" {
		return nil
	}
	for _, o := range handoff.Outcomes() {
		if o.Err != nil && o.Name == f.Report.Error {
			return &recordedError{msg: f.Error, kind: o.Err, unsent: f.Report.NotSubmitted}
		}
	}
	return &recordedError{msg: f.Error}
}

// Result is the recorded outcome as the fsm.Result the wait returned
// (content, source, elapsed time, archive path).
func (f *Finished) Result() fsm.Result {
	return fsm.Result{Content: f.Report.Content, Source: fsm.Source(f.Report.Source),
		Elapsed: time.Duration(f.Report.At * float64(time.Second)), ArchivedPath: f.ArchivedPath}
}

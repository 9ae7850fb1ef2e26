package main

import (
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// The state file of `send --state FILE` is a dispatchstate.State: the
// format, its atomic rewrite, its validation and what resuming means live
// there, shared with serve and the examples. This file only ties it to
// send's flags and output.

// startState prepares the state file of the dispatch d is about to make
// and hooks d to keep it current: the engine writes it first once the slot
// is taken and the prompt sent, so a second send given the same file while
// the first still runs cannot clobber it. Whether it can be written is
// checked now, before anything is sent. The work folder becomes absolute:
// resume may run elsewhere.
func startState(path string, pf *paneFlags, d *dispatch) (*dispatchstate.State, error) {
	abs, err := filepath.Abs(d.workdir)
	if err != nil {
		return nil, err
	}
	d.workdir = abs
	st := &dispatchstate.State{Version: dispatchstate.Version, Pane: pf.pane,
		History: *pf.history, AllowShell: *pf.allowShell, TmuxTimeout: pf.tmuxWait.D.String(),
		Role: d.role, Workdir: abs, Config: d.cfg}
	if err := dispatchstate.Probe(path); err != nil {
		return nil, err
	}
	d.onCheckpoint = st.Saver(path)
	return st, nil
}

// finishState records the outcome of a wait that has one (rep non-nil); a
// wait that ended without one (interrupted, an I/O error) keeps its last
// checkpoint, to be resumed.
func finishState(st *dispatchstate.State, path string, rep *trace.Report, res fsm.Result, err error, exit int, stderr io.Writer) {
	if rep == nil || st.Wait == nil {
		if st.Wait != nil {
			fmt.Fprintf(stderr, "handoff-fsm: the wait can go on with: handoff-fsm resume --state %s\n", path)
		}
		return
	}
	st.Finished = &dispatchstate.Finished{Exit: exit, Report: *rep, ArchivedPath: res.ArchivedPath, Ended: time.Now().UTC()}
	if err != nil {
		st.Finished.Error = err.Error()
	}
	if werr := st.Write(path); werr != nil {
		fmt.Fprintf(stderr, "handoff-fsm: --state: %v\n", werr)
	}
}

// replayFinished prints a finished dispatch's outcome as send printed it and
// returns its exit status; the pane is not touched.
func replayFinished(st *dispatchstate.State, asJSON bool, stdout, stderr io.Writer) int {
	f := st.Finished
	fmt.Fprintf(stderr, "handoff-fsm resume: this dispatch had already finished; its recorded outcome follows (the pane was not touched)\n")
	rep := f.Report
	code := finish("resume", &rep, f.Result(), f.Err(), asJSON, stdout, stderr)
	if code != f.Exit {
		fmt.Fprintf(stderr, "handoff-fsm resume: the recorded exit status was %d\n", f.Exit)
		return f.Exit
	}
	return code
}

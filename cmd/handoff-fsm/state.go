package main

import (
	"fmt"
	"io"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// The state file of `send --state FILE` is a dispatchstate.State: the
// format, its atomic rewrite, its validation and what resuming means live
// there, shared with serve and the examples. This file only ties it to
// send's flags and output.

// startState prepares the state file of the dispatch b asks for: the
// engine's checkpoints keep it current (local.options), the first once the
// slot is taken and the prompt sent, so a second send given the same file
// while the first still runs cannot clobber it. Whether it can be written
// is checked now, before anything is sent. The work folder is absolute:
// resume may run elsewhere.
func startState(path string, pf *paneFlags, b serve.SubmitBody) (*dispatchstate.State, error) {
	pane := pf.pane
	pane.Provider = b.Provider
	st := &dispatchstate.State{Version: dispatchstate.Version, Pane: pane,
		History: *pf.history, AllowShell: *pf.allowShell, TmuxTimeout: pf.tmuxWait.D.String(),
		Role: b.Role, Workdir: b.Workdir, Config: *b.Config}
	if err := dispatchstate.Probe(path); err != nil {
		return nil, err
	}
	return st, nil
}

// finishState records the outcome of a wait that has one (final, done or
// failed); a wait that ended without one (interrupted, an I/O error) keeps
// its last checkpoint, to be resumed.
func finishState(st *dispatchstate.State, path string, final *serve.View, stderr io.Writer) {
	var f dispatchstate.Finished
	if final != nil {
		f = final.Finished()
	}
	if o := f.Report.Outcome; o != "done" && o != "failed" || st.Wait == nil {
		if st.Wait != nil {
			fmt.Fprintf(stderr, "handoff-fsm: the wait can go on with: handoff-fsm resume --state %s\n", path)
		}
		return
	}
	f.Ended = time.Now().UTC()
	st.Finished = &f
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

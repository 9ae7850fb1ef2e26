package main

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/panelock"
)

// paneDispatch is what status and the board say about a pane's dispatches:
// who holds it now, and the dispatch that timed out on it while its agent
// still worked. Nothing is changed: a marker is cleared only by a dispatch.
type paneDispatch struct {
	// Dispatch holds the pane now (send or resume waiting on it).
	Dispatch *panelock.Holder `json:"dispatch,omitempty"`
	// TimedOut is the pane's timed-out dispatch, not yet seen finished.
	TimedOut *panelock.TimedOut `json:"timed_out,omitempty"`
	// Note says it in words.
	Note string `json:"note,omitempty"`
}

// dispatchesOn reads the lock holder and timed-out marker of the pane id
// names; the zero value when there are none.
func dispatchesOn(id handoff.PaneIdentity, st handoff.Status) paneDispatch {
	dir, err := panelock.Dir()
	if err != nil {
		return paneDispatch{}
	}
	var d paneDispatch
	if h, ok := panelock.HolderOf(dir, id); ok {
		d.Dispatch = &h
		d.Note = "dispatching: " + h.String()
	}
	if m := panelock.TimedOutOn(dir, id); m != nil {
		d.TimedOut = m
		note := "still working on " + m.Describe()
		if st.Quiet() {
			note = "ready again after " + m.Describe() + " (its late answer, if any, is in its response file)"
		}
		if d.Note != "" {
			note = d.Note + "; " + note
		}
		d.Note = note
	}
	return d
}

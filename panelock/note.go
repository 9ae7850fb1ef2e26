package panelock

import handoff "github.com/handoff-fsm/handoff-fsm"

// Dispatches is what status and the boards say about a pane's dispatches:
// who holds it now, and the dispatch that timed out on it while its agent
// still worked. Reading it changes nothing: a marker is cleared only by a
// dispatch.
type Dispatches struct {
	// Holder holds the pane now (a send, a resume or a service's dispatch
	// waiting on it).
	Holder *Holder `json:"dispatch,omitempty"`
	// TimedOut is the pane's timed-out dispatch, not yet seen finished.
	TimedOut *TimedOut `json:"timed_out,omitempty"`
	// Note says it in words; "" when there is nothing to say.
	Note string `json:"note,omitempty"`
}

// DispatchesOn reads the lock holder and the timed-out marker of the pane
// id names, in the lock folder dir (Dir), with st its agent's status now:
// an agent that is quiet again has finished the timed-out prompt. The zero
// value when there is neither.
func DispatchesOn(dir string, id handoff.PaneIdentity, st handoff.Status) Dispatches {
	var d Dispatches
	if h, ok := HolderOf(dir, id); ok {
		d.Holder = &h
		d.Note = "dispatching: " + h.String()
	}
	if m := TimedOutOn(dir, id); m != nil {
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

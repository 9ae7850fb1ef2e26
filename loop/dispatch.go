package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/atomicfile"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// inFlightDispatch is the journal's record of the step in flight, a
// dispatch of the run's engine: written before the submission, the
// dispatch's id added once the engine accepted it. A run that stopped
// finds the step's dispatch by it and waits for it again instead of
// sending it twice.
type inFlightDispatch struct {
	N         int       `json:"n"`
	Role      string    `json:"role"`
	Submitted time.Time `json:"submitted"`
	ID        string    `json:"id,omitempty"`
	// Here: the dispatch is the run's own engine's (its state file in the
	// journal), not a service's.
	Here bool `json:"here,omitempty"`
}

// inFlightDispatchFile is that record, in the journal's folder.
const inFlightDispatchFile = "inflight-dispatch.json"

// dispatch runs step n as a dispatch of the run's engine (a service, or
// the engine the run keeps in its journal) and returns its result: sent
// once, or waited for again when an earlier run sent it.
func (r *runner) dispatch(ctx context.Context, n int, role, prompt string, a Agent, workdir string) (fsm.Result, error) {
	rec, id := r.inFlight(ctx, n, role, a, prompt)
	if id != "" {
		fmt.Fprintf(r.o.Log, "step %d %s: resuming the wait on dispatch %s in pane %s (the prompt was sent before)\n", n, role, id, a.Target)
	} else {
		rec = inFlightDispatch{N: n, Role: role, Submitted: time.Now().UTC(), Here: r.here}
		if err := r.j.writeInFlight(rec); err != nil {
			return fsm.Result{}, err
		}
		cfg := r.o.Config
		body := serve.SubmitBody{Pane: a.Pane, Role: role, Workdir: workdir, Prompt: prompt, Config: &cfg, HookDir: a.HookDir}
		body.Provider = a.ProviderName()
		v, err := r.eng.Submit(ctx, body)
		if err != nil {
			return fsm.Result{}, fmt.Errorf("the dispatch was not taken: %w", err)
		}
		rec.ID, id = v.ID, v.ID
		if err := r.j.writeInFlight(rec); err != nil {
			return fsm.Result{}, err
		}
		fmt.Fprintf(r.o.Log, "step %d %s: sending to pane %s (%s): dispatch %s\n", n, role, a.Target, body.Provider, id)
		nctx, stop := context.WithCancel(ctx)
		narrated := r.narrate(nctx, n, role, id, v.AcceptedSeq)
		defer func() {
			// The finished event follows the last transition at once; a
			// stream that broke is not waited for long.
			select {
			case <-narrated:
			case <-time.After(2 * time.Second):
			}
			stop()
		}()
	}
	v, err := serve.Wait(ctx, r.eng, id)
	if err != nil {
		// Interrupted or the service unreachable: the dispatch is kept (by
		// the service, or in the journal), and the next run waits for it
		// again.
		return fsm.Result{}, fmt.Errorf("dispatch %s: %w", id, err)
	}
	f := v.Finished()
	if err := f.Err(); err != nil {
		// The dispatch is over: the next run sends the step again (to the
		// agent `up` restarted, say). (A done one's record goes with its
		// journal line: journal.finish.)
		r.j.forgetInFlight()
		if v.Outcome == "cancelled" {
			err = fmt.Errorf("cancelled: %w", err)
		}
		return fsm.Result{}, fmt.Errorf("dispatch %s: %w", id, err)
	}
	return f.Result(), nil
}

// narrate prints the dispatch's transitions as they come (its own events,
// from its acceptance on) until it ends or ctx does; the channel is closed
// then.
func (r *runner) narrate(ctx context.Context, n int, role, id string, after uint64) <-chan struct{} {
	done := make(chan struct{})
	events, err := r.eng.Events(ctx, id, after)
	if err != nil {
		close(done) // narration only: the wait still says how it ends
		return done
	}
	go func() {
		defer close(done)
		for e := range events {
			switch e.Type {
			case "transition":
				fmt.Fprintf(r.o.Log, "step %d %s %s: %s → %s (%s)\n", n, role, elapsed(time.Duration(e.At*float64(time.Second))), e.From, e.To, e.Event)
			case "attention":
				fmt.Fprintf(r.o.Log, "step %d %s: %s\n", n, role, e.Message)
			case "finished":
				return
			}
		}
	}()
	return done
}

// inFlight is step n's record from a run that stopped, and the id of its
// dispatch: the recorded one, or — when the run stopped between the
// submission and the record — the engine's dispatch of the same pane,
// role and prompt submitted since. "" when there is none: the step is
// sent.
func (r *runner) inFlight(ctx context.Context, n int, role string, a Agent, prompt string) (inFlightDispatch, string) {
	rec, ok := r.j.readInFlight(n, role)
	if !ok {
		return inFlightDispatch{}, ""
	}
	if rec.ID != "" {
		return rec, rec.ID
	}
	views, err := r.eng.List(ctx, map[string][]string{"role": {role}})
	if err != nil {
		return rec, ""
	}
	for _, v := range views {
		if v.Target == a.Target && v.Prompt == prompt && !v.Created.Before(rec.Submitted.Add(-time.Second)) {
			return rec, v.ID
		}
	}
	return rec, ""
}

// readInFlight is the journal's record of step n of role, if it has one.
func (j *journal) readInFlight(n int, role string) (inFlightDispatch, bool) {
	var rec inFlightDispatch
	b, err := os.ReadFile(filepath.Join(j.dir, inFlightDispatchFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.N != n || rec.Role != role {
		return inFlightDispatch{}, false
	}
	return rec, true
}

func (j *journal) writeInFlight(rec inFlightDispatch) error {
	b, _ := json.Marshal(rec)
	if err := atomicfile.Write(filepath.Join(j.dir, inFlightDispatchFile), b, 0o644); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// forgetInFlight drops the record of a step whose dispatch ended (a
// record left behind names another step and is ignored anyway).
func (j *journal) forgetInFlight() { _ = os.Remove(filepath.Join(j.dir, inFlightDispatchFile)) }

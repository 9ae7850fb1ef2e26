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

// inFlightRemote is the journal's record of a step that is a dispatch of
// the service (serve): written before the submission, the dispatch's id
// added once the service accepted it. A run that stopped finds the step's
// dispatch by it and waits for it again instead of sending it twice.
type inFlightRemote struct {
	N         int       `json:"n"`
	Role      string    `json:"role"`
	Submitted time.Time `json:"submitted"`
	ID        string    `json:"id,omitempty"`
}

// inFlightRemoteFile is that record, in the journal's folder.
const inFlightRemoteFile = "inflight-dispatch.json"

// askService runs step n as a dispatch of r.o.Service and returns its
// result as the local wait would.
func (r *runner) askService(ctx context.Context, n int, role, prompt string, a Agent, prov, workdir string) (fsm.Result, error) {
	rec, id := r.remoteInFlight(ctx, n, role, a, prompt)
	if id != "" {
		fmt.Fprintf(r.o.Log, "step %d %s: waiting again for dispatch %s of the service (the prompt was sent before)\n", n, role, id)
	} else {
		rec = inFlightRemote{N: n, Role: role, Submitted: time.Now().UTC()}
		if err := r.writeRemote(rec); err != nil {
			return fsm.Result{}, err
		}
		cfg := r.o.Config
		body := serve.SubmitBody{Pane: a.Pane, Role: role, Workdir: workdir, Prompt: prompt, Config: &cfg}
		body.Provider = prov
		v, err := r.o.Service.Submit(ctx, body)
		if err != nil {
			return fsm.Result{}, fmt.Errorf("the service did not take the dispatch: %w", err)
		}
		rec.ID, id = v.ID, v.ID
		if err := r.writeRemote(rec); err != nil {
			return fsm.Result{}, err
		}
		fmt.Fprintf(r.o.Log, "step %d %s: dispatch %s of the service, to pane %s (%s)\n", n, role, id, a.Target, prov)
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
	v, err := serve.Wait(ctx, r.o.Service, id)
	if err != nil {
		// Interrupted or the service unreachable: the dispatch goes on in
		// the service, and the next run waits for it again.
		return fsm.Result{}, fmt.Errorf("dispatch %s of the service: %w", id, err)
	}
	f := v.Finished()
	if err := f.Err(); err != nil {
		// The dispatch is over: the next run sends the step again. (A done
		// one's record goes with its journal line: journal.finish.)
		r.j.forgetRemote()
		if v.Outcome == "cancelled" {
			err = fmt.Errorf("cancelled in the service: %w", err)
		}
		return fsm.Result{}, fmt.Errorf("dispatch %s of the service: %w", id, err)
	}
	return f.Result(), nil
}

// narrate prints the dispatch's transitions as they come (its own events,
// from its acceptance on) until it ends or ctx does; the channel is closed
// then.
func (r *runner) narrate(ctx context.Context, n int, role, id string, after uint64) <-chan struct{} {
	done := make(chan struct{})
	events, err := r.o.Service.Events(ctx, id, after)
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

// remoteInFlight is step n's record from a run that stopped, and the id of
// its dispatch: the recorded one, or — when the run stopped between the
// submission and the record — the service's dispatch of the same pane,
// role and prompt submitted since. "" when there is none: the step is sent.
func (r *runner) remoteInFlight(ctx context.Context, n int, role string, a Agent, prompt string) (inFlightRemote, string) {
	var rec inFlightRemote
	b, err := os.ReadFile(filepath.Join(r.j.dir, inFlightRemoteFile))
	if err != nil || json.Unmarshal(b, &rec) != nil || rec.N != n || rec.Role != role {
		return inFlightRemote{}, ""
	}
	if rec.ID != "" {
		return rec, rec.ID
	}
	views, err := r.o.Service.List(ctx, map[string][]string{"role": {role}})
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

func (r *runner) writeRemote(rec inFlightRemote) error {
	b, _ := json.Marshal(rec)
	if err := atomicfile.Write(filepath.Join(r.j.dir, inFlightRemoteFile), b, 0o644); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// forgetRemote drops the record of a step whose dispatch ended (a record
// left behind names another step and is ignored anyway).
func (j *journal) forgetRemote() { _ = os.Remove(filepath.Join(j.dir, inFlightRemoteFile)) }

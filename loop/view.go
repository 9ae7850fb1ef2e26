package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// RunView is a run journal read back for people (the web board's run
// page): the task, each finished step with the prompt it was sent — the
// journal keeps the answers only; the prompts are the Flow's, replayed on
// them — its review round and whether it was a send-back, and the step in
// flight.
type RunView struct {
	Dir      string     `json:"dir"`
	Task     string     `json:"task"`
	Started  time.Time  `json:"started,omitzero"`
	Finished *time.Time `json:"finished,omitempty"`
	Rounds   int        `json:"rounds"`
	Steps    []StepView `json:"steps"`
	// Next is the step being asked: sent and waited for, or about to be;
	// nil when the run finished (or its journal holds no task).
	Next *StepView `json:"next,omitempty"`
}

// StepView is one step of a RunView.
type StepView struct {
	Step
	Prompt string `json:"prompt"`
	// Review: the step is a review (its Verdict says how it went).
	Review bool `json:"review,omitempty"`
	// Round is a review's round in its stage, or the round a revision
	// answers (1, 2, …); 0 for a stage's first work.
	Round int `json:"round,omitempty"`
	// SentBack: the step is a revision a review asked for.
	SentBack bool `json:"sent_back,omitempty"`
	// Dispatch is the service's dispatch of a step in flight (run
	// --server), "" when the run waits itself; State the engine's state
	// of a wait in the run's own process, from its checkpoint.
	Dispatch string `json:"dispatch,omitempty"`
	State    string `json:"state,omitempty"`
}

// errReplayed stops the replay at the first step the journal has not got.
var errReplayed = errors.New("loop: replayed up to the journal's end")

// ReadRun reads the run journal in dir (Options.Journal) for people. The
// replay needs the run's Options.Rounds (when a stage stops sending work
// back): the journal keeps it; one written before it did is read with
// DefaultRounds.
func ReadRun(dir string) (*RunView, error) {
	b, err := os.ReadFile(filepath.Join(dir, runFile))
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var info runInfo
	if err := json.Unmarshal(b, &info); err != nil {
		return nil, fmt.Errorf("journal %s: %w", filepath.Join(dir, runFile), err)
	}
	steps, err := ReadJournal(dir)
	if err != nil {
		return nil, err
	}
	rounds := info.Rounds
	if rounds <= 0 {
		rounds = DefaultRounds
	}
	v := &RunView{Dir: dir, Task: info.Task, Started: info.Started, Finished: info.Finished, Rounds: rounds, Steps: []StepView{}}
	round, lastVerdict := 0, ""
	f := Flow{Task: info.Task, Rounds: rounds, Round: func(r int) { round = r }}
	f.Ask = func(role, prompt string, review bool) (string, error) {
		n := len(v.Steps) + 1
		sv := StepView{Step: Step{N: n, Role: role}, Prompt: prompt, Review: review, Round: round,
			SentBack: !review && round > 0 && lastVerdict == ChangesRequested}
		if n > len(steps) || steps[n-1].Role != role {
			if info.Finished == nil {
				v.Next = &sv
				v.Next.Dispatch, v.Next.State = inFlightOf(dir, n, role)
			}
			return "", errReplayed
		}
		sv.Step = steps[n-1]
		lastVerdict = sv.Verdict
		v.Steps = append(v.Steps, sv)
		return sv.Response, nil
	}
	if info.Task != "" {
		if _, err := f.Run(); err != nil && !errors.Is(err, errReplayed) {
			return nil, err
		}
	}
	return v, nil
}

// inFlightOf is what the journal says of step n waiting: the service's
// dispatch (run --server), or the engine's state from the checkpoint of
// the run's own dispatch (kept in the journal: its id means nothing to
// another service, so it is not given).
func inFlightOf(dir string, n int, role string) (dispatch, state string) {
	rec, ok := (&journal{dir: dir}).readInFlight(n, role)
	if !ok || !rec.Here {
		return rec.ID, ""
	}
	st, err := dispatchstate.Read(serve.StatePath(dir, rec.ID))
	if err != nil || st.Wait == nil {
		return "", ""
	}
	return "", string(st.Wait.Core.State)
}

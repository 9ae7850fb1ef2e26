package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/atomicfile"
	"github.com/handoff-fsm/handoff-fsm/internal/jsonlines"
)

// Step is one finished dispatch in the run journal.
type Step struct {
	N        int    `json:"n"`
	Role     string `json:"role"`
	Source   string `json:"source"`
	Response string `json:"response"`
	// Archived is where the answer was moved to (the run's archive).
	Archived string `json:"archived,omitempty"`
	// Verdict is a review's: Approved or ChangesRequested.
	Verdict string        `json:"verdict,omitempty"`
	At      time.Time     `json:"at"`
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
	// Failed is the ending of a step that failed (the table's name, e.g.
	// "terminal_error"); only Result's last step has one, the journal
	// keeps finished steps only.
	Failed string `json:"failed,omitempty"`
}

// Outcome says how the step ended: "done (file)" with a review's verdict,
// or "failed (its ending)".
func (s Step) Outcome() string {
	if s.Failed != "" {
		return "failed (" + s.Failed + ")"
	}
	out := "done (" + s.Source + ")"
	if s.Verdict != "" {
		out += ": " + s.Verdict
	}
	return out
}

// The journal's files, in its folder.
const (
	stepsFile = "steps.jsonl" // one finished step per line
	runFile   = "run.json"    // the task and whether the run finished
)

// runInfo is run.json.
type runInfo struct {
	Task     string     `json:"task"`
	Started  time.Time  `json:"started"`
	Finished *time.Time `json:"finished,omitempty"`
	// Rounds is the run's Options.Rounds (ReadRun replays the flow with
	// it); 0 in a journal written before it was kept.
	Rounds int `json:"rounds,omitempty"`
}

// journal is the run's memory.
type journal struct {
	dir   string
	info  runInfo
	steps []Step
}

// openJournal opens the journal in dir for task. A journal of another task,
// or of a run that finished, is moved aside (dir-<stamp>, nothing removed)
// and a new one started.
func openJournal(dir, task string, rounds int, log io.Writer) (*journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var info runInfo
	b, err := os.ReadFile(filepath.Join(dir, runFile))
	switch {
	case err == nil:
		if err := json.Unmarshal(b, &info); err != nil {
			return nil, fmt.Errorf("journal %s: %w", filepath.Join(dir, runFile), err)
		}
	case !errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("journal: %w", err)
	}
	steps, err := ReadJournal(dir)
	if err != nil {
		return nil, err
	}
	old := info.Task != "" && (info.Task != task || info.Finished != nil) || info.Task == "" && len(steps) > 0
	if old {
		aside := dir + "-" + time.Now().UTC().Format("20060102-150405.000")
		if err := os.Rename(dir, aside); err != nil {
			return nil, fmt.Errorf("journal: move the earlier run aside: %w", err)
		}
		fmt.Fprintf(log, "journal: the earlier run (another task, or finished) is kept in %s\n", aside)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		info, steps = runInfo{}, nil
	} else if len(steps) > 0 {
		fmt.Fprintf(log, "journal: going on with the run in %s (%d steps done)\n", dir, len(steps))
	}
	j := &journal{dir: dir, info: info, steps: steps}
	if info.Task == "" {
		j.info = runInfo{Task: task, Started: time.Now().UTC(), Rounds: rounds}
		if err := j.writeInfo(); err != nil {
			return nil, err
		}
	}
	return j, nil
}

func (j *journal) writeInfo() error {
	b, err := json.MarshalIndent(j.info, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(j.dir, runFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// close marks the run finished: the next run starts a new journal.
func (j *journal) close() error {
	now := time.Now().UTC()
	j.info.Finished = &now
	return j.writeInfo()
}

// ReadJournal returns the finished steps of the journal in dir (none when
// it has none).
func ReadJournal(dir string) ([]Step, error) {
	steps, err := jsonlines.Read[Step](filepath.Join(dir, stepsFile), 64<<20)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	return steps, nil
}

func (j *journal) done(n int) (Step, bool) {
	if n <= len(j.steps) {
		return j.steps[n-1], true
	}
	return Step{}, false
}

// finish appends a finished step and forgets the in-flight record.
func (j *journal) finish(s Step) error {
	if err := jsonlines.Append(filepath.Join(j.dir, stepsFile), s, true); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.steps = append(j.steps, s)
	j.forgetInFlight()
	return nil
}

package panelock

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/atomicfile"
)

// TimedOut is the marker of a dispatch that timed out while its agent still
// worked: the agent goes on with that prompt, and may write its answer
// late. It is cleared once a later dispatch sees the agent ready again
// (before its own paste, or at its end with its answer), or replaced by a
// later timeout; a marker for an earlier instance of the pane (another
// process, a restarted server) is ignored.
type TimedOut struct {
	Role       string `json:"role"`
	Workdir    string `json:"workdir,omitempty"`
	PromptHead string `json:"prompt_head,omitempty"`
	// Started is when the prompt was sent, TimedOutAt when the dispatch gave
	// up on it.
	Started    time.Time            `json:"started"`
	TimedOutAt time.Time            `json:"timed_out_at"`
	PID        int                  `json:"pid"`
	Pane       handoff.PaneIdentity `json:"pane"`
}

// Describe says which dispatch it was, for messages: "the timed-out
// dispatch of role analyst (pid 42, sent 12:00:01, timed out 12:00:04):
// “FIRST task …”".
func (m TimedOut) Describe() string {
	s := fmt.Sprintf("the timed-out dispatch of role %s (pid %d, sent %s, timed out %s)", m.Role, m.PID,
		m.Started.Format("15:04:05"), m.TimedOutAt.Format("15:04:05"))
	if m.PromptHead != "" {
		s += ": “" + m.PromptHead + "”"
	}
	return s
}

// PromptHead is the start of a prompt, for a marker: its first line, at
// most 60 characters.
func PromptHead(prompt string) string {
	head := []rune(prompt)
	for i, r := range head {
		if r == '\n' {
			head = head[:i]
			break
		}
	}
	if len(head) > 60 {
		return string(head[:60]) + "…"
	}
	return string(head)
}

func markerPath(dir string, id handoff.PaneIdentity) string { return base(dir, id) + ".timedout.json" }

// MarkTimedOut records m as the pane's timed-out dispatch (atomically:
// a reader sees the old marker or the new one).
func MarkTimedOut(dir string, m TimedOut) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(markerPath(dir, m.Pane), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("mark the timed-out dispatch: %w", err)
	}
	return nil
}

// TimedOutOn returns the pane's timed-out dispatch, nil when there is none
// (or the marker is for an earlier instance of the pane, or unreadable:
// a marker only informs).
func TimedOutOn(dir string, id handoff.PaneIdentity) *TimedOut {
	b, err := os.ReadFile(markerPath(dir, id))
	if err != nil {
		return nil
	}
	var m TimedOut
	if json.Unmarshal(b, &m) != nil || m.Pane != id {
		return nil
	}
	return &m
}

// ClearTimedOut removes the pane's marker; none is not an error.
func ClearTimedOut(dir string, id handoff.PaneIdentity) error {
	if err := os.Remove(markerPath(dir, id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear the timed-out dispatch's marker: %w", err)
	}
	return nil
}

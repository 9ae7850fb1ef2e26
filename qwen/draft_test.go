package qwen_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// The composer's draft is read off real screens (handoff.DraftReader):
// the prompt Qwen Code puts back into its composer when a turn is
// interrupted, in every terminal and mode it was taken in, and a short
// paste not sent; nothing for its placeholder. The tmux driver pastes onto
// no draft (handoff.Held).
func TestComposerReadsItsDraft(t *testing.T) {
	testkit.CheckDrafts(t, qwen.Provider(), map[string]string{
		"testdata/real-0.24.4/*/interrupted-streaming*.txt":   "This turn gets interrupted while streaming",
		"testdata/real-0.24.4/*/*/interrupted-streaming*.txt": "This turn gets interrupted while streaming",
		"testdata/paste/short-whole.txt":                      "Analyse the project briefly, please.",
		"testdata/real-0.24.4/*/idle-fresh*.txt":              "",
		"testdata/real-0.24.4/*/*/completed-answer*.txt":      "",
	})
}

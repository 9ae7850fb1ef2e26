package claude_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/claude"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// The composer's draft is read off real screens (handoff.DraftReader): a
// draft not sent, the prompt Claude Code puts back into its composer when
// a turn is interrupted before its answer, text typed; nothing for an
// empty composer or the placeholder after a failed request ("Resend your
// message to try again"). The tmux driver pastes onto no draft
// (handoff.Held).
func TestComposerReadsItsDraft(t *testing.T) {
	testkit.CheckDrafts(t, claude.Provider(), map[string]string{
		"testdata/real-2.1.330/*/completed-draft*.txt":     "a draft that is not sent yet",
		"testdata/real-2.1.330/*/interrupted-waiting*.txt": "This turn gets interrupted while waiting",
		"testdata/composer/plain-text.txt":                 "plain text",
		"testdata/real-2.1.330/*/idle-fresh*.txt":          "",
		"testdata/real-2.1.330/*/error-api-500*.txt":       "",
	})
}

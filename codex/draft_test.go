package codex

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// The composer's draft is read off real screens: a message typed or
// pasted and not sent, and nothing for the placeholder of an idle or a
// working Codex (handoff.DraftReader).
func TestComposerReadsAnUnsentDraft(t *testing.T) {
	testkit.CheckDrafts(t, Provider(), map[string]string{
		"testdata/composer/plain-text.txt":           "plain text",
		"testdata/real-0.169/completed-draft.txt":    "a draft that is not sent yet",
		"testdata/real-0.169/idle-fresh.txt":         "",
		"testdata/real-0.169/processing-working.txt": "",
	})
}

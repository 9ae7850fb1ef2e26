package opencode_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// The composer's draft is read off real screens (handoff.DraftReader): a
// short paste not sent, a fold; nothing for an empty composer or its hint
// with a rotating example (`Ask anything… "Fix broken tests"`). The tmux
// driver pastes onto no draft (handoff.Held).
func TestComposerReadsItsDraft(t *testing.T) {
	testkit.CheckDrafts(t, opencode.Provider(), map[string]string{
		"testdata/paste/short-whole.txt":              "Analyse the project briefly, please.",
		"testdata/paste/three-lines-whole.txt":        "[Pasted ~3 lines]",
		"testdata/real-1.18.33/*/idle-fresh*.txt":     "",
		"testdata/real-1.18.33/*/*/idle-fresh*.txt":   "",
		"testdata/real-1.18.33/*/completed-tool*.txt": "",
	})
}

package claude

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// The composer's rules read the real screens after a paste as they are
// (a shell mode, or a plain message), and every mode character at the
// start of a prompt gets the lead line.
func TestComposerKeepsAPromptAMessage(t *testing.T) {
	conformance.CheckComposer(t, composerRules(), "testdata/composer", "!/#")
}

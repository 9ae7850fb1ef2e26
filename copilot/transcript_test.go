package copilot_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/copilot"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestTranscript reads the user messages on real screens of Copilot CLI
// 1.0.102 (testdata/submitted/manifest.json says what each must read):
// the prompt once, the same prompt dispatched again, taken twice. Copilot
// CLI draws its history on the screen only (40 lines here): a prompt
// taller than that shows its end alone, and the check cannot tell. Each
// of its ordinary screens tells.
func TestTranscript(t *testing.T) {
	testkit.CheckTranscript(t, copilot.Provider(), testkit.EveryScreenTells)
}

package copilot

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Copilot CLI.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealCopilotScreens runs the classifier over every screen captured
// from the real Copilot CLI, with its pane title, against the status the
// manifest says it shows: two pane sizes, each with and without colour;
// and the main phases in other terminals and approval modes (80x24).
func TestRealCopilotScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealCopilotLastMessage: the fallback text read off the real screens
// the manifest gives no message for, in every terminal.
func TestRealCopilotLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(),
		conformance.Interrupted("Working", "┃"))
}

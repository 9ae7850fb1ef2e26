package cont

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Continue CLI.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealContinueScreens runs the classifier over every screen captured
// from the real Continue CLI, with its pane title, against the status the
// manifest says it shows: two pane sizes, each with and without colour.
func TestRealContinueScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealContinueLastMessage: the fallback text read off the real
// screens the manifest gives no message for, and the answer cut short by
// Esc (drawn, as a streamed answer is, without a bullet).
func TestRealContinueLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(), conformance.Interrupted())
}

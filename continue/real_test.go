package cont

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// TestRealContinueScreens runs the classifier over every screen captured
// from the real Continue CLI (testdata/real-<Version>), with its pane
// title, against the status the manifest says it shows (two pane sizes,
// each with and without colour), then reads the fallback text off the
// screens the manifest gives no message for and off the answer cut short
// by Esc (drawn, as a streamed answer is, without a bullet).
func TestRealContinueScreens(t *testing.T) {
	dir := realDir()
	conformance.CheckRealScreens(t, dir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
	conformance.CheckScriptMessages(t, dir, Provider(), conformance.Interrupted())
}

// realDir holds the screens captured from the real Continue CLI.
func realDir() string { return filepath.Join("testdata", "real-"+Version) }

package droid

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real droid.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealDroidScreens runs the classifier over every screen captured from
// the real droid, with its pane title, against the status the manifest
// says it shows: two pane sizes, each with and without colour; and the
// main phases in other terminals and autonomy levels.
func TestRealDroidScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealDroidLastMessage: the fallback text read off the real screens
// the manifest gives no message for.
func TestRealDroidLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(), conformance.Interrupted())
}

package cline

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Cline.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealClineScreens runs the classifier over every screen captured from
// the real Cline, with its pane title, against the status the manifest
// says it shows: two pane sizes, each with and without colour; and the
// main phases in other terminals and in both approval modes.
func TestRealClineScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealClineLastMessage: the fallback text read off the real screens the
// manifest gives no message for.
func TestRealClineLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(), conformance.Interrupted())
}

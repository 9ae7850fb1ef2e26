package kimi

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Kimi Code.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealKimiScreens runs the classifier over every screen captured from
// the real Kimi Code, with its pane title, against the status the
// manifest says it shows: two pane sizes, each with and without colour;
// and the main phases in other terminals and approval modes.
func TestRealKimiScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealKimiLastMessage: the fallback text read off the real screens
// the manifest gives no message for.
func TestRealKimiLastMessage(t *testing.T) {
	none := conformance.NoMessage
	conformance.CheckLastMessages(t, realDir, Provider(), []string{"80x24", "200x50"}, []conformance.LastMessageCase{
		{File: "idle-fresh", OK: none, Want: "ErrNoAssistantMessage: no prompt yet"},
		{File: "processing-first-byte", OK: none, Want: "ErrNoAssistantMessage: a turn runs"},
		{File: "error-api-400", OK: none, Want: "ErrNoAssistantMessage: an API error is no answer"},
		{File: "waiting-confirmation", OK: none, Want: "ErrNoAssistantMessage: an approval"},
		conformance.Interrupted(),
	})
}

package copilot

import (
	"os"
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
	none := conformance.NoMessage
	cases := []conformance.LastMessageCase{
		{File: "idle-fresh", OK: none, Want: "ErrNoAssistantMessage: no prompt yet"},
		{File: "processing-first-byte", OK: none, Want: "ErrNoAssistantMessage: nothing answered yet"},
		{File: "error-api-400", OK: none, Want: "ErrNoAssistantMessage: an API error is no answer"},
		{File: "waiting-confirmation", OK: none, Want: "ErrNoAssistantMessage: a dialog"},
		{File: "interrupted-streaming", OK: conformance.Prefix("A partial answer that is cut short.", "Working", "┃"), Want: "the partial answer"},
	}
	conformance.CheckLastMessages(t, realDir, Provider(), []string{"80x24", "200x50"}, cases)
	// The other terminals and modes: the main phases, in the narrow pane.
	for _, dir := range conformance.Dirs(realDir)[1:] {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			var shown []conformance.LastMessageCase
			for _, c := range cases {
				if _, err := os.Stat(filepath.Join(dir, "80x24", c.File+".txt")); err == nil {
					shown = append(shown, c)
				}
			}
			conformance.CheckLastMessages(t, dir, Provider(), []string{"80x24"}, shown)
		})
	}
}

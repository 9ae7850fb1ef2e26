package qwen

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Qwen Code.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealQwenScreens runs the classifier over every screen captured from
// the real Qwen Code, with its pane title, against the status the manifest
// says it shows: two pane sizes, each with and without colour.
func TestRealQwenScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true, Every: true})
}

// TestRealQwenLastMessage: the fallback text read off the real screens the
// manifest gives no message for, in every terminal.
func TestRealQwenLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(),
		conformance.Interrupted("esc to cancel", "Type your message"))
}

package opencode

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// realDir holds the screens captured from the real OpenCode.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealOpenCodeScreens runs the classifier over every screen captured
// from the real OpenCode, with its pane title, against the status the
// manifest says it shows: two pane sizes, each with and without colour.
func TestRealOpenCodeScreens(t *testing.T) {
	conformance.CheckScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
	// The main phases in other terminals and approval modes, each folder
	// with its own manifest (e2e TestCaptureTerminals).
	for _, dir := range conformance.Dirs(realDir)[1:] {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			conformance.CheckSomeScreens(t, dir, Provider(), conformance.Want{Plain: true, Titles: true})
		})
	}
}

// TestRealOpenCodeLastMessage: the fallback text read off the real screens
// the manifest gives no message for.
func TestRealOpenCodeLastMessage(t *testing.T) {
	none := func(msg string, err error) bool { return errors.Is(err, screen.ErrNoAssistantMessage) }
	clean := func(msg string, err error) bool {
		return err == nil && msg != "" && !strings.Contains(msg, "┃") && !strings.Contains(msg, "▣") && !strings.Contains(msg, "esc interrupt")
	}
	conformance.CheckLastMessages(t, realDir, Provider(), []string{"80x24", "200x50"}, []conformance.LastMessageCase{
		{File: "idle-fresh", OK: none, Want: "ErrNoAssistantMessage: no turn yet"},
		{File: "processing-first-byte", OK: none, Want: "ErrNoAssistantMessage: nothing answered yet"},
		{File: "error-api-400", OK: none, Want: "ErrNoAssistantMessage: an API error is no answer"},
		{File: "waiting-confirmation", OK: none, Want: "ErrNoAssistantMessage: a dialog"},
		{File: "processing-streaming", OK: clean, Want: "the part streamed so far, without chrome"},
	})
}

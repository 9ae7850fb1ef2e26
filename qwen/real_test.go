package qwen

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// realDir holds the screens captured from the real Qwen Code.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealQwenScreens runs the classifier over every screen captured from
// the real Qwen Code, with its pane title, against the status the manifest
// says it shows: two pane sizes, each with and without colour.
func TestRealQwenScreens(t *testing.T) {
	for _, dir := range conformance.Dirs(realDir) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			conformance.CheckScreens(t, dir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
		})
	}
}

// TestRealQwenLastMessage: the fallback text read off the real screens the
// manifest gives no message for, in every terminal.
func TestRealQwenLastMessage(t *testing.T) {
	none := func(msg string, err error) bool { return errors.Is(err, screen.ErrNoAssistantMessage) }
	prefix := func(p string) func(string, error) bool {
		return func(msg string, err error) bool {
			return err == nil && strings.HasPrefix(msg, p) && !strings.Contains(msg, "esc to cancel") && !strings.Contains(msg, "Type your message")
		}
	}
	cases := []conformance.LastMessageCase{
		{File: "idle-fresh", OK: none, Want: "ErrNoAssistantMessage: no prompt yet"},
		{File: "processing-first-byte", OK: none, Want: "ErrNoAssistantMessage: nothing answered yet"},
		{File: "error-api-400", OK: none, Want: "ErrNoAssistantMessage: an API error is no answer"},
		{File: "waiting-confirmation", OK: none, Want: "ErrNoAssistantMessage: a dialog"},
		{File: "interrupted-streaming", OK: prefix("A partial answer that is cut short."), Want: "the partial answer"},
	}
	for _, dir := range conformance.Dirs(realDir) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			conformance.CheckLastMessages(t, dir, Provider(), []string{"80x24", "200x50"}, cases)
		})
	}
}

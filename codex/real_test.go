package codex

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// realDir holds the screens captured from the real Codex 0.169.
var realDir = filepath.Join("testdata", "real-0.169")

// TestRealCodex0169Screens runs the classifier over every screen captured
// from the real Codex 0.169 CLI, with its pane title, against the status
// the manifest says it shows (internal/conformance).
func TestRealCodex0169Screens(t *testing.T) {
	conformance.CheckScreens(t, realDir, Provider(), conformance.Want{Titles: true})
	// The main phases in other terminals and approval modes, each folder
	// with its own manifest (e2e TestCaptureTerminals).
	for _, dir := range conformance.Dirs(realDir)[1:] {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			conformance.CheckSomeScreens(t, dir, Provider(), conformance.Want{Titles: true})
		})
	}
}

// TestRealCodex0169LastMessage: the fallback text read off the real screens
// that the manifest gives no message for. Partial answers depend on when
// the capture was taken, so those are checked by their ends.
func TestRealCodex0169LastMessage(t *testing.T) {
	dir := realDir
	none := func(msg string, err error) bool { return errors.Is(err, screen.ErrNoAssistantMessage) }
	startsWith := func(prefix, suffix string) func(string, error) bool {
		return func(msg string, err error) bool {
			return err == nil && strings.HasPrefix(msg, prefix) && strings.HasSuffix(msg, suffix) &&
				!strings.Contains(msg, "Conversation interrupted") && !strings.Contains(msg, "Worked for")
		}
	}
	conformance.CheckLastMessages(t, dir, Provider(), nil, []conformance.LastMessageCase{
		{File: "completed-streamed.txt", OK: startsWith("Streaming a long answer, chunk by chunk", "while it grows."), Want: "the whole streamed answer"},
		{File: "interrupted-streaming.txt", OK: startsWith("A partial answer", ""), Want: "the partial answer"},
		{File: "completed-draft.txt", OK: startsWith("A partial answer", ""), Want: "the partial answer, not the draft"},
		{File: "completed-tool-only.txt", OK: none, Want: "ErrNoAssistantMessage: the turn's only output is a tool cell"},
		{File: "idle-fresh.txt", OK: none, Want: "ErrNoAssistantMessage"},
		{File: "processing-after-file.txt", OK: none, Want: "ErrNoAssistantMessage: only a tool cell so far"},
		{File: "approval-command.txt", OK: none, Want: "ErrNoAssistantMessage: a pending command and its approval menu"},
		{File: "error-stream-failed.txt", OK: none, Want: "ErrNoAssistantMessage"},
	})
}

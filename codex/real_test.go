package codex

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Codex 0.169.
var realDir = filepath.Join("testdata", "real-0.169")

// TestRealCodex0169Screens runs the classifier over every screen captured
// from the real Codex 0.169 CLI, with its pane title, against the status
// the manifest says it shows (internal/conformance), and over the main
// phases in other terminals and approval modes (e2e TestCaptureTerminals).
func TestRealCodex0169Screens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Titles: true})
}

// TestRealCodex0169LastMessage: the fallback text read off the real screens
// that the manifest gives no message for. Partial answers depend on when
// the capture was taken, so those are checked by their ends.
func TestRealCodex0169LastMessage(t *testing.T) {
	none := conformance.NoMessage
	startsWith := func(prefix, suffix string) func(string, error) bool {
		return func(msg string, err error) bool {
			return conformance.Prefix(prefix, "Conversation interrupted", "Worked for")(msg, err) && strings.HasSuffix(msg, suffix)
		}
	}
	conformance.CheckLastMessages(t, realDir, Provider(), nil, []conformance.LastMessageCase{
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

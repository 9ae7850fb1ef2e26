package gemini

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Gemini CLI.
var realDir = filepath.Join("testdata", "real-0.61.0")

// TestRealGemini0_61Screens runs the classifier over every screen captured
// from the real Gemini CLI, with its pane title, against the status the
// manifest says it shows (internal/conformance): in two pane sizes, each
// with and without colour.
func TestRealGemini0_61Screens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true, Every: true})
}

// TestRealGemini0_61LastMessage: the fallback text read off the real
// screens the manifest gives no message for, in every terminal.
func TestRealGemini0_61LastMessage(t *testing.T) {
	prefix := func(p string) func(string, error) bool {
		return conformance.Prefix(p, "Request cancelled", "esc to cancel")
	}
	conformance.CheckScriptMessages(t, realDir, Provider(), []conformance.LastMessageCase{
		{File: "processing-after-file", OK: conformance.NoMessage, Want: "ErrNoAssistantMessage: only the tool box so far"},
		{File: "processing-streaming", OK: prefix("Streaming a long answer, chunk by chunk"), Want: "the partial streamed answer"},
		{File: "interrupted-streaming", OK: prefix("A partial answer that is cut short."), Want: "the partial answer, without the cancel note"},
		{File: "completed-draft", OK: prefix("A partial answer that is cut short."), Want: "the partial answer, not the draft"},
		{File: "interrupted-retrying", OK: conformance.NoMessage, Want: "ErrNoAssistantMessage: cancelled before any answer"},
	}...)
}

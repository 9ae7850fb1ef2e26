package claude

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Claude Code.
var realDir = filepath.Join("testdata", "real-2.1.330")

// TestRealClaude2_1_330Screens runs the classifier over every screen
// captured from the real Claude Code, with its pane title, against the
// status the manifest says it shows (internal/conformance): in two pane
// sizes, each with and without colour; and the main phases in other
// terminals and approval modes.
func TestRealClaude2_1_330Screens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealClaude2_1_330LastMessage: the fallback text read off the real
// screens the manifest gives no message for.
func TestRealClaude2_1_330LastMessage(t *testing.T) {
	none := conformance.NoMessage
	prefix := func(p string) func(string, error) bool { return conformance.Prefix(p, "Interrupted", "✻") }
	conformance.CheckLastMessages(t, realDir, Provider(), []string{"80x24", "200x50"}, []conformance.LastMessageCase{
		{File: "idle-fresh", OK: none, Want: "ErrNoAssistantMessage: no prompt yet"},
		{File: "processing-first-byte", OK: none, Want: "ErrNoAssistantMessage: nothing answered yet"},
		{File: "processing-after-file", OK: none, Want: "ErrNoAssistantMessage: only the tool call so far"},
		{File: "processing-streaming", OK: prefix("Streaming a long answer, chunk by chunk"), Want: "the partial streamed answer"},
		{File: "interrupted-streaming", OK: prefix("A partial answer that is cut short."), Want: "the partial answer, without the Interrupted note"},
		{File: "completed-draft", OK: prefix("A partial answer that is cut short."), Want: "the partial answer, not the draft"},
		{File: "error-api-500", OK: none, Want: "ErrNoAssistantMessage: an API error is no answer"},
		{File: "waiting-permission", OK: none, Want: "ErrNoAssistantMessage: a dialog"},
		{File: "waiting-question", OK: none, Want: "ErrNoAssistantMessage: a dialog"},
	})
}

// The composer's rules are decoration: every real screen reads the same
// with them left out (bareComposer), but for auto mode's panel, which has
// no menu: its rule is what sets the panel apart from a reply that quotes
// its key hint.
func TestRealScreensReadTheSameWithoutRules(t *testing.T) {
	except := map[string]string{"waiting-auto-mode-panel": "auto mode's panel is found by its key hint up to the rule that tops it"}
	for _, dir := range conformance.Dirs(realDir) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			conformance.CheckWithoutDecoration(t, dir, Provider(), isRule, except)
		})
	}
}

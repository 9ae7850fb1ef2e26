package opencode

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real OpenCode.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealOpenCodeScreens runs the classifier over every screen captured
// from the real OpenCode, with its pane title, against the status the
// manifest says it shows: two pane sizes, each with and without colour;
// and the main phases in other terminals and approval modes.
func TestRealOpenCodeScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealOpenCodeLastMessage: the fallback text read off the real screens
// the manifest gives no message for.
func TestRealOpenCodeLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(),
		conformance.LastMessageCase{File: "processing-streaming", OK: conformance.Prefix("", "┃", "▣", "esc interrupt"), Want: "the part streamed so far, without chrome"})
}

// TestRealOpenCodeQuestionWaits: the model's question tool puts a question
// in the composer's place; the screen waits for the user's answer (not
// idle: a dispatch would end without its response file) and holds no
// answer.
func TestRealOpenCodeQuestionWaits(t *testing.T) {
	conformance.CheckReason(t, filepath.Join(realDir, "question"), Provider(), ReasonQuestion,
		"80x24/waiting-question", "200x50/waiting-question")
}

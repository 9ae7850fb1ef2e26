package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"

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

// TestRealClaude2_1_300EndsAFailedTurnWithItsDuration: releases before
// about 2.1.320 print the turn's duration line under an API error too
// ("✻ Crunched for 1s"); the turn ended on the error, quoted in full. A
// reply that only starts with "API Error" (Claude Code 2.1.300 paints it
// the same) and ends its turn is completed. Captured from the real Claude
// Code 2.1.300 in a 120x40 tmux pane (TERM tmux-256color) against the fake
// model's 500.
func TestRealClaude2_1_300EndsAFailedTurnWithItsDuration(t *testing.T) {
	for file, want := range map[string]handoff.Status{
		"120x40-error-api-500.txt":              handoff.StatusError,
		"120x40-completed-quoting-an-error.txt": handoff.StatusCompleted,
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "real-2.1.300", file))
		if err != nil {
			t.Fatal(err)
		}
		got := Provider().Classify(string(b), "✳ Claude Code")
		if got.Status != want {
			t.Errorf("%s: %s (%s), want %s", file, got.Status, got.Reason, want)
		}
		if want == handoff.StatusError && !strings.HasPrefix(got.Detail, "API Error: 500 Internal server error. This is a server-side issue") {
			t.Errorf("%s: the error quotes %q", file, got.Detail)
		}
	}
}

// TestRealClaude2_1_312ReviewAfterInvisibleCharactersIsNoTurn: releases
// before 2.1.315 take the first Enter on a paste with invisible characters
// as a review ("Removed 3 invisible characters · review and press Enter to
// send"): the composer still holds the prompt and no turn started, which
// is what lets the tmux driver press Enter again. Captured from the real
// Claude Code 2.1.312 in a 120x40 tmux pane (TERM tmux-256color), 1.5 s
// after that Enter.
func TestRealClaude2_1_312ReviewAfterInvisibleCharactersIsNoTurn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "real-2.1.312", "120x40-review-after-invisible-removed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := Provider().Classify(string(b), "✳ Claude Code"); got.Status != handoff.StatusIdle {
		t.Errorf("%s (%s), want idle: no turn started", got.Status, got.Reason)
	}
}

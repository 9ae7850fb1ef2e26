package codex

import (
	"encoding/json"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// Issue 10: lines the classifier has never met — a new status-bar hint, a
// warning counter, a tip, a banner, an overlay in the composer's place —
// are neutral. A settled screen stays idle or completed; only positive
// signs (the status indicator, the busy footer, the title's spinner, a user
// message just sent with nothing below it) make it busy.
func TestUnknownLinesAreNeutral(t *testing.T) {
	turn := ls("› Explain the parser", "", "• It reads tokens.", "", "  Worked for 11s • 04:28", "")
	prompt := ls("› Ask Codex to do anything", "")
	status := "  gpt-5.5 high · ~/work/proj"
	hints := "  ← for agents · ? for shortcuts"
	tests := []struct {
		name    string
		capture string
		title   string
		want    handoff.Status
	}{
		// Below the composer: the bottom pane.
		{"idle: warning counter alone under the footer", conformance.Capture(banner169, prompt, ls(status, hints, "  ⚠ 1 warning · f2 to view")), "proj", handoff.StatusIdle},
		{"completed: warning counter alone under the footer", conformance.Capture(turn, prompt, ls(status, hints, "  ⚠ 3 warnings · f2 to view")), "proj", handoff.StatusCompleted},
		{"completed: warning counter in place of the footer hints", conformance.Capture(turn, prompt, ls(status, "  ⚠ 1 warning · f2 to view")), "proj", handoff.StatusCompleted},
		{"idle: only an unknown status bar under the placeholder", conformance.Capture(banner169, prompt, ls("  ctrl+j newline · 3 MCP servers · 12 tools")), "proj", handoff.StatusIdle},
		{"completed: only an unknown status bar under the placeholder", conformance.Capture(turn, prompt, ls("  ctrl+j newline · 3 MCP servers · 12 tools")), "proj", handoff.StatusCompleted},
		{"completed: unknown hint at column 0 under the status line", conformance.Capture(turn, prompt, ls(status, "", "Press F3 to see what's new in this release")), "proj", handoff.StatusCompleted},
		{"completed: unknown tip between composer and status line", conformance.Capture(turn, prompt, ls("Tip: use /review before you commit", "", status, hints)), "proj", handoff.StatusCompleted},
		{"completed: several unknown lines, no known footer", conformance.Capture(turn, prompt, ls("  Context 12% used", "", "  ⌁ 2 background agents idle", "  ⚠ 1 warning")), "proj", handoff.StatusCompleted},
		{"completed: a draft, a blank line, then only unknown lines", conformance.Capture(turn, ls("› a draft not sent yet", "", "  ⚠ 1 warning · f2 to view")), "proj", handoff.StatusCompleted},
		{"completed: a two-line draft above unknown lines", conformance.Capture(turn, ls("› a draft", "  with a second line", "", "  some new hint")), "proj", handoff.StatusCompleted},
		{"idle: the placeholder alone at the bottom", conformance.Capture(banner169, ls("› Ask Codex to do anything")), "proj", handoff.StatusIdle},

		// Above the composer: among the history cells.
		{"idle: an unknown banner above the composer", conformance.Capture(banner169, ls("╭──────────────────────────────╮", "│ ✨ New: agents can now plan │", "╰──────────────────────────────╯", ""), composer169), "proj", handoff.StatusIdle},
		{"completed: an unknown notice after the reply", conformance.Capture(turn, ls("⚠ Heads up: you have used 80% of your weekly limit", ""), composer169), "proj", handoff.StatusCompleted},
		{"completed: an unknown indented tip after the reply", conformance.Capture(turn, ls("  Tip: New Try the /plan command", ""), composer169), "proj", handoff.StatusCompleted},

		// In the composer's place: an overlay not known here.
		{"completed: a warnings view instead of the composer", conformance.Capture(turn, ls("  Warnings · 1 of 1 · Startup", "", "  Codex is ignoring 1 unrecognized configuration setting.", "", "  k keep & next · esc dismiss & close · ^o copy")), "proj", handoff.StatusCompleted},
		{"idle: a warnings view on a fresh screen", conformance.Capture(banner169, ls("  Warnings · 1 of 1 · Startup", "", "  k keep & next · esc dismiss & close")), "proj", handoff.StatusIdle},
		{"idle: an overlay below an interrupted turn", conformance.Capture(ls("› Explain", "", "■ Conversation interrupted - tell the model what to do differently.", "", "  Some new picker", "  esc to close")), "proj", handoff.StatusIdle},

		// Unknown lines never hide the positive signs.
		{"processing: Working line, unknown footer", conformance.Capture(ls("› Explain", "", "◦ Working (3s • esc to interrupt)"), prompt, ls(status, "  ⚠ 1 warning · f2 to view")), "", handoff.StatusProcessing},
		{"processing: busy footer above an unknown line", conformance.Capture(ls("› Explain", ""), prompt, ls(status, "  tab to queue message", "  ⚠ 1 warning · f2 to view")), "", handoff.StatusProcessing},
		{"processing: title spinner, unknown footer", conformance.Capture(turn, prompt, ls("  something new")), "⠙ proj", handoff.StatusProcessing},
		{"processing: just sent, nothing below the user message", conformance.Text("› Explain the parser"), "", handoff.StatusProcessing},
		{"processing: just sent, its own continuation below", conformance.Text("› Explain the parser", "  and the lexer"), "", handoff.StatusProcessing},
		{"waiting: approval menu with an unknown line below", conformance.Capture(ls("› Clean up", "", "  Would you like to run the following command?", "", "  $ rm -rf build", "", "› 1. Yes, proceed (y)", "  2. No, and tell Codex what to do differently (esc)", "", "  Press enter to confirm or esc to cancel", "  ⚠ 1 warning")), "proj", handoff.StatusWaitingUserAnswer},
		{"error: error cell, unknown footer", conformance.Capture(ls("› Explain", "", "■ stream disconnected before completion: boom"), prompt, ls(status, "  ⚠ 1 warning · f2 to view")), "proj", handoff.StatusError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conformance.CheckStatus(t, Provider(), tc.capture, tc.title, tc.want, "")
		})
	}
}

// The unknown line below the composer is reported in the signals, and the
// composer is still found.
func TestUnknownFooterLineIsReported(t *testing.T) {
	capture := conformance.Capture(ls("› Explain", "", "• It reads tokens."), ls("", "› Ask Codex to do anything", "", "  ⚠ 1 warning · f2 to view"))
	got := Provider().Classify(capture, "proj")
	sig := got.Signals.(Signals)
	if got.Status != handoff.StatusCompleted || sig.Prompt != "composer" || sig.Unknown != "⚠ 1 warning · f2 to view" || sig.UnknownLine != 1 {
		b, _ := json.Marshal(got)
		t.Fatalf("got %s", b)
	}
}

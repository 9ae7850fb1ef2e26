package codex

import (
	"slices"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// TestSpecScenarios covers every Codex "#### Scenario" of
// ../shared/spec/file-handoff-spec.md (beside the repository), by name.
func TestSpecScenarios(t *testing.T) {
	quiet := []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted}
	tests := []struct {
		name     string
		captures []string
		want     []handoff.Status // any of
	}{
		{
			name: "Narrative keyword does not block idle detection",
			captures: []string{conformance.Text(
				"› Please stop running commands and summarise.",
				"",
				"• Okay, I will stop running commands. Nothing is executing or working now.",
				"",
				"›",
				"100% context left",
			)},
			want: quiet,
		},
		{
			name: "Active work UI correctly blocks idle detection",
			captures: []string{conformance.Text(
				"› Refactor the parser",
				"",
				"• Done with the first pass.",
				"",
				"• Working (12s • esc to interrupt)",
				"",
				"›",
				"100% context left",
			), conformance.Text(
				"› Look around the repository",
				"",
				"• Exploring",
				"  └ Read main.go",
				"",
				"›",
				"100% context left",
			)},
			want: []handoff.Status{handoff.StatusProcessing},
		},
		{
			name: "Narrative \"exploring\" does not block idle detection",
			captures: []string{conformance.Text(
				"› What did you do?",
				"",
				"• I was exploring the codebase and found the parser.",
				"  While Exploring it I kept notes.",
				"",
				"›",
				"100% context left",
			)},
			want: quiet,
		},
		{
			name: "USER_PREFIX_PATTERN does not match across newlines",
			captures: []string{conformance.Text(
				"• READY",
				"",
				"›",
				"100% context left",
			)},
			// The lone › is the prompt, not a user message "› 100% …"
			// (the matcher itself: TestUserPrefixMatchesOnlyOnItsLine).
			want: []handoff.Status{handoff.StatusCompleted},
		},
		{
			name: "Standalone chevron prompt not misdetected as user input",
			captures: []string{conformance.Text(
				"› Reply with READY",
				"",
				"• READY",
				"",
				"›",
				"100% context left",
			)},
			want: []handoff.Status{handoff.StatusCompleted},
		},
		{
			name: "Standalone chevron with prior assistant produces completed",
			captures: []string{conformance.Text(
				"› Summarise the change",
				"",
				"• The parser now accepts trailing commas.",
				"",
				"›",
				"",
				"100% context left",
			)},
			want: []handoff.Status{handoff.StatusCompleted},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for i, capture := range tc.captures {
				got := Provider().Classify(capture, "")
				if !slices.Contains(tc.want, got.Status) {
					t.Errorf("capture %d: status %q (%s), want one of %v\nsignals: %+v", i, got.Status, got.Reason, tc.want, got.Signals)
				}
			}
		})
	}
}

// TestUserPrefixMatchesOnlyOnItsLine is the matcher side of "USER_PREFIX_PATTERN
// does not match across newlines": a lone › has no text, whatever follows
// on the next line, and "› Reply with READY" is a user message.
func TestUserPrefixMatchesOnlyOnItsLine(t *testing.T) {
	tests := []struct {
		line     string
		wantText string
	}{
		{"›", ""},
		{"›  ", ""},
		{"›\t", ""},
		{"› Reply with READY", "Reply with READY"},
		{"›\tReply with READY", "Reply with READY"},
		{"›   Reply", "Reply"},
	}
	for _, tc := range tests {
		kind, text := promptLine(tc.line)
		if kind != chevronPrompt || text != tc.wantText {
			t.Errorf("promptLine(%q) = %d, %q; want chevron prompt with %q", tc.line, kind, text, tc.wantText)
		}
	}
	// Across a newline: the classifier sees the lone › as the prompt.
	sig := Provider().Classify("›\n100% context left\n", "").Signals.(Signals)
	if sig.LastUserLine != 0 || sig.Prompt != "bare" {
		t.Errorf("lone › before the footer: last user line %d, prompt %q; want no user message and a bare prompt", sig.LastUserLine, sig.Prompt)
	}
	sig = Provider().Classify("› Reply with READY\n", "").Signals.(Signals)
	if sig.LastUserLine != 1 || sig.LastUser != "› Reply with READY" {
		t.Errorf("› Reply with READY: last user %q at %d; want it as the user message on line 1", sig.LastUser, sig.LastUserLine)
	}
}

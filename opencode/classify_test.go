package opencode

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// A box right above a footer without a duration is an error only when
// another box (the turn's prompt, a tool) sits above it: alone, it is the
// prompt of a turn just begun (the hint line not drawn yet) or of one
// interrupted before any reply. A plain capture has no colour to tell.
func TestAPromptBoxAboveAnOpenFooterIsNoError(t *testing.T) {
	for _, tc := range []struct {
		name    string
		capture string
		want    handoff.Status
	}{
		{"a turn just begun, first on the screen", conformance.Capture(promptLines("Review the code."), ls(footer(false)), chrome(folder)), handoff.StatusCompleted},
		{"a turn just begun below an earlier one", conformance.Capture(promptLines("hi"), ls("     Hello", "", footer(true)), promptLines("Review the code."), ls(footer(false)), chrome(folder)), handoff.StatusCompleted},
		{"the API error below its prompt", conformance.Capture(promptLines("Review the code."), ls("  ┃", "  ┃  Request contains an invalid argument (fake).", "  ┃", ""), ls(footer(false)), chrome(folder)), handoff.StatusError},
		// A prompt of several paragraphs is one box with empty bars in it
		// (a CI run read its lower paragraph as an error box below its
		// upper ones).
		{"a prompt of paragraphs, a turn just begun", conformance.Capture(ls("", "  ┃", "  ┃  Review the code.", "  ┃", "  ┃  RESPONSE FILE INSTRUCTION", "  ┃  cat << 'EOF' > f", "  ┃", "  ┃  Write the file once, as your last action.", "  ┃", ""), ls(footer(false)), chrome(folder)), handoff.StatusCompleted},
		{"the API error below a prompt of paragraphs", conformance.Capture(ls("", "  ┃", "  ┃  Review the code.", "  ┃", "  ┃  Write the file once.", "  ┃", ""), ls("  ┃", "  ┃  Request contains an invalid argument (fake).", "  ┃", ""), ls(footer(false)), chrome(folder)), handoff.StatusError},
		{"an error after a tool", conformance.Capture(promptLines("Run it."), ls("  ┃  $ ls", "  ┃  a.go", "  ┃", ""), ls("  ┃", "  ┃  Request failed.", "  ┃", ""), ls(footer(false)), chrome(folder)), handoff.StatusError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Provider().Classify(tc.capture, session)
			if got.Status != tc.want {
				t.Fatalf("%s (%s, detail %q), want %s\n%s", got.Status, got.Reason, got.Detail, tc.want, tc.capture)
			}
		})
	}
}

// A question's foot is read only where the composer would be: an answer
// that quotes it, above a ready composer, is an answer.
func TestAQuestionsFootQuotedInAnAnswerIsNoQuestion(t *testing.T) {
	answer := conformance.Capture(promptLines("What does the dialog say?"),
		ls("     It says:", "", "     ↑↓ select  enter submit  esc dismiss", "", footer(true)), chrome(folder))
	if got := Provider().Classify(answer, session); got.Status != handoff.StatusCompleted {
		t.Fatalf("%s (%s), want completed\n%s", got.Status, got.Reason, answer)
	}
}

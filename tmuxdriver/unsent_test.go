package tmuxdriver

import "testing"

// ClearUnsent clears a draft only when it is the start of the prompt that
// was pasted: a person's own draft, a placeholder or another prompt are
// left alone.
func TestOnlyTheUnsentPromptsOwnDraftIsCleared(t *testing.T) {
	prompt := "Review the design\n\nRESPONSE FILE INSTRUCTION\n…"
	for _, c := range []struct {
		draft string
		want  bool
	}{
		{"Review the design", true},
		{"Review the des…", true}, // cut short on a narrow screen
		{"", false},
		{"…", false},
		{"Review the design and the tests", false},
		{"something a person typed", false},
	} {
		if got := draftOf(c.draft, prompt); got != c.want {
			t.Errorf("draft %q of %q: %v, want %v", c.draft, prompt, got, c.want)
		}
	}
	if !draftOf("Message:", "Message:\n/review this") {
		t.Error("a prompt pasted with its lead line is not recognised")
	}
}

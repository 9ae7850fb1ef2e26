package conformance

import (
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// CheckComposer reads each real screen in dir (testdata/composer: what the
// composer showed after a paste or typed keys, before Enter) with the
// provider's composer: a file named shell-… must read as another mode, one
// named plain-… as a plain message. It also checks what every provider's
// Inert guarantees: a prompt that starts with one of the CLI's mode
// characters (after blanks and line breaks too) is led by
// handoff.PromptLead, and the prompt itself is kept whole.
func CheckComposer(t *testing.T, comp handoff.Composer, dir string, leaders string) {
	t.Helper()
	for _, c := range testkit.Captures(t, filepath.Join(dir, "*.txt")) {
		name := filepath.Base(c.File)
		mode := comp.Mode(c.Text)
		switch {
		case strings.HasPrefix(name, "shell-") && mode == "":
			t.Errorf("%s: read as a plain message, want another mode", name)
		case strings.HasPrefix(name, "plain-") && mode != "":
			t.Errorf("%s: read as %q, want a plain message", name, mode)
		}
	}
	if mode := comp.Mode(""); mode != "" {
		t.Errorf("an empty screen reads as %q", mode)
	}
	CheckInert(t, comp, leaders)
}

// CheckInert checks what every composer's Inert guarantees: a prompt that
// starts with one of leaders (after blanks and line breaks too) is led by
// handoff.PromptLead, a plain one is left as it is, and the prompt itself
// is kept whole.
func CheckInert(t *testing.T, comp handoff.Composer, leaders string) {
	t.Helper()
	for _, r := range leaders {
		for _, before := range []string{"", "  ", "\n\n", " \t\n "} {
			prompt := before + string(r) + "rm -rf ~/x; echo hi\nsecond line"
			got := comp.Inert(prompt)
			if got != handoff.PromptLead+"\n"+prompt {
				t.Errorf("Inert(%q) = %q, want the lead line and the prompt whole", prompt, got)
			}
		}
	}
	for _, plain := range []string{"Fix the bug.", "  indented", "a!b", "x /y", "Ünïcode ✓"} {
		if got := comp.Inert(plain); got != plain {
			t.Errorf("Inert(%q) = %q, want it unchanged", plain, got)
		}
	}
}

package codex

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerMode finds shell mode by its mark at the right of the footer: a
// line that is only "Shell mode" after a wide gap.
func composerMode(capture string) string {
	for _, ln := range screen.Bottom(capture, 6) {
		if ln.T == "Shell mode" || strings.HasSuffix(ln.Text, "          Shell mode") {
			return screen.ShellMode
		}
	}
	return ""
}

// clearKeys: Backspace leaves an empty shell-mode composer (a lone "!"),
// Ctrl-C empties one that holds text.
func clearKeys(capture string) []string {
	for _, ln := range screen.Bottom(capture, 8) {
		if ln.Indent == 0 && ln.T == "!" {
			return []string{"BSpace"}
		}
	}
	return []string{"C-c"}
}

// draft is the composer's text when it is not a placeholder: the bottom
// pane as the classifier reads it (handoff.DraftReader).
func draft(capture string) string {
	var r reading
	r.read(capture, false)
	if r.bottom.prompt != promptComposer || r.bottom.placeholder {
		return ""
	}
	return r.bottom.composer
}

package opencode

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// clearKeys: Esc, then Ctrl-U enough times for a long paste's lines
// (OpenCode folds a paste of more than a few lines into one placeholder).
func clearKeys() []string {
	keys := []string{"Escape"}
	for range 8 {
		keys = append(keys, "C-u")
	}
	return keys
}

// composerMode finds shell mode by the footer's hint at its right end
// ("esc exit shell mode"; in a wide pane the folder stands on the same line,
// at its left), on a line outside the composer's box.
func composerMode(capture string) string {
	for _, ln := range screen.Bottom(capture, 6) {
		if !strings.HasPrefix(ln.T, "┃") && strings.HasSuffix(ln.T, "esc exit shell mode") {
			return screen.ShellMode
		}
	}
	return ""
}

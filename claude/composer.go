package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerMode finds bash mode by its hint under the composer, or the
// composer's first line behind "!" instead of "❯".
func composerMode(capture string) string {
	if screen.BottomHas(capture, 12, "! for shell mode") || screen.BottomHas(capture, 12, "! for bash mode") {
		return screen.ShellMode
	}
	if first, ok := firstLine(capture); ok &&
		(first == "!" || strings.HasPrefix(first, "! ") || strings.HasPrefix(first, "!"+screen.NBSP)) {
		return screen.ShellMode
	}
	return ""
}

// clearKeys: Backspace leaves an empty bash-mode composer; Esc Esc empties
// one that holds text.
func clearKeys(capture string) []string {
	if first, _ := firstLine(capture); first == "!" {
		return []string{"BSpace"}
	}
	return []string{"Escape", "Escape"}
}

// firstLine is the composer's first line: it sits between two rules, right
// under the upper one, in the first column.
func firstLine(capture string) (string, bool) {
	bottom := screen.Bottom(capture, 12)
	for i, ln := range bottom {
		if i+1 < len(bottom) && screen.IsRule(bottom[i+1].T, 20) && ln.Indent == 0 {
			return ln.T, true
		}
	}
	return "", false
}

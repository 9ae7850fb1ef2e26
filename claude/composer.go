package claude

import (
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerRules is the CLI's message box as rules (handoff.Composer): what
// the driver needs to deliver a prompt as a plain message.
//
// Claude Code 2.1.330's composer, tried on the real CLI with pasted text:
//   - '!' as the message's first character switches it to bash mode (the
//     prompt becomes "!", the hint below it "! for shell mode"), and Enter
//     then runs the whole message in a shell; after a leading blank or
//     line break it stays a message.
//   - '/' first makes the message a slash command when it is submitted
//     (the paste opens no menu): "/clear" would clear the session.
//   - '#', '@', '&' and '?' first stay plain text when pasted ('@path'
//     attaches a file that exists, wherever it stands).
//   - Esc Esc empties the composer but stays in bash mode; Backspace on
//     the empty composer leaves it (on a loaded machine the Backspace can
//     come before the Esc Esc is done: the driver looks and presses again).
func composerRules() screen.Composer {
	return screen.Composer{
		Leaders:  "!/#",
		Lead:     handoff.PromptLead,
		ClearFor: clearKeys,
		Read:     composerMode,
	}
}

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

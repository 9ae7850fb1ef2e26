package opencode

import (
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerRules is the CLI's message box as rules (handoff.Composer): what
// the driver needs to deliver a prompt as a plain message.
//
// OpenCode 1.18.33's composer, tried on the real CLI:
//   - A pasted '!' stays text; a typed '!' on the empty composer switches
//     it to shell mode (its agent label reads "Shell", the footer "esc exit
//     shell mode"), where Enter runs the message in a shell.
//   - '/' first is a command when submitted; a typed one opens the command
//     menu ("/review  review changes …") above the composer.
//   - Esc leaves shell mode or the menu, Ctrl-U empties the composer line
//     by line.
func composerRules() screen.Composer {
	return screen.Composer{
		Leaders: "!/",
		Lead:    handoff.PromptLead,
		Clear:   clearKeys(),
		Read:    composerMode,
	}
}

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

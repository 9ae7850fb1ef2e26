package opencode

import (
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// OpenCode 1.18.33's composer, tried on the real CLI:
//   - A pasted '!' stays text; a typed '!' on the empty composer switches
//     it to shell mode (its agent label reads "Shell", the footer "esc exit
//     shell mode"), where Enter runs the message in a shell.
//   - '/' first is a command when submitted; a typed one opens the command
//     menu ("/review  review changes …") above the composer.
//   - Esc leaves shell mode or the menu, Ctrl-U empties the composer line
//     by line.
var messageBox = screen.Composer{
	Leaders: "!/",
	Lead:    handoff.PromptLead,
	Clear:   clearKeys(),
	Read:    composerMode,
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

// Inert is the text to paste for a plain message (handoff.Composer).
func (*Classifier) Inert(text string) string { return messageBox.Inert(text) }

// Mode reads the composer after a paste: "" for a plain message.
func (*Classifier) Mode(capture string) string { return messageBox.Mode(capture) }

// ClearKeys leave shell mode and empty the composer.
func (*Classifier) ClearKeys() []string { return messageBox.ClearKeys() }

// composerMode finds shell mode by its footer hint.
func composerMode(capture string) string {
	for _, ln := range screen.Bottom(capture, 6) {
		if strings.Contains(ln.T, "esc exit shell mode") {
			return "shell mode ('!': Enter would run the message as a shell command)"
		}
	}
	return ""
}

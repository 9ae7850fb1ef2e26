package qwen

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Qwen Code 0.24.4's composer is Gemini CLI's (a fork), tried on the real
// CLI: a pasted '!' stays text, a typed one on the empty composer switches
// to shell mode ("shell mode enabled (esc to disable)" under it); '/' and
// '?' first make a command on submit, a typed '/' opens the command menu;
// Esc leaves shell mode and Esc Esc empties the composer.
var messageBox = screen.Composer{
	Leaders: "!/?",
	Lead:    handoff.PromptLead,
	Clear:   []string{"Escape", "Escape", "Escape"},
	Read:    composerMode,
}

// Inert is the text to paste for a plain message (handoff.Composer).
func (*Classifier) Inert(text string) string { return messageBox.Inert(text) }

// Mode reads the composer after a paste: "" for a plain message.
func (*Classifier) Mode(capture string) string { return messageBox.Mode(capture) }

// ClearKeys leave shell mode and empty the composer.
func (*Classifier) ClearKeys() []string { return messageBox.ClearKeys() }

// composerMode finds shell mode by the line that says so under the
// composer.
func composerMode(capture string) string {
	if screen.BottomHas(capture, 12, "shell mode enabled") {
		return "shell mode ('!': Enter would run the message as a shell command)"
	}
	return ""
}

package qwen

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerRules is the CLI's message box as rules (handoff.Composer): what
// the driver needs to deliver a prompt as a plain message.
//
// Qwen Code 0.24.4's composer is Gemini CLI's (a fork), tried on the real
// CLI: a pasted '!' stays text, a typed one on the empty composer switches
// to shell mode ("shell mode enabled (esc to disable)" under it); '/' and
// '?' first make a command on submit, a typed '/' opens the command menu;
// Esc leaves shell mode and Esc Esc empties the composer.
func composerRules() screen.Composer {
	return screen.Composer{
		Leaders: "!/?",
		Lead:    handoff.PromptLead,
		Clear:   []string{"Escape", "Escape", "Escape"},
		Read:    screen.HintMode(12, "shell mode enabled", screen.ShellMode),
	}
}

package gemini

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerRules is the CLI's message box as rules (handoff.Composer): what
// the driver needs to deliver a prompt as a plain message.
//
// Gemini CLI 0.61.0's composer, tried on the real CLI:
//   - A pasted '!' stays text; a typed '!' on the empty composer switches
//     it to shell mode ("shell mode enabled (esc to disable)" above it,
//     the prompt "!"), where Enter runs the message in a shell. A composer
//     left in shell mode takes a paste as a command too.
//   - '/' and '?' first make the message a command when it is submitted;
//     the CLI trims the message before it looks, so leading blanks are no
//     guard.
//   - '@path' anywhere includes that file's content in what the model
//     reads (the text itself is kept).
//   - Esc leaves shell mode; two more empty the composer.
func composerRules() screen.Composer {
	return screen.Composer{
		Leaders: "!/?",
		Lead:    handoff.PromptLead,
		Clear:   []string{"Escape", "Escape", "Escape"},
		Read:    screen.HintMode(12, "shell mode enabled", screen.ShellMode),
	}
}

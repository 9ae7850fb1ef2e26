package pi

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerRules is the CLI's message box as rules (handoff.Composer): what
// the driver needs to deliver a prompt as a plain message.
//
// pi 0.73.1's editor, tried on the real CLI: a message that starts with
// '!' runs as a bash command when submitted ("!!" too, kept out of the
// context), and '/' first is a command; the editor drops leading empty
// lines of a paste, so a line break is no guard. Its bash mode shows only
// as the editor's border colour, which a plain capture cannot see: the
// lead line is the guard, and Mode reads nothing.
func composerRules() screen.Composer {
	return screen.Composer{
		Leaders: "!/",
		Lead:    handoff.PromptLead,
	}
}

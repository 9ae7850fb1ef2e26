package pi

import (
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pi 0.73.1's editor, tried on the real CLI: a message that starts with
// '!' runs as a bash command when submitted ("!!" too, kept out of the
// context), and '/' first is a command; the editor drops leading empty
// lines of a paste, so a line break is no guard. Its bash mode shows only
// as the editor's border colour, which a plain capture cannot see: the
// lead line is the guard, and Mode reads nothing.
var messageBox = screen.Composer{
	Leaders: "!/",
	Lead:    handoff.PromptLead,
}

// Inert is the text to paste for a plain message (handoff.Composer).
func (*Classifier) Inert(text string) string { return messageBox.Inert(text) }

// Mode reads the composer after a paste: always "" (see messageBox).
func (*Classifier) Mode(capture string) string { return messageBox.Mode(capture) }

// ClearKeys: none are needed while Mode reads nothing.
func (*Classifier) ClearKeys() []string { return messageBox.ClearKeys() }

package codex

import (
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// composerRules is the CLI's message box as rules (handoff.Composer): what
// the driver needs to deliver a prompt as a plain message.
//
// Codex 0.169's composer, tried on the real CLI with pasted text:
//   - '!' as the message's first character switches it to shell mode (the
//     prompt becomes "!", "Shell mode" shows at the right under it), and
//     Enter runs the message as a shell command: the model is never asked.
//     After a leading blank or line break it stays a message.
//   - '/' first makes the message a slash command when submitted ("/new",
//     "/quit"); the paste itself opens no menu.
//   - '@', '#', '$' and '?' first stay plain text when pasted.
//   - Ctrl-C empties a composer that holds text and leaves shell mode (on
//     an empty one it would offer to quit, so an empty shell-mode composer
//     gets Backspace instead).
func composerRules() screen.Composer {
	return screen.Composer{
		Leaders:  "!/",
		Lead:     handoff.PromptLead,
		ClearFor: clearKeys,
		Read:     composerMode,
	}
}

// composerMode finds shell mode by its mark at the right of the footer: a
// line that is only "Shell mode" after a wide gap.
func composerMode(capture string) string {
	for _, ln := range screen.Bottom(capture, 6) {
		if ln.T == "Shell mode" || strings.HasSuffix(ln.Text, "          Shell mode") {
			return screen.ShellMode
		}
	}
	return ""
}

// clearKeys: Backspace leaves an empty shell-mode composer (a lone "!"),
// Ctrl-C empties one that holds text.
func clearKeys(capture string) []string {
	for _, ln := range screen.Bottom(capture, 8) {
		if ln.Indent == 0 && ln.T == "!" {
			return []string{"BSpace"}
		}
	}
	return []string{"C-c"}
}

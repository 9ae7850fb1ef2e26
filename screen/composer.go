package screen

import (
	"strings"
	"unicode"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Composer is one agent CLI's message box as rules: what the tmux driver
// needs to deliver a prompt as a plain message (see handoff.Composer, which
// it implements). A provider fills one in; the logic is here, once.
type Composer struct {
	// Leaders are the characters that, first in a message, open another
	// mode or make the message a command ('!' a shell, '/' a command).
	Leaders string
	// Lead is the plain line put before a message that starts with a
	// leader; "" is handoff.PromptLead.
	Lead string
	// Clear are the tmux keys that empty the composer and leave any mode.
	Clear []string
	// ClearFor, when set, picks the keys from the screen instead of Clear
	// (a composer that needs other keys when it is empty).
	ClearFor func(capture string) []string
	// Read reads the composer off a capture taken after the paste: "" for
	// a plain message, else what it shows instead.
	Read func(capture string) string
	// ReadDraft, when set, reads the first line of the draft the composer
	// holds ("" for none, or a placeholder): see handoff.DraftReader.
	ReadDraft func(capture string) string
	// ReadPaste, when set, reads the composer after text was pasted: the
	// CLI's folded-paste form and its size, or the text's end (see
	// handoff.PasteReader).
	ReadPaste func(capture, text string) (handoff.Paste, string)
	// RawLineBreaks: the prompt's line breaks must reach the CLI as the LF
	// they are, not as the CR a terminal's paste turns them into (see
	// handoff.LineBreakKeeper).
	RawLineBreaks bool
}

// PasteLF reports RawLineBreaks: a Composer is a handoff.LineBreakKeeper.
func (c Composer) PasteLF() bool { return c.RawLineBreaks }

// Inert returns text with Lead and a line break before it when its first
// character past leading blanks and line breaks is a leader: CLIs trim a
// message before they look for a command (Gemini CLI, Claude Code's
// slash commands), so blanks are no guard.
func (c Composer) Inert(text string) string {
	first := strings.TrimLeftFunc(text, unicode.IsSpace)
	if first == "" {
		return text
	}
	if strings.ContainsRune(c.Leaders, []rune(first)[0]) {
		if c.Lead == "" {
			return handoff.PromptLead + "\n" + text
		}
		return c.Lead + "\n" + text
	}
	return text
}

// Mode is Read's verdict on the capture.
func (c Composer) Mode(capture string) string {
	if c.Read == nil {
		return ""
	}
	return c.Read(capture)
}

// Draft is ReadDraft's reading of the capture ("" without ReadDraft): a
// Composer is a handoff.DraftReader.
func (c Composer) Draft(capture string) string {
	if c.ReadDraft == nil {
		return ""
	}
	return c.ReadDraft(capture)
}

// Pasted is ReadPaste's reading (PasteUnread without ReadPaste): a
// Composer is a handoff.PasteReader.
func (c Composer) Pasted(capture, text string) (handoff.Paste, string) {
	if c.ReadPaste == nil {
		return handoff.PasteUnread, ""
	}
	return c.ReadPaste(capture, text)
}

// ClearKeys are the keys that empty the composer shown in capture:
// ClearFor's, else Clear.
func (c Composer) ClearKeys(capture string) []string {
	if c.ClearFor != nil {
		return c.ClearFor(capture)
	}
	return c.Clear
}

// ShellMode is what Mode says of a composer in a CLI's shell mode.
const ShellMode = "shell mode ('!': Enter would run the message as a shell command)"

// HintMode is a Composer.Read for a CLI that names its mode in a line near
// the bottom: it reads mode when one of the last n non-blank lines, without
// its indentation, starts with hint.
func HintMode(n int, hint, mode string) func(capture string) string {
	return func(capture string) string {
		if BottomHas(capture, n, hint) {
			return mode
		}
		return ""
	}
}

// BottomHas reports whether one of the last n non-blank lines of capture,
// without its indentation, starts with prefix: how a composer's mode hint
// ("shell mode enabled", "! for shell mode") is found.
func BottomHas(capture string, n int, prefix string) bool {
	for _, ln := range Bottom(capture, n) {
		if strings.HasPrefix(ln.T, prefix) {
			return true
		}
	}
	return false
}

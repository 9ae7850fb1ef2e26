package handoff

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// A prompt is data: it reaches the model whole and once, and nothing in it
// may run or switch an agent's composer into another mode. What a prompt
// may hold is checked here, once, by every way a prompt goes in (send, the
// service, mcp, the Temporal worker, the tmux driver itself).

// ErrPromptRefused is wrapped by CheckPrompt's error: the prompt holds
// something that cannot be delivered as plain text. Nothing was sent; it is
// the caller's input that must change (send exits 2, the service answers
// 400 on "prompt").
var ErrPromptRefused = errors.New("prompt refused")

// ErrComposerMode is wrapped by a Sender's error when, after the paste and
// before Enter, the agent's composer showed something other than a plain
// message (a shell mode, a command menu, a file picker): the composer was
// cleared (the error says if it could not be) and nothing was submitted.
// It is wrapped too when, before the paste, the composer already held text
// the Sender did not put there: nothing was pasted, and that text is left.
var ErrComposerMode = errors.New("the agent's composer did not take the prompt as a plain message")

// ErrPasteIncomplete is wrapped by a Sender's error when, after the paste
// and before Enter, the agent's composer did not show the prompt whole in
// time: a fold of another size or several folds, only part of the text,
// or a turn started with no Enter pressed (the CLI took part of the paste
// as typed keys). The error quotes what the composer showed. The composer
// was cleared and no Enter was pressed; whatever the CLI itself submitted
// before that is named in the error, and the dispatch fails rather than
// return an answer to part of the prompt.
var ErrPasteIncomplete = errors.New("the agent's composer did not show the prompt whole")

// ErrEnterNotTaken is wrapped by a Sender's error when the agent read the
// Enter after a whole paste and still shows the prompt unsent, with no
// turn, after the Sender's last try: the prompt was not submitted.
var ErrEnterNotTaken = errors.New("the agent did not submit the prompt")

// ErrNotSubmitted is wrapped by a failed dispatch's error when its prompt
// never left the agent's composer: looked at once more as the dispatch
// failed, the composer still held this prompt whole (its text's end, or
// the CLI's fold of its size) and the agent showed no turn. The dispatch
// ends as the table says (no_response_file, exit 5, most often); this
// says why. The prompt is left in the composer as it is: a person can
// submit it (Enter in the pane) or clear it, and a next paste would join
// it. See UnsentChecker.
var ErrNotSubmitted = errors.New("the prompt was never submitted: it is still in the agent's composer")

// UnsentChecker is a Terminal that can read, now, whether a prompt it was
// sent still sits unsent in its agent's composer (the tmux driver: the
// provider's PasteReader reads it whole, and the agent shows no turn and
// no user message of it). The engine asks it once, when a dispatch that
// sent its prompt fails, so the error can say the prompt never left.
type UnsentChecker interface {
	// Unsent reports whether the composer holds text (as it was sent)
	// whole while the agent shows no turn; seen quotes what decided
	// ("[Pasted Content 66327 chars]"). A composer it cannot read is not
	// unsent.
	Unsent(ctx context.Context, text string) (seen string, unsent bool, err error)
}

// DraftReader is a Composer that can read what its message box holds: how
// a process that died between a prompt's paste and its Enter is told,
// later, whether the prompt still sits there unsent (a next paste would
// join it into one message with the next prompt).
type DraftReader interface {
	// Draft returns the first line of the text the composer holds on the
	// capture, as the screen shows it (it may be cut short, ending with
	// "…"); "" when the composer is empty, shows a placeholder or is not
	// found.
	Draft(capture string) string
}

// Held reads what the composer on capture already holds before text is
// pasted into it: a fold or text its PasteReader reads there (PasteWrong,
// or text itself whole), else the draft its DraftReader reads (typed text,
// not the CLI's placeholder). ok is false when it holds nothing either
// reader can see, or neither can read it: a composer that cannot be read
// is never taken for a full one. seen quotes what decided. The tmux driver
// pastes into no quiet agent's composer that holds something: the prompt
// would join it, and the model would get both as one message.
func Held(c Composer, capture, text string) (seen string, ok bool) {
	if pr, is := c.(PasteReader); is {
		if got, seen := pr.Pasted(capture, text); got == PasteWrong || got == PasteWhole {
			return seen, true
		}
	}
	if dr, is := c.(DraftReader); is {
		if d := dr.Draft(capture); d != "" {
			return d, true
		}
	}
	return "", false
}

// PromptError says where a refused prompt holds what: the byte offset of
// the first offending character and what it is. It wraps ErrPromptRefused.
type PromptError struct {
	Offset int    // byte offset in the prompt as given
	What   string // "ESC (U+001B)", "invalid UTF-8", …
}

func (e *PromptError) Error() string {
	return fmt.Sprintf("%v: it holds %s at byte %d; a prompt may hold text, tabs and line breaks, but no other control characters (an escape sequence could end the paste early and be typed as keys)", ErrPromptRefused, e.What, e.Offset)
}

// Unwrap lets errors.Is match ErrPromptRefused.
func (e *PromptError) Unwrap() error { return ErrPromptRefused }

// CheckPrompt refuses a prompt that holds a control character other than
// tab, line feed and carriage return (C0, DEL and C1: ESC among them, which
// could end a bracketed paste early and turn the rest of the prompt into
// keys), or bytes that are not UTF-8. The error is a *PromptError naming
// the first one and its offset. We refuse rather than strip: a prompt that
// changed silently would not reach the model whole.
func CheckPrompt(text string) error {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			return &PromptError{Offset: i, What: "invalid UTF-8"}
		case r == '\t' || r == '\n' || r == '\r':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			return &PromptError{Offset: i, What: controlName(r)}
		}
		i += size
	}
	return nil
}

// controlName names a control character for a person: "ESC (U+001B)".
func controlName(r rune) string {
	names := map[rune]string{0: "NUL", 0x03: "ETX (Ctrl-C)", 0x04: "EOT (Ctrl-D)", 0x08: "BS", 0x1b: "ESC", 0x7f: "DEL", 0x9b: "CSI"}
	if n, ok := names[r]; ok {
		return fmt.Sprintf("%s (U+%04X)", n, r)
	}
	return fmt.Sprintf("the control character U+%04X", r)
}

// NormalizeLineBreaks turns CRLF and lone CR into LF: inside a paste a CR
// is a line break, and one kind of line break reaches every CLI alike.
func NormalizeLineBreaks(text string) string {
	if !strings.Contains(text, "\r") {
		return text
	}
	return strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
}

// PromptLead is the line a Composer puts before a message whose first
// character would otherwise open another mode of the agent's composer (a
// shell, a command): the model then reads it, followed by the prompt whole.
const PromptLead = "Message:"

// Composer is what an agent CLI's message box does with a prompt: the
// provider's knowledge that keeps delivery inert. A Classifier that is also
// a Composer lets the tmux driver deliver through it.
type Composer interface {
	// Inert returns text as it must be pasted for the composer to take it
	// as a plain message: text itself, or, when its first character would
	// open another mode, PromptLead and a line break before it. The text's
	// own characters are never dropped or changed.
	Inert(text string) string
	// Mode reads the screen after the paste, before Enter: "" when the
	// composer holds a plain message, else what it shows instead, for a
	// person ("shell mode", "the slash-command menu").
	Mode(capture string) string
	// ClearKeys are the tmux keys to press next to empty the composer and
	// leave its mode, given the screen now (some CLIs need other keys for
	// an empty composer than for one with text); nil when nothing is left
	// to press. The driver presses them while Mode is not "", a few
	// rounds at most, looking again after each.
	ClearKeys(capture string) []string
}

// Paste is what an agent's composer shows of a prompt just pasted into it,
// read before Enter (and again after it): the tmux driver presses Enter
// only on PasteWhole, and presses it a second time only while the composer
// still shows the same prompt whole and the agent shows no turn.
type Paste int

// What a PasteReader can read off a composer.
const (
	// PasteUnread: the composer's rules cannot tell (none written, or the
	// composer is not on the screen).
	PasteUnread Paste = iota
	// PasteArriving: the CLI is still reading the paste ("Pasting… 60 KB"),
	// or shows only part of it so far. An Enter now would be taken as part
	// of the paste, or submit a part of it.
	PasteArriving
	// PasteWhole: the composer holds the whole prompt, as its text (its
	// last line is shown) or as the CLI's fold of it whose size is the
	// prompt's own ("[Pasted Content 20743 chars]", "[Pasted text #1 +312
	// lines]").
	PasteWhole
	// PasteWrong: the composer holds something that is not the prompt
	// whole: a fold whose size is not the prompt's, several folds, other
	// text. Enter would submit something else.
	PasteWrong
)

// String names the reading for a person and the trace.
func (p Paste) String() string {
	switch p {
	case PasteArriving:
		return "arriving"
	case PasteWhole:
		return "whole"
	case PasteWrong:
		return "wrong"
	}
	return "unread"
}

// LineBreakKeeper is a Composer that must get a paste's line breaks as LF
// (tmux paste-buffer -r), not as the CR a terminal's paste sends for each
// (tmux's default, as xterm's): Cline keeps a CR as a CR in a paste it
// folds, and its model would get the prompt's lines joined by CRs.
type LineBreakKeeper interface {
	// PasteLF reports that the paste must keep its LFs.
	PasteLF() bool
}

// PasteReader is a Composer that can read whether a paste has arrived
// whole: each CLI's folded-paste form lives in its provider, with its size
// checked against the prompt.
type PasteReader interface {
	// Pasted reads the capture taken after text (as pasted: Inert and
	// NormalizeLineBreaks applied) was pasted into an empty composer, and
	// says what the composer shows of it; seen quotes the line that decided,
	// for an error a person can act on ("[Pasted Content 20743 chars]").
	Pasted(capture, text string) (p Paste, seen string)
}

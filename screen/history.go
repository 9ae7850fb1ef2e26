package screen

import (
	"fmt"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Turn is what a history of cells says about the newest turn, read from
// the composer up to the last prompt: the part of a provider's Signals
// that Claude Code, Gemini CLI and Qwen Code share, embedded in theirs.
// Line numbers count from the end of the capture (1 = last line); 0: not
// found.
type Turn struct {
	// LastUser is the last user prompt (first line).
	LastUser     string `json:"last_user,omitempty"`
	LastUserLine int    `json:"last_user_line"`
	// Newest is the kind of the newest cell after the last prompt (notes
	// aside).
	Newest     string `json:"newest,omitempty"`
	NewestText string `json:"newest_text,omitempty"`
	NewestLine int    `json:"newest_line"`
	// Reply is the bottom-most sign of a reply after the last prompt: a
	// message, a tool call (or a kind of the provider's own).
	Reply     string `json:"reply,omitempty"`
	ReplyLine int    `json:"reply_line"`
	// Error is the error cell (joined with its continuation lines) when it
	// is the newest cell.
	Error     string `json:"error,omitempty"`
	ErrorLine int    `json:"error_line"`
}

// Settled is the verdict on a screen with no dialog and no sign of work,
// given what sits at the bottom (chrome: ChromeComposer or ChromeNone): an
// API error as the newest cell; no composer; a reply after the last prompt
// (the turn completed); a prompt with nothing after it; no prompt at all.
func (t *Turn) Settled(chrome string) (handoff.Status, string) {
	switch {
	case t.Newest == CellError:
		return handoff.StatusError, ReasonError
	case chrome == ChromeNone:
		return handoff.StatusIdle, ReasonNoComposer
	case t.Reply != "":
		return handoff.StatusCompleted, ReasonCompleted
	case t.LastUserLine != 0:
		return handoff.StatusIdle, ReasonIdle
	}
	return handoff.StatusIdle, ReasonIdleNoTurns
}

// Blocked is the verdict every provider reads first, before any sign of
// work: a screen of blanks only is an error (the walk read no non-blank
// line, or capture holds only blanks the walk does not trim, U+2002 EN
// SPACE …), and a dialog in the composer's place (chrome ChromeDialog) waits
// for the user, with the provider's reason for its dialog. ok is false for
// neither.
func Blocked(capture string, nonBlank int, chrome, dialogReason string) (status handoff.Status, reason string, ok bool) {
	switch {
	case nonBlank == 0 || strings.TrimSpace(capture) == "":
		return handoff.StatusError, ReasonEmpty, true
	case chrome == ChromeDialog:
		return handoff.StatusWaitingUserAnswer, dialogReason, true
	}
	return "", "", false
}

// Ahead is the verdict a provider that reads its chrome first gives before
// it looks at the turn: Blocked (for dialog, its reason for a dialog), then
// no composer at the bottom (idle, for noComposer), then a sign of work
// when working is set (processing, for busy). ok is false for none of
// these: the turn decides (Settle).
func Ahead(capture string, nonBlank int, chrome string, working bool, dialog, noComposer, busy string) (status handoff.Status, reason string, ok bool) {
	if status, reason, ok := Blocked(capture, nonBlank, chrome, dialog); ok {
		return status, reason, true
	}
	switch {
	case chrome == ChromeNone:
		return handoff.StatusIdle, noComposer, true
	case working:
		return handoff.StatusProcessing, busy, true
	}
	return "", "", false
}

// Settle is the verdict on the turn under a ready composer with no sign of
// work (after Ahead): an error as the newest cell or block (failed), else a
// reply after the last prompt (completed), else idle; each for the
// provider's reason.
func Settle(failed, replied bool, errReason, completedReason, idleReason string) (handoff.Status, string) {
	switch {
	case failed:
		return handoff.StatusError, errReason
	case replied:
		return handoff.StatusCompleted, completedReason
	}
	return handoff.StatusIdle, idleReason
}

// maxCont is how many continuation lines of a cell a History keeps: an
// error's text is a few lines, and the nearest ones are kept.
const maxCont = 16

// Cells is a reading of a CLI whose composer (or a dialog in its place)
// sits under a history of cells, as Copilot CLI, Gemini CLI and Qwen Code
// draw theirs: the walk up the capture, counted, and where the newest
// message starts, which History records and Turn.LastMessage reads.
type Cells struct {
	Walk
	// Message is the byte offset of the newest message's first line after
	// the last prompt; -1 when there is none.
	Message int
}

// Read starts the walk over capture and runs such a reading's two passes:
// chrome, from the bottom up, returns the lines it read and did not take
// (newest first) and whether the bottom is a dialog; unless it is, history
// reads on up from there to the last prompt.
func (c *Cells) Read(capture string, chrome func() (above []Line, dialog bool), history func(above []Line)) {
	c.Init(capture)
	c.Message = -1
	if above, dialog := chrome(); !dialog {
		history(above)
	}
}

// History walks a history of cells up from a provider's chrome to the last
// prompt, the walk Copilot CLI's, Gemini CLI's and Qwen Code's readers
// share: Next gives the lines, Continue and Drop keep a cell's
// continuation lines, Cell records a cell into Turn. The provider says
// which line is which.
type History struct {
	// Cells is the reading: its walk, where the chrome pass left it (its
	// Clean rewrites each line read), and its Message, which Cell sets.
	Cells *Cells
	// Above are the lines the chrome pass read but did not take, newest
	// first: Next gives them before it reads on.
	Above []Line
	// Turn is where Cell records what it finds.
	Turn *Turn

	cont []Line
	seen bool // a message was recorded
}

// Next is the next non-blank line up: one of Above, then one of the walk.
func (h *History) Next() (Line, bool) {
	if len(h.Above) > 0 {
		ln := h.Above[0]
		h.Above = h.Above[1:]
		return ln, true
	}
	return h.Cells.Text()
}

// ReadCells reads the history up to the last prompt, the way of a CLI that
// draws each cell's first line indent columns in after a glyph (Copilot
// CLI, Qwen Code): any other line continues the cell above it. The
// prompt's line (prompt returns its text) is Turn's last prompt and ends
// the walk; cell says a line's kind and its text after the glyph. A line of
// kind skip (a note) is no cell of the turn: it is dropped with its
// continuation lines, as is the first cell line when first (nil: none)
// takes it, a status line under the history.
func (h *History) ReadCells(indent int, first func(Line) bool, prompt func(Line) (string, bool), cell func(t string) (kind, text string), skip string) {
	atFirst := true
	for {
		ln, ok := h.Next()
		if !ok {
			return
		}
		if ln.Indent != indent {
			h.Continue(ln)
			continue
		}
		if atFirst {
			atFirst = false
			if first != nil && first(ln) {
				h.Drop()
				continue
			}
		}
		if text, ok := prompt(ln); ok {
			h.Turn.LastUser, h.Turn.LastUserLine = Signal(text), ln.N
			return
		}
		kind, text := cell(ln.T)
		if kind == skip {
			h.Drop()
			continue
		}
		h.Cell(kind, text, ln)
	}
}

// Continue keeps ln as a continuation line of the cell above it (the
// nearest maxCont of them).
func (h *History) Continue(ln Line) {
	if len(h.cont) == maxCont {
		copy(h.cont, h.cont[1:])
		h.cont = h.cont[:maxCont-1]
	}
	h.cont = append(h.cont, ln)
}

// Drop forgets the continuation lines kept so far: they belonged to a line
// that is no cell of the turn (a note, the queue).
func (h *History) Drop() { h.cont = h.cont[:0] }

// Cell records the cell at ln, of kind (CellMessage, CellTool, CellError,
// or the provider's own) with text after its glyph: the newest cell (an
// error's text joined with its continuation lines), the bottom-most reply,
// the newest message's offset. Its continuation lines are then forgotten.
func (h *History) Cell(kind, text string, ln Line) {
	t := h.Turn
	if t.Newest == "" {
		t.Newest, t.NewestText, t.NewestLine = kind, Signal(text), ln.N
		if kind == CellError {
			t.Error, t.ErrorLine = JoinBottomUp(text, h.cont, 400), ln.N
		}
	}
	if t.Reply == "" && (kind == CellMessage || kind == CellTool) {
		t.Reply, t.ReplyLine = kind, ln.N
	}
	if kind == CellMessage && !h.seen {
		h.seen = true
		h.Cells.Message = ln.Start
	}
	h.Drop()
}

// LastMessage is the newest message after the last prompt that a History
// walk over c found (c.Message: its first line's offset), for the fallback
// path: its first line's text after the glyph (cell reads it), then its
// further lines without indent columns until ends reports the start of
// something else (see Lines.Message; clean, when set, rewrites each line).
// Over a dialog (chrome ChromeDialog), with no message or an empty one, it
// is ErrNoAssistantMessage, which names the last prompt when there is one.
func (t *Turn) LastMessage(c *Cells, chrome string, cell func(t string) (kind, text string), indent int, ends func(Line) bool, clean func(Line) Line) (string, error) {
	if chrome == ChromeDialog || c.Message < 0 {
		if t.LastUserLine != 0 {
			return "", fmt.Errorf("%w after the last prompt (%q)", ErrNoAssistantMessage, t.LastUser)
		}
		return "", ErrNoAssistantMessage
	}
	first, _ := c.LineAt(c.Message)
	if clean != nil {
		first = clean(first)
	}
	_, text := cell(first.T)
	if msg := c.Lines.Message(c.Message, text, indent, ends, clean); msg != "" {
		return msg, nil
	}
	return "", fmt.Errorf("%w: the last message is empty", ErrNoAssistantMessage)
}

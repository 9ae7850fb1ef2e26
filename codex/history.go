package codex

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// The history pass: the cells above the bottom pane, read upwards down to
// the last user message. Cells start at (about) column 0 with a glyph — "•"
// messages and tool cells, "■" errors, "› " user messages — and their
// further lines are indented. Codex's own busy and menu UI sits among them
// at the bottom; only the last lines (window) describe the present.

// window is how many non-blank lines at the bottom of the screen count as
// "the last lines": active-work UI and menus further up have scrolled away
// and no longer describe the present.
const window = 20

// sighting records where a legacy text pattern (Error:, Approve … [y/n])
// was seen.
type sighting struct {
	seen   bool // anywhere in what was read
	recent bool // in the last lines (window)
}

func (s *sighting) mark(inWindow bool) {
	s.seen = true
	s.recent = s.recent || inWindow
}

// history is what the history pass found between the bottom pane and the
// last user message.
type history struct {
	userFound    bool // the last user message was reached
	lastUser     string
	lastUserLine int
	// after: something follows the last user message on the screen — a
	// line at (about) column 0, or lines set off from it by a blank line.
	// Indented lines right below it may be its own continuation.
	after bool

	// replies: a reply follows the last user message; reply is the
	// bottom-most sign of it ("message", "tool", "label", "worked_for").
	replies   bool
	reply     string
	replyLine int

	// active: Codex's active-work UI in the window with no error below it
	// (or the bottom pane's busy footer).
	active     bool
	activeText string
	activeLine int

	// menu: an approval/choice menu at the bottom (UI, never quoted);
	// menuStart is the offset of its topmost line. waiting is the menu or
	// legacy question line reported in the signals.
	menu        bool
	menuStart   int
	waiting     string
	waitingLine int

	errCell     bool // a ■ error with nothing newer below it
	errText     string
	errLine     int
	interrupted bool // "■ Conversation interrupted" follows the last user message

	legacyWait sighting // a legacy [y/n] question
	legacyErr  sighting // a legacy Error:/panic: line

	// message is the offset of the bottom-most assistant message header
	// (-1 if none; only looked for when extracting), legacy when it is an
	// "assistant: …" label.
	message       int
	messageLegacy bool

	// Busy or menu UI found on indented lines counts only once the cell it
	// belongs to is known: the continuation of the user's own message (a
	// prompt that quotes "Would you like to …") is not Codex's UI.
	pending pendingUI
}

type pendingUI struct {
	active, menu         bool
	activeText, menuText string
	activeLine, menuLine int
	menuStart            int // offset of the menu's topmost line
}

// read walks the history upwards from s down to the last user message.
// When handed, the first line read is the one the bottom pass stopped at
// (the bottom-most line that is not part of the bottom pane). busy says the
// bottom pane showed a busy footer. With extract set it also finds the last
// assistant message's header (which needs tool cells told apart from
// messages).
func (h *history) read(s *scanner, handed, extract, busy bool, end int) {
	h.message = -1
	h.menuStart = end
	h.active = busy

	hasTree := false // the cell being read upwards has a "└" line
	read := false    // a line was read before this one
	for {
		t, indent, start, gap, ok := s.prev()
		if !ok {
			break
		}
		// bottom: nothing but the bottom pane is below this line.
		l := histLine{t: t, indent: indent, start: start, n: s.ls.N(), bottom: handed, inWindow: s.nonBlank <= window}
		handed = false
		if read && gap {
			h.after = true
		}
		read = true

		if kind, text := promptLine(t); kind != notPrompt {
			if h.promptAt(l, kind, text) {
				break
			}
			continue
		}
		if indent <= 1 {
			// A cell starts here: settle the UI found below it.
			if isLegacyUser(t, indent) {
				h.settle(false)
				h.user(t, l.n)
				break
			}
			h.settle(true)
			h.after = true
		}
		if h.ownUI(l) {
			continue
		}
		if t[0] == 0xE2 && h.glyphLine(s, l, extract, &hasTree) {
			continue
		}
		hasTree = h.otherLine(l, extract, hasTree)
	}
	if !h.userFound {
		h.settle(true)
	}
}

// histLine is a line of the history as read upwards: its text, indent,
// offset and number, whether it is among the last lines (inWindow), and
// whether only the bottom pane is below it.
type histLine struct {
	t                string
	indent, start, n int
	inWindow, bottom bool
}

// promptAt reads a prompt line (a menu's cursor, or a user message); it
// reports whether the reading ends there (the last user message).
func (h *history) promptAt(l histLine, kind int, text string) (stop bool) {
	if kind == chevronPrompt && isMenuItem(text) {
		// "› 1. Yes, proceed (y)": the cursor of a menu.
		h.settle(true)
		h.after = true
		if l.inWindow && !h.replies {
			h.setWaiting(l.t, l.n)
			h.menu = true
			h.menuStart = min(h.menuStart, l.start)
		}
		return false
	}
	if kind == chevronPrompt && text != "" && l.indent <= 1 {
		h.settle(false)
		h.user(l.t, l.n)
		return true
	}
	h.settle(true)
	h.after = true
	return false
}

// ownUI reads Codex's own UI in the last lines (work going on, a menu's
// hint); it reports whether the line is done with ("• Exploring" starts
// a tool cell too, and is read on as one).
func (h *history) ownUI(l histLine) (done bool) {
	t, n := l.t, l.n
	switch {
	case l.inWindow && activeWork(t, l.indent):
		if l.indent > 1 {
			if !h.pending.active {
				h.pending.active = true
				h.pending.activeText, h.pending.activeLine = screen.Signal(t), n
			}
			return true
		}
		if !h.errCell && !h.active {
			h.setActive(t, n)
		}
		return !startsCell(t)
	case l.inWindow && l.indent <= 2 && menuHint(t):
		if l.indent > 1 && !l.bottom {
			if !h.pending.menu {
				h.pending.menu = true
				h.pending.menuText, h.pending.menuLine = screen.Signal(t), n
			}
			h.pending.menuStart = l.start // the menu's topmost line so far
		} else if !h.replies && !h.active {
			h.setWaiting(t, n)
			h.menu = true
			h.menuStart = min(h.menuStart, l.start)
		}
		return true
	}
	return false
}

// glyphLine reads a line led by a glyph (■ • └ ─): cells and their parts.
// It reports whether the line is done with; hasTree says whether the cell
// read upwards has a "└" line.
func (h *history) glyphLine(s *scanner, l histLine, extract bool, hasTree *bool) (done bool) {
	t, indent, n := l.t, l.indent, l.n
	if isErr, interrupted := errorCell(t, indent); isErr || interrupted {
		if interrupted {
			h.interrupted = true
		} else if !h.replies && !h.active && !h.errCell {
			h.errCell = true
			h.setError(t, n)
		}
		*hasTree = false
		return true
	}
	if indent >= 2 && strings.HasPrefix(t, treeElbow) {
		*hasTree = *hasTree || !isTip(t)
		return true
	}
	text, ok := bulletText(t, indent)
	if !ok {
		return false
	}
	// The status indicator also starts with "•"; it is not a reply.
	if !statusIndicator(t) {
		verb, _, _ := strings.Cut(text, " ")
		tool := toolHeader(text, *hasTree, s.dirty && boldWord(s.raw, verb))
		kind := "message"
		if tool {
			kind = "tool"
		}
		h.setReply(kind, n)
		if extract && !tool && h.message < 0 {
			h.message = l.start
		}
	}
	*hasTree = false
	return true
}

// otherLine reads any other line: "Worked for", and the legacy
// interface's label, waiting and error lines. It returns hasTree as it
// stands after the line.
func (h *history) otherLine(l histLine, extract, hasTree bool) bool {
	t, indent, n := l.t, l.indent, l.n
	if isWorkedFor(t) {
		h.setReply("worked_for", n)
		return false
	}
	if indent > 1 {
		return hasTree // inside a cell: nothing else starts there
	}
	if _, ok := isLegacyLabel(t, indent); ok {
		h.setReply("label", n)
		if extract && h.message < 0 {
			h.message = l.start
			h.messageLegacy = true
		}
		return false
	}
	if legacyWaiting(t) {
		h.legacyWait.mark(l.inWindow)
		h.setWaiting(t, n)
	}
	if legacyError(t, indent) {
		h.legacyErr.mark(l.inWindow)
		if h.errLine == 0 {
			h.setError(t, n)
		}
	}
	return false
}

// settle decides the pending UI once the cell above it is known: it counts
// unless that cell is the last user message.
func (h *history) settle(count bool) {
	p := h.pending
	h.pending = pendingUI{}
	if !count {
		return
	}
	if p.active && !h.active && !h.errCell {
		h.active = true
		h.activeText, h.activeLine = p.activeText, p.activeLine
	}
	if p.menu && !h.replies && !h.active {
		h.menu = true
		h.setWaiting(p.menuText, p.menuLine)
		h.menuStart = min(h.menuStart, p.menuStart)
	}
}

// legacyCounts applies the anchor's rule to the legacy text patterns
// (Error:, Approve … [y/n]): they count only when no assistant reply follows
// the last user message — otherwise the assistant is quoting them — and,
// when no user message is on the screen, only in the last lines.
func (h *history) legacyCounts(s sighting) bool {
	if h.replies {
		return false
	}
	if h.userFound {
		return s.seen
	}
	return s.recent
}

// startsCell reports whether t begins with a cell glyph at column 0.
func startsCell(t string) bool {
	return strings.HasPrefix(t, bullet) || strings.HasPrefix(t, hollow)
}

func (h *history) user(t string, n int) {
	h.userFound = true
	h.lastUser, h.lastUserLine = screen.Signal(t), n
}

func (h *history) setReply(kind string, n int) {
	if !h.replies {
		h.replies = true
		h.reply, h.replyLine = kind, n
	}
}

func (h *history) setActive(t string, n int) {
	h.active = true
	h.activeText, h.activeLine = screen.Signal(t), n
}

func (h *history) setWaiting(t string, n int) {
	if h.waitingLine == 0 {
		h.waiting, h.waitingLine = screen.Signal(t), n
	}
}

func (h *history) setError(t string, n int) {
	h.errText, h.errLine = screen.Signal(t), n
}

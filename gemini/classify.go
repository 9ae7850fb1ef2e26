// Package gemini reads the screen of Google's Gemini CLI (0.61.0), as
// captured from a tmux pane, into a terminal status (idle, processing,
// completed, waiting_user_answer, error), and extracts the last assistant
// message for the fallback path.
//
// Gemini CLI draws, from the bottom up: a footer (workspace, sandbox,
// model), the composer ("*" in YOLO mode or ">" then the placeholder or a
// draft), the approval-mode line ("YOLO Ctrl+Y", "Shift+Tab to accept
// edits"), a rule ("───"), the status line ("⠼ Thinking... (esc to cancel,
// 4s)" while a turn runs, "? for shortcuts"), and above it the history:
// user prompts (" > text"), assistant messages ("✦ text"),
// tool calls in rounded boxes ("│ ⊷  Shell …"), errors ("✕ [API Error:
// …]") and notes ("ℹ Request cancelled."). A confirmation replaces the
// composer with a rounded box ending in numbered options ("● 1. Allow
// once"). The pane title is a second input: "◇  Ready (work)", "✦  Working…
// (work)", "✋  Action Required (work)".
//
// The composer and each prompt sit in a frame the terminal decides on: two
// half-block rules ("▄▄▄" above, "▀▀▀" below) when COLORTERM says
// truecolor, a shaded background (blank lines in a capture) without it,
// "───" rules with NO_COLOR. The classifier reads none of it: the composer
// is the line under the rule and mode line, a prompt is ">" one column in
// (at column 0 with NO_COLOR).
//
// The classifier reads a capture in passes over its bottom — the chrome
// (footer, composer or a dialog), the status line, then the history up to
// the last user prompt — and decides. Only positive signs make a screen
// busy (the status line's "esc to cancel", a queued prompt, the Working
// title); text it does not know is neutral. The cost follows what happened
// since the last prompt, not the length of the scrollback.
package gemini

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason. Each names the signal
// that decided the status.
const (
	ReasonDialog       = "a confirmation waits for a choice (a box with numbered options at the bottom)"
	ReasonTitleAction  = "the pane title says Action Required"
	ReasonBusy         = "the status line offers 'esc to cancel': a turn is running"
	ReasonTitleWorking = "the pane title says Working"
	ReasonQueued       = "a prompt is queued: it runs once the CLI is ready"
	ReasonInitializing = "the CLI is initialising with a prompt queued: the note is the newest line"
)

// Title signals, reported in Signals.Title.
const (
	TitleNone    = "none"            // no title given
	TitleReady   = "ready"           // "◇  Ready (work)"
	TitleWorking = "working"         // "✦  Working… (work)", or a braille spinner
	TitleAction  = "action_required" // "✋  Action Required (work)"
	TitleOther   = "other"           // anything else
)

// Signals are what the classifier found on a screen: the debug snapshot
// behind a Classification. Line numbers count from the end of the capture
// (1 = last line); 0 means not found. Texts are cleaned of escapes.
type Signals struct {
	// Title is the pane-title signal.
	Title string `json:"title"`
	// LinesScanned is how many lines were looked at, from the end.
	LinesScanned int `json:"lines_scanned"`

	// ChromeSignals: the composer, the dialog's highlighted option (at
	// DialogLine) or neither at the bottom; Busy is the status line that
	// offers to cancel a running turn.
	screen.ChromeSignals
	DialogLine int `json:"dialog_line"`
	// Queued: prompts wait in the queue (the CLI is still initialising or
	// busy).
	Queued     bool `json:"queued,omitempty"`
	QueuedLine int  `json:"queued_line"`

	// Turn: the last prompt, the newest cell after it (notes such as "ℹ
	// Request cancelled." aside), the bottom-most reply, an error.
	screen.Turn
	// Cancelled: "ℹ Request cancelled." follows the last prompt.
	Cancelled bool `json:"cancelled,omitempty"`
	// Initializing: "ℹ Initializing... Prompts will be queued." is the
	// newest line of the history: the queued prompt has left the queue but
	// is not drawn yet.
	Initializing bool `json:"initializing,omitempty"`
}

// reading is one reading of a capture: the chrome, then the history.
type reading struct {
	sig  Signals
	kind string // chrome kind
	screen.Cells
}

// read runs the chrome and history passes over capture.
func read(capture string) *reading {
	r := &reading{}
	r.Read(capture, r.chrome, r.history)
	r.sig.Chrome = r.kind
	r.sig.LinesScanned = r.N()
	return r
}

// Decide turns the signals and the title (Ready, Working or Action
// Required, and counts) into a status. The order is the precedence: a
// dialog, then positive signs of work, then an error, then the composer.
func (r *reading) Decide(title string) (handoff.Status, string) {
	r.sig.Title = titleSignal(title)
	if st, reason, ok := screen.Blocked(r.Capture(), r.NonBlank, r.kind, ReasonDialog); ok {
		return st, reason
	}
	s := &r.sig
	switch {
	case s.Title == TitleAction:
		return handoff.StatusWaitingUserAnswer, ReasonTitleAction
	case s.Busy != "":
		return handoff.StatusProcessing, ReasonBusy
	case s.Title == TitleWorking:
		return handoff.StatusProcessing, ReasonTitleWorking
	case s.Queued:
		return handoff.StatusProcessing, ReasonQueued
	case s.Initializing:
		return handoff.StatusProcessing, ReasonInitializing
	}
	return s.Settled(r.kind)
}

// How far up from the bottom the passes look for the chrome's parts.
const (
	footerLines   = 8  // footer lines under the composer (it wraps in narrow panes)
	composerLines = 30 // a draft of many lines
	modeLines     = 3  // the approval-mode line(s) above the composer
	dialogLines   = 60 // a confirmation box with a long command in it
)

// chrome reads the bottom of the screen: the footer, the composer, the
// mode line and the rule above them; or, without a composer, a
// confirmation box. It returns the lines it read that turned out not to be
// chrome, newest first, for the history pass, and whether the bottom is a
// dialog.
//
// The composer is found by what it says and where it is: a line one column
// in that starts with "*", ">" or "!", under a rule ("───") with at most
// the mode line(s) between. Its frame is decoration a terminal may not
// draw: half-block rules with COLORTERM set, a shaded background without
// it, "───" rules with NO_COLOR; it is skipped wherever it is drawn.
func (r *reading) chrome() ([]screen.Line, bool) {
	r.kind = screen.ChromeNone
	var seen []screen.Line // non-blank lines from the bottom, decoration aside
	for {
		ln, ok := r.Text()
		if !ok {
			return seen, false
		}
		if decoration(ln) || ruleLine(ln) {
			continue // a frame, or the rule under a composer framed with NO_COLOR
		}
		seen = append(seen, ln)
		i := len(seen) - 1
		switch {
		case i == 0 && boxBottom(ln.T):
			// A box at the very bottom: a confirmation, or (say) a tool's
			// box with the composer gone; then the history reads it again.
			at := r.Mark()
			if r.dialog() {
				return nil, true
			}
			r.Reset(at)
			return seen, false
		case composerLine(ln):
			if !r.underRule() {
				// No rule above it: a prompt in the history, and no
				// composer under it.
				return seen, false
			}
			r.kind = screen.ChromeComposer
			r.sig.Composer = screen.Signal(strings.TrimLeft(ln.T[1:], " "))
			r.sig.ComposerLine = ln.N
			return nil, false
		case ln.Indent == 0 || busyLine(ln) || i >= footerLines+composerLines:
			// A cell or the status line: the history reaches the bottom.
			return seen, false
		}
	}
}

// underRule reports whether a rule ("───") sits right above the composer
// line just read, with at most the mode line(s) (one column in) and the
// composer's own frame between; or, should a terminal not draw that rule
// either, the status line ("? for shortcuts", the busy line). When it
// does, the walk goes on above the topmost such rule (from the status
// line, which the history reads); when not, it is back where it was.
func (r *reading) underRule() bool {
	at := r.Mark()
	found := false
	var above screen.WalkMark // the walk just above the topmost rule
	for n := 0; n < modeLines+2; {
		prev := r.Mark()
		ln, ok := r.Up()
		if !ok {
			break
		}
		if !found && (busyLine(ln) || strings.HasSuffix(ln.T, shortcutsHint)) {
			found, above = true, prev
			break
		}
		if ln.T == "" {
			continue
		}
		n++
		if halfRule(ln.T, upperHalf) || halfRule(ln.T, lowerHalf) {
			continue
		}
		if ruleLine(ln) {
			found, above = true, r.Mark()
			continue
		}
		if ln.Indent != 1 || busyLine(ln) || composerLine(ln) {
			break // not a mode line: the status line or the history
		}
	}
	if !found {
		r.Reset(at)
		return false
	}
	r.Reset(above)
	return true
}

// dialog reads a confirmation box upwards from its bottom border: it is a
// dialog when a numbered option inside it is highlighted ("● 1. Allow
// once").
func (r *reading) dialog() bool {
	for range dialogLines {
		ln, ok := r.Up()
		if !ok {
			break
		}
		if ln.T == "" {
			continue // a blank line counts towards dialogLines
		}
		if strings.HasPrefix(ln.T, boxTop) && ln.Indent == 0 {
			break
		}
		if promptLine(ln) {
			break // a box under a prompt is no dialog; one above it is history
		}
		if opt, ok := highlightedOption(ln.T); ok {
			r.kind = screen.ChromeDialog
			r.sig.Dialog, r.sig.DialogLine = screen.Signal(opt), ln.N
		}
	}
	return r.kind == screen.ChromeDialog
}

// history walks up from the chrome to the last user prompt: first the
// lines the chrome pass read but did not take (newest first), then on.
// The status line and a queued prompt are read at its start; then the
// newest cell, the bottom-most reply, an error. A prompt is " > text", one
// column in (its frame, when drawn, is decoration).
func (r *reading) history(above []screen.Line) {
	status := true // still in the status area under the history
	h := screen.History{Cells: &r.Cells, Above: above, Turn: &r.sig.Turn}
	for {
		ln, ok := h.Next()
		if !ok {
			return
		}
		if decoration(ln) || ruleLine(ln) {
			continue
		}
		if promptLine(ln) {
			r.sig.LastUser, r.sig.LastUserLine = screen.Signal(strings.TrimLeft(ln.T[1:], " ")), ln.N
			return
		}
		if status {
			// Under the history: the status line, a queue of prompts.
			if busyLine(ln) {
				r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
				continue
			}
			if strings.HasPrefix(ln.T, queuedHeader) {
				r.sig.Queued, r.sig.QueuedLine = true, ln.N
				h.Drop() // the queued prompts' text
				continue
			}
		}
		if ln.Indent > 0 {
			h.Continue(ln)
			continue
		}
		status = false
		kind, text := cell(ln.T)
		switch kind {
		case cellPart: // inside a tool's box
			continue
		case cellNote: // "ℹ Request cancelled."
			if strings.HasPrefix(text, "Request cancelled") {
				r.sig.Cancelled = true
			}
			if strings.HasPrefix(text, "Initializing") && r.sig.Newest == "" && !r.sig.Cancelled {
				r.sig.Initializing = true
			}
			h.Drop()
			continue
		}
		h.Cell(kind, text, ln)
	}
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

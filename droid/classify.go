// Package droid reads the screen of Factory's droid
// (@factory/cli-linux-x64 0.225.2), as captured from a tmux pane, into a
// terminal status (idle, processing, completed, waiting_user_answer,
// error), and extracts the last assistant message for the fallback path.
//
// droid draws inline. From the bottom up: the footer ("? for help", after
// a turn "[⏱ 6s] ? for help", "IDE ◌" at the right), the composer in a
// rounded box ("│ > text │"; a placeholder "Try …" on a fresh start,
// "Enter to steer · Ctrl+Enter to queue" while a turn runs, "│  ! text"
// in bash mode), the mode line above the box ("Auto (Off) · all actions
// require approval", "Bash mode active • Esc to exit", the model at the
// right), the working line while a turn runs (" ⠋ Streaming...  (Press ESC
// to stop)"), and the history: each prompt three columns in (set apart by
// a coloured bar only), messages behind "⛬", tool calls ("   Execute cmd",
// "    ↳ output"), notes and errors behind "●" ("●  BYOK Error: 400 …").
// An approval replaces the composer with a box of choices ("Yes, allow",
// "No, cancel") under "Command to approve · medium risk", with the hint
// "↑↓ navigate   Enter select   Esc cancel" under it. Above the first
// prompt sits the header (the DROID logo, the version, tips, "Skills (…)
// MCPs (0) ✗ AGENTS.md ✗"). The pane title is "⛬ Droid", then "⛬ <the
// session's title>"; it does not change while a turn runs.
//
// Only positive signs make a screen busy (the working line, the steer
// placeholder, a prompt taken and not yet answered); text it does not
// know is neutral. The history is read
// only back to the newest cell, so the cost does not grow with the
// scrollback.
package droid

import (
	"strings"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// CellPrompt is Signals.Cell for a prompt with nothing under it.
const CellPrompt = "prompt"

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonPending    = "the newest cell is a prompt droid took and has not answered: its turn is to come (droid shows a prompt before it starts on it, for many seconds while its session starts)"
	ReasonDialog     = "an approval waits for a choice ('Enter select' under the options)"
	ReasonBusy       = "the working line (a spinner, 'Streaming...', '(Press ESC to stop)') or the steer placeholder shows: a turn is running"
	ReasonError      = "an error ('●  … Error: …') is the newest cell above the composer"
	ReasonNoComposer = "no composer box with the mode line above it at the bottom of the screen"
	ReasonCompleted  = "the composer is ready and the newest cell is a message ('⛬')"
	ReasonIdle       = "the composer is ready and no message follows the last prompt"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	// ChromeSignals: Composer is the composer's first line without its
	// frame and "> " (a draft, a placeholder); Dialog is the approval's
	// first choice.
	screen.ChromeSignals
	// Mode is the mode line above the composer ("Auto (Off) · …").
	Mode string `json:"mode,omitempty"`
	// Steer: the composer's placeholder says a turn runs.
	Steer bool `json:"steer,omitempty"`
	// Cell is the newest cell's kind (screen.CellMessage, CellError,
	// CellOther, CellPrompt; "" when the header or nothing is above the
	// composer) and CellLine where it starts. A prompt is told from a
	// message by its width: droid paints a prompt's lines across the whole
	// pane (blanks with a background colour, kept by capture-pane -J), a
	// message's end where their text does.
	Cell     string `json:"cell,omitempty"`
	CellLine int    `json:"cell_line"`
	Header   bool   `json:"header,omitempty"`
	Error    string `json:"error,omitempty"`
	// Tool: a tool call sits below the newest marked cell.
	Tool bool `json:"tool,omitempty"`
}

// reading is one reading of a capture: the chrome, then the newest cell.
type reading struct {
	sig Signals
	w   screen.Walk
	// cell are the newest cell's lines, bottom up, its marker line last.
	cell []screen.Line
	// inner are the box's lines, bottom up; width is the box's width.
	inner []screen.Line
	width int
}

// Markers of droid's screen.
const (
	boxBottom   = "╰"
	boxTop      = "╭"
	boxSide     = "│"
	dialogHint  = "Enter select"
	steer       = "Enter to steer"
	message     = "⛬"
	note        = "●"
	outputMark  = "↳ "
	errorWord   = "Error"
	unreachable = "Unable to reach"
	headerMCPs  = "MCPs ("
	headerLogo  = "D R O I D"
	approveHead = "Command to approve"
)

// read walks the capture from its last line up: the footer, the box (the
// composer or an approval), the mode line, then the working line and the
// newest cell of the history.
func read(capture string) *reading {
	r := &reading{}
	r.sig.Chrome = screen.ChromeNone
	r.sig.LinesScanned = r.w.Read(capture, r.chrome)
	return r
}

// chrome reads the box and the mode line above it, then the history.
// false: no composer under its mode line (an approval, or no box), and the
// rest of the capture is only counted: the verdict does not need it.
func (r *reading) chrome() bool {
	hint, inner, ok := r.box()
	if !ok {
		return false
	}
	if hint {
		r.sig.Chrome = screen.ChromeDialog
		r.dialog(inner)
		return false
	}
	mode, ok := r.w.Up()
	if !ok || mode.T == "" || strings.HasPrefix(mode.T, boxSide) {
		return false
	}
	r.sig.Mode = screen.Signal(mode.T)
	r.sig.Chrome = screen.ChromeComposer
	r.composer(inner)
	r.history()
	return true
}

// box finds the rounded box near the bottom: its lines between "╰" and
// "╭", bottom up, and whether the approval's hint is under it.
func (r *reading) box() (hint bool, inner []screen.Line, ok bool) {
	seen := 0
	for {
		ln, more := r.w.Text()
		if !more {
			return false, nil, false
		}
		if ln.Indent == 0 && strings.HasPrefix(ln.T, boxBottom) {
			break
		}
		if strings.Contains(ln.T, dialogHint) {
			hint = true
		}
		// The footer is a line or two; a screen without a box near its
		// bottom is not droid's chrome.
		if seen++; seen > 4 {
			return false, nil, false
		}
	}
	for {
		ln, more := r.w.Up()
		if !more {
			return false, nil, false
		}
		if ln.Indent == 0 && strings.HasPrefix(ln.T, boxTop) {
			r.inner, r.width = inner, utf8.RuneCountInString(ln.T)
			return hint, inner, true
		}
		if !strings.HasPrefix(ln.T, boxSide) || len(inner) > 200 {
			return false, nil, false
		}
		inner = append(inner, ln)
	}
}

// unframe is a box line without its sides.
func unframe(t string) string {
	t = strings.TrimPrefix(t, boxSide)
	t = strings.TrimSuffix(strings.TrimRight(t, " "), boxSide)
	return strings.TrimSpace(t)
}

// dialog reads an approval's first choice.
func (r *reading) dialog(inner []screen.Line) {
	for i := len(inner) - 1; i >= 0; i-- {
		if t := unframe(inner[i].T); t != "" {
			r.sig.Dialog = screen.Signal(t)
			return
		}
	}
}

// composer reads the composer's first line: "> text", or "! text" in bash
// mode.
func (r *reading) composer(inner []screen.Line) {
	if len(inner) == 0 {
		return
	}
	top := inner[len(inner)-1]
	t := unframe(top.T)
	t = strings.TrimPrefix(strings.TrimPrefix(t, ">"), " ")
	r.sig.Composer, r.sig.ComposerLine = screen.Signal(t), top.N
	r.sig.Steer = strings.HasPrefix(t, steer)
}

// history reads above the mode line: the working line, then the newest
// cell, up to its marker ("⛬", "●") or the header.
func (r *reading) history() {
	skipCall := false
	for {
		ln, ok := r.w.Text()
		if !ok {
			return
		}
		if len(r.cell) == 0 && r.sig.BusyLine == 0 && ln.Indent <= 2 && workingLine(ln.T) {
			r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
			continue
		}
		if strings.Contains(ln.T, headerMCPs) || strings.Contains(ln.T, headerLogo) {
			r.sig.Header = true
			return
		}
		if ln.Indent == 4 && strings.HasPrefix(ln.T, outputMark) {
			// A tool's output: the tool call and its output sit below
			// the message above them, which is not part of it.
			r.sig.Tool, r.cell, skipCall = true, r.cell[:0], true
			continue
		}
		if skipCall && ln.Indent == 3 {
			skipCall = false // the call itself ("   Execute cmd")
			continue
		}
		skipCall = false
		if len(r.cell) == 0 && ln.Indent == 3 && visibleWidth(r.raw(ln)) >= r.width {
			// A prompt, painted across the whole width, with nothing
			// under it yet: droid has not answered it (it shows a prompt
			// before it starts on it).
			r.sig.Cell, r.sig.CellLine = CellPrompt, ln.N
			return
		}
		r.cell = append(r.cell, ln)
		if ln.Indent != 0 {
			continue
		}
		r.sig.CellLine = ln.N
		switch {
		case strings.HasPrefix(ln.T, message):
			r.sig.Cell = screen.CellMessage
		case strings.HasPrefix(ln.T, note) && (strings.Contains(ln.T, errorWord) || strings.Contains(ln.T, unreachable)):
			r.sig.Cell = screen.CellError
			r.sig.Error = r.errorText()
		default:
			r.sig.Cell = screen.CellOther
		}
		return
	}
}

// errorText is the error's first paragraph, joined: "BYOK Error: 400 …"
// (the tips under it are left out).
func (r *reading) errorText() string {
	top := len(r.cell) - 1
	first := strings.TrimSpace(strings.TrimPrefix(r.cell[top].T, note))
	// The lines right under the marker, with no blank between: r.cell is
	// bottom up, so they are r.cell[top-1], r.cell[top-2], … .
	end := top
	for end > 0 && r.cell[end-1].N == r.cell[end].N-1 {
		end--
	}
	return screen.JoinBottomUp(first, r.cell[end:top], 400)
}

// raw is ln as captured: escapes and trailing blanks kept.
func (r *reading) raw(ln screen.Line) string {
	s := r.w.Capture()[ln.Start:]
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// visibleWidth counts the runes of a raw line that are not part of an
// escape sequence (CSI "ESC [ … final", OSC "ESC ] … BEL or ESC \\").
func visibleWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] != 0x1b {
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			n++
			continue
		}
		i++
		switch {
		case i < len(s) && s[i] == '[':
			for i++; i < len(s) && (s[i] < 0x40 || s[i] > 0x7e); i++ {
			}
			i++
		case i < len(s) && s[i] == ']':
			for i++; i < len(s) && s[i] != 0x07 && s[i] != 0x1b; i++ {
			}
			i++
		default:
			i++
		}
	}
	return n
}

// workingLine reports droid's working line: a braille spinner glyph, then
// a word ending in "..." ("Streaming...", "Executing...", "Thinking...").
func workingLine(t string) bool {
	rest, ok := screen.SpinnerGlyph(t)
	if !ok {
		return false
	}
	word, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return strings.HasSuffix(word, "...") || strings.HasSuffix(word, "…")
}

// Decide turns the reading into a status: the screen only, as droid's
// title does not change while a turn runs.
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Ahead(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, r.sig.BusyLine != 0 || r.sig.Steer, ReasonDialog, ReasonNoComposer, ReasonBusy); ok {
		return st, reason
	}
	if r.sig.Cell == CellPrompt {
		return handoff.StatusProcessing, ReasonPending
	}
	return screen.Settle(r.sig.Cell == screen.CellError, r.sig.Cell == screen.CellMessage, ReasonError, ReasonCompleted, ReasonIdle)
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

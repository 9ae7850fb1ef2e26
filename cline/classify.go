// Package cline reads the screen of Cline's terminal UI (the cline npm
// package, 3.0.65), as captured from a tmux pane, into a terminal status
// (idle, processing, completed, waiting_user_answer, error), and extracts
// the last assistant message for the fallback path.
//
// Cline draws on the alternate screen. From the bottom up: the footer (the
// model, its context and cost, "○ Plan ● Act (Tab)"; the folder;
// "⏵⏵ Auto-approve all enabled (Shift+Tab)" or "Auto-approve all
// disabled"), the composer between two rules ("❯ Ask anything...", "❯ What
// can I do for you?" on a fresh start, a draft, or a folded paste "[a b c…
// Pasted +12 lines]"), the busy line while a turn runs ("⠙ Thinking...
// (esc to cancel)", or the running tool "⠼ run_commands(…)"), and the
// history one column in: each prompt "❯ text", then cells that start with
// "* ": messages, tool calls ("* run_commands(echo hi)" with "⎿ output"
// under them) and errors ("* Error: …", in red). A fresh start shows the
// logo and "What can I do for you?" above the composer instead.
//
// When Cline asks before a tool runs (auto-approve off), a permission
// dialog replaces the composer and its rules ("Cline needs permission",
// "Approve tool call?", the command, "[y] Approve [n] Deny"); a promotion
// shown at the start ("Press Enter to open, any other key to close") is a
// dialog too. Both read as waiting_user_answer. Only positive signs make a
// screen busy (the busy line); text it does not know is neutral. The
// history is read only back to the last prompt, so the cost does not grow
// with the scrollback.
package cline

import (
	"strings"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason, besides those every
// provider with a composer and a history of cells gives (screen.ReasonCompleted,
// screen.ReasonIdle, screen.ReasonIdleNoTurns).
const (
	ReasonDialog     = "a dialog waits for the user ('[y] Approve [n] Deny', or a notice's 'Press Enter to open')"
	ReasonBusy       = "the busy line (a spinner, 'Thinking...' or the running tool) sits above the composer: a turn is running"
	ReasonError      = "an error ('* Error: …') is the newest cell after the last prompt"
	ReasonNoComposer = "no composer between two rules at the bottom of the screen"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	// ChromeSignals: Composer is the composer's first line after "❯ " (a
	// placeholder, a draft or a folded paste); Dialog is the line that
	// made the bottom a dialog.
	screen.ChromeSignals
	// Footer: the footer's mode line ("○ Plan ● Act (Tab)") or its
	// auto-approve line is under the composer.
	Footer bool `json:"footer,omitempty"`
	// Newest is the first line of the newest cell after the last prompt,
	// NewestKind what it is (screen.CellMessage, CellTool, CellError).
	Newest     string `json:"newest,omitempty"`
	NewestKind string `json:"newest_kind,omitempty"`
	NewestLine int    `json:"newest_line"`
	// LastUser is the last prompt, LastUserLine where it is.
	LastUser     string `json:"last_user,omitempty"`
	LastUserLine int    `json:"last_user_line"`
	Error        string `json:"error,omitempty"`
}

// Markers of Cline's screen.
const (
	promptMark   = "❯ "
	cellMark     = "* "
	errorPrefix  = "* Error: "
	approveHint  = "[y] Approve"
	permission   = "Cline needs permission"
	noticeHint   = "Press Enter to open, any other key to close"
	modeLine     = "Act (Tab)"
	approveLine  = "Auto-approve all "
	scrollBar    = "█▀▄▌▐▁▂▃▅▆▇"
	chromeBudget = 16 // non-blank lines the chrome may take at the bottom
)

// reading is one reading of a capture: the chrome, then the history back
// to the last prompt.
type reading struct {
	sig   Signals
	w     screen.Walk
	rules int
	// newest is the newest cell's first line and cont its continuation
	// lines below it, bottom up; message the newest message cell's start.
	newest  screen.Line
	cont    []screen.Line
	message int // byte offset of the newest message cell's line; -1 if none
}

// unbar drops the scroll bar Cline draws in the last column (a block
// element: "█", "▄", "▀" …), which a capture keeps at the end of a line.
func unbar(ln screen.Line) screen.Line {
	r, size := utf8.DecodeLastRuneInString(ln.T)
	if size == 0 || !strings.ContainsRune(scrollBar, r) {
		return ln
	}
	t := strings.TrimRight(ln.T[:len(ln.T)-size], " ")
	if t != "" && len(t) == len(ln.T)-size {
		return ln // text that ends in a block element, not the bar
	}
	ln.T, ln.Text = t, strings.TrimRight(ln.Text[:len(ln.Text)-size], " ")
	if t == "" {
		ln.Text, ln.Indent = "", 0
	}
	return ln
}

// read walks the capture from its last line up: the footer, the lower
// rule, the composer, the upper rule (or a dialog in their place), then
// the history back to the last prompt.
func read(capture string) *reading {
	r := &reading{message: -1}
	r.sig.Chrome = screen.ChromeNone
	r.w.Clean = unbar
	r.sig.LinesScanned = r.w.Read(capture, r.bottom)
	return r
}

// bottom reads the chrome up to its upper rule (or a dialog), then the
// history above a composer. false: no composer, and the rest of the
// capture is only counted (the verdict does not need it).
func (r *reading) bottom() bool {
	for r.sig.Chrome == screen.ChromeNone || r.rules < 2 {
		ln, ok := r.w.Up()
		if !ok {
			return false
		}
		if r.chromeLine(ln) {
			break
		}
	}
	if r.sig.Chrome != screen.ChromeComposer {
		return false
	}
	r.history()
	return true
}

// chromeLine reads one line of the bottom; it reports when the chrome is
// done (a dialog, or the upper rule) or cannot be Cline's.
func (r *reading) chromeLine(ln screen.Line) bool {
	switch {
	case strings.Contains(ln.T, approveHint) || strings.HasPrefix(ln.T, permission) || strings.Contains(ln.T, noticeHint):
		r.sig.Chrome, r.sig.Dialog = screen.ChromeDialog, screen.Signal(ln.T)
		return true
	case screen.IsRule(ln.T, 20):
		r.rules++
		if r.rules == 2 {
			r.sig.Chrome = screen.ChromeComposer
			return true
		}
	case r.rules == 0 && (strings.Contains(ln.T, modeLine) || strings.HasPrefix(ln.T, approveLine) || strings.HasPrefix(ln.T, "⏵⏵ "+approveLine)):
		r.sig.Footer = true
	case r.rules == 1 && strings.HasPrefix(ln.T, promptMark):
		r.sig.Composer, r.sig.ComposerLine = screen.Signal(strings.TrimPrefix(ln.T, promptMark)), ln.N
	}
	return r.rules == 0 && r.w.NonBlank > chromeBudget
}

// history reads above the upper rule: the cells up to the last prompt.
// The newest cell drawn with a spinner in place of its "*" is the busy
// line: a message still streaming, a tool still running, or "Thinking...".
// A completion menu drawn over the history ("╭…╮") is skipped.
func (r *reading) history() {
	var below []screen.Line // non-blank lines under the cell being read, bottom up
	for {
		ln, ok := r.w.Up()
		if !ok {
			return
		}
		if ln.T == "" || boxLine(ln.T) {
			continue
		}
		if ln.Indent <= 1 && strings.HasPrefix(ln.T, promptMark) {
			r.sig.LastUser, r.sig.LastUserLine = screen.Signal(strings.TrimPrefix(ln.T, promptMark)), ln.N
			return
		}
		if _, spin := screen.SpinnerGlyph(ln.T); spin && ln.Indent <= 1 {
			if r.sig.BusyLine == 0 && r.sig.NewestLine == 0 {
				r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
			}
			below = below[:0]
			continue
		}
		if ln.Indent <= 1 && strings.HasPrefix(ln.T, cellMark) {
			kind := cellKind(ln.T)
			if r.sig.NewestLine == 0 && r.sig.BusyLine == 0 {
				r.sig.Newest, r.sig.NewestKind, r.sig.NewestLine = screen.Signal(ln.T), kind, ln.N
				r.newest, r.cont = ln, append([]screen.Line(nil), below...)
			}
			if r.message < 0 && kind == screen.CellMessage {
				r.message = ln.Start
			}
			below = below[:0]
			continue
		}
		below = append(below, ln)
	}
}

// boxLine reports a line of the completion menu's box.
func boxLine(t string) bool {
	return strings.HasPrefix(t, "╭") || strings.HasPrefix(t, "│") || strings.HasPrefix(t, "╰")
}

// cellKind says what a cell that starts with "* " is: an error, a tool call
// ("* run_commands(…)": a name of lower-case letters and underscores, then
// a parenthesis), or a message.
func cellKind(t string) string {
	if strings.HasPrefix(t, errorPrefix) {
		return screen.CellError
	}
	rest := strings.TrimPrefix(t, cellMark)
	name, _, ok := strings.Cut(rest, "(")
	if ok && name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyz_") == "" {
		return screen.CellTool
	}
	return screen.CellMessage
}

// Decide turns the reading into a status: the screen only (Cline's title
// is the last prompt, "> text", and does not change while a turn runs).
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Ahead(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, r.sig.BusyLine != 0, ReasonDialog, ReasonNoComposer, ReasonBusy); ok {
		return st, reason
	}
	failed := r.sig.NewestKind == screen.CellError
	if failed {
		r.sig.Error = screen.JoinBottomUp(strings.TrimPrefix(r.newest.T, cellMark), r.cont, 400)
	}
	idle := screen.ReasonIdle
	if r.sig.LastUserLine == 0 {
		idle = screen.ReasonIdleNoTurns
	}
	return screen.Settle(failed, r.sig.LastUserLine != 0 && r.sig.NewestLine != 0, ReasonError, screen.ReasonCompleted, idle)
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

// Package kimi reads the screen of Kimi Code (@moonshot-ai/kimi-code
// 2.1.0), as captured from a tmux pane, into a terminal status (idle,
// processing, completed, waiting_user_answer, error), and extracts the
// last assistant message for the fallback path.
//
// Kimi Code draws inline. From the bottom up: the footer (the mode, "Never
// Ask" with --auto, the model, the folder, a rotating hint; under it
// "context: 1% (20/125k)"), the composer in a rounded box ("│ > text │";
// in shell mode the box's top says "╭ ! shell mode ─"), the working line
// right above the box while a turn runs ("  🌓 · Tip: …" before the first
// byte, a moon phase turning; "  ⠙ Working…" while it streams), and the
// history: prompts " ✨ text", messages and tool calls " ● text" (a
// message's lines three columns in; a tool " ● Ran a command · $ cmd",
// " ✗ Used Shell (…)" when it failed, its output and notes three columns
// in), a failed request three columns in under its prompt ("   Error:
// [provider.api_error] 400 …"). An approval or the folder-trust question
// replaces the box with a dialog between two rules ("▶ Run this
// command?", "▶ 1. Approve once", "↑/↓ select · 1/2/3/4 choose · ↵
// confirm"). Above the first prompt sits the welcome box ("Welcome to Kimi
// Code!"). The pane's title is never set.
//
// Only positive signs make a screen busy (the working line); text it does
// not know is neutral. The history is read back to the last prompt only,
// so the cost does not grow with the scrollback.
package kimi

import (
	"regexp"
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonDialog     = "a dialog waits for a choice ('↑/↓ select' or 'Enter select' between two rules in the composer's place)"
	ReasonBusy       = "the working line (a moon phase or a braille spinner, right above the composer) shows: a turn is running"
	ReasonError      = "a failed request ('Error: …') is the newest thing after the last prompt"
	ReasonNoComposer = "no composer box over Kimi Code's footer at the bottom of the screen"
	ReasonCompleted  = "the composer is ready and a reply ('●') follows the last prompt"
	ReasonIdle       = screen.ReasonIdle
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	// ChromeSignals: Composer is the composer's first line without its
	// frame and mark ("> ", "! "); Dialog is the dialog's hint line.
	screen.ChromeSignals
	// Shell: the box's top says shell mode.
	Shell bool `json:"shell,omitempty"`
	// Cell is the newest cell after the last prompt (screen.CellMessage,
	// CellTool, CellError; "" when nothing follows it) and CellLine where
	// it starts; PromptLine is the last prompt's line.
	Cell       string `json:"cell,omitempty"`
	CellLine   int    `json:"cell_line"`
	PromptLine int    `json:"prompt_line"`
	Header     bool   `json:"header,omitempty"`
	Error      string `json:"error,omitempty"`
	// Footer: the footer's context line ("context: 1% (20/125k)").
	Footer bool `json:"footer,omitempty"`
}

// Markers of Kimi Code's screen.
const (
	boxBottom  = "╰"
	boxTop     = "╭"
	boxSide    = "│"
	shellTop   = "! shell mode"
	prompt     = "✨ "
	bullet     = "● "
	failed     = "✗ "
	errorWord  = "Error: "
	context    = "context: "
	header     = "Welcome to Kimi Code!"
	persists   = "If this persists"
	rule       = "─"
	selectHint = "select ·"
	enterHint  = "Enter select"
)

// reading is one reading of a capture: the chrome, then the last turn.
type reading struct {
	sig Signals
	w   screen.Walk
	// inner are the box's lines, bottom up.
	inner []screen.Line
	// turn are the last turn's lines below its prompt, bottom up.
	turn []screen.Line
}

// read walks the capture from its last line up: the footer, the box or a
// dialog, the working line, then the history back to the last prompt.
func read(capture string) *reading {
	r := &reading{}
	r.sig.Chrome = screen.ChromeNone
	r.sig.LinesScanned = r.w.Read(capture, r.bottom)
	return r
}

// bottom reads the footer (up to three lines), then the box (the
// composer, and the history above it) or a dialog's lower rule and its
// hint. false: neither.
func (r *reading) bottom() bool {
	seen := 0
	for {
		ln, ok := r.w.Text()
		if !ok {
			return false
		}
		switch {
		case ln.Indent == 1 && strings.HasPrefix(ln.T, boxBottom):
			return r.box()
		case ln.Indent == 1 && strings.HasPrefix(ln.T, rule) && screen.IsRule(ln.T, 20):
			return r.dialog()
		case strings.Contains(ln.T, context):
			r.sig.Footer = true
		}
		if seen++; seen > 3 {
			return false
		}
	}
}

// box reads the composer's lines up to its top, then the history.
func (r *reading) box() bool {
	for {
		ln, ok := r.w.Up()
		if !ok || len(r.inner) > 200 {
			return false
		}
		if ln.Indent == 1 && strings.HasPrefix(ln.T, boxTop) {
			r.sig.Shell = strings.Contains(ln.T, shellTop)
			break
		}
		if ln.Indent != 1 || !strings.HasPrefix(ln.T, boxSide) {
			return false
		}
		r.inner = append(r.inner, ln)
	}
	if len(r.inner) == 0 {
		return false
	}
	top := r.inner[len(r.inner)-1]
	t := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(top.T, boxSide), boxSide))
	t = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(t, ">"), "!"), " ")
	r.sig.Chrome, r.sig.Composer, r.sig.ComposerLine = screen.ChromeComposer, screen.Signal(t), top.N
	r.history()
	return true
}

// dialog reads a dialog between two rules: its hint, up to the upper
// rule.
func (r *reading) dialog() bool {
	for i := 0; i < 200; i++ {
		ln, ok := r.w.Up()
		if !ok {
			return false
		}
		if ln.Indent == 1 && screen.IsRule(ln.T, 20) {
			if r.sig.Dialog == "" {
				return false
			}
			r.sig.Chrome = screen.ChromeDialog
			return true
		}
		if r.sig.Dialog == "" && (strings.Contains(ln.T, selectHint) || strings.Contains(ln.T, enterHint)) {
			r.sig.Dialog = screen.Signal(ln.T)
		}
	}
	return false
}

// history reads above the box: the working line, then the last turn up to
// its prompt (or the welcome box).
func (r *reading) history() {
	for {
		ln, ok := r.w.Text()
		if !ok {
			return
		}
		if len(r.turn) == 0 && r.sig.BusyLine == 0 && ln.Indent == 2 && workingLine(ln.T) {
			r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
			continue
		}
		if ln.Indent == 1 && strings.HasPrefix(ln.T, prompt) {
			r.sig.PromptLine = ln.N
			r.cell()
			return
		}
		if strings.Contains(ln.T, header) {
			r.sig.Header = true
			return
		}
		r.turn = append(r.turn, ln)
	}
}

// cell finds the newest cell of the turn: the last marker line (bottom
// up, the first), or an error under the prompt with nothing after it.
func (r *reading) cell() {
	for i, ln := range r.turn {
		switch {
		case ln.Indent == 1 && strings.HasPrefix(ln.T, bullet):
			r.sig.Cell, r.sig.CellLine = screen.CellMessage, ln.N
			if toolLine(ln.T) {
				r.sig.Cell = screen.CellTool
			}
			return
		case ln.Indent == 1 && strings.HasPrefix(ln.T, failed):
			r.sig.Cell, r.sig.CellLine = screen.CellTool, ln.N
			return
		case ln.Indent == 3 && strings.HasPrefix(ln.T, errorWord) && r.onlyNotesAbove(i):
			r.sig.Cell, r.sig.CellLine = screen.CellError, ln.N
			r.sig.Error = r.errorText(i)
			return
		}
	}
}

// onlyNotesAbove reports that no marker line sits between the turn's
// line i and its prompt: an error under the prompt, not a tool's output.
func (r *reading) onlyNotesAbove(i int) bool {
	for _, ln := range r.turn[i+1:] {
		if ln.Indent == 1 {
			return false
		}
	}
	return true
}

// errorText is the error's line and the lines that continue it (up to
// Kimi Code's "If this persists …" advice), joined.
func (r *reading) errorText(i int) string {
	first := strings.TrimSpace(r.turn[i].T)
	end := i
	for end > 0 && r.turn[end-1].N == r.turn[end].N-1 && r.turn[end-1].Indent == 3 && !strings.HasPrefix(r.turn[end-1].T, persists) {
		end--
	}
	return screen.JoinBottomUp(first, r.turn[end:i], 400)
}

// toolLine reports a tool's cell, as Kimi Code 2.1.0 titles a tool call:
// "Ran a command · $ cmd" ("Running a command" while it runs) for Bash,
// "Used Name (argument)" ("Using", "Truncated") for the others, "· MCP/…"
// after an MCP tool's name.
func toolLine(t string) bool {
	return toolHead.MatchString(strings.TrimPrefix(t, bullet))
}

// toolHead matches a tool cell's title.
var toolHead = regexp.MustCompile(`^(Ran a command|Running a command)( · \$ |$)|^(Used|Using|Truncated) [A-Za-z][\w.-]*( \(| · MCP/|$)`)

// workingLine reports Kimi Code's working line: a moon phase (🌑…🌘) or a
// braille spinner glyph first.
func workingLine(t string) bool {
	if _, ok := screen.SpinnerGlyph(t); ok {
		return true
	}
	for _, r := range t {
		return r >= '\U0001F311' && r <= '\U0001F318'
	}
	return false
}

// Decide turns the reading into a status: the screen only (Kimi Code
// sets no title).
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Ahead(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, r.sig.BusyLine != 0, ReasonDialog, ReasonNoComposer, ReasonBusy); ok {
		return st, reason
	}
	return screen.Settle(r.sig.Cell == screen.CellError, r.sig.Cell != "", ReasonError, ReasonCompleted, ReasonIdle)
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

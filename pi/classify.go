// Package pi reads the screen of pi, the coding agent
// (@mariozechner/pi-coding-agent 0.73.1), as captured from a tmux pane,
// into a terminal status (idle, processing, completed,
// waiting_user_answer, error), and extracts the last assistant message for
// the fallback path.
//
// pi draws inline. From the bottom up: the footer (the folder, then the
// token counts and the model), a full-width rule, the editor (empty, a
// draft, "[paste #1 +12 lines]") or a dialog an extension opened ("→
// Allow", "↑↓ navigate  enter select  escape/ctrl+c cancel"), another
// rule, the working line while a turn runs ("⠴ Working..."), and the
// history, one column in: the prompts (set apart by a background colour
// only), tool calls ("$ sleep 3; echo slept", its output, "Took 3.1s"),
// the messages, "Error: 400 …" for a failed request and "Operation
// aborted" after Esc. Blocks are set apart by two blank lines, paragraphs
// of a message by one. Above the first prompt sits the header ("pi
// v0.73.1", the keys, "Pi can explain its own features …"). The pane title
// is "π - <folder>" and does not change while a turn runs.
//
// pi has no permission dialog of its own: a dialog is what an extension
// asks (ctx.ui.select), and reads as waiting_user_answer. Only positive
// signs make a screen busy (the working line); text it does not know is
// neutral. The history is read only back to the newest block, so the cost
// does not grow with the scrollback.
package pi

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonDialog     = "a dialog waits for a choice ('enter select' under the options)"
	ReasonBusy       = "the working line (a spinner and 'Working...') sits above the editor: a turn is running"
	ReasonError      = "an error ('Error: …') is the newest line above the editor"
	ReasonNoComposer = "no editor between two rules on the screen"
	ReasonCompleted  = "the editor is ready and the newest block is a reply"
	ReasonIdle       = "the editor is ready and only the header is above it: no prompt yet"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	// ChromeSignals: Composer is the editor's first line (a draft); Dialog
	// is the highlighted option.
	screen.ChromeSignals
	// Newest: the newest block; Header: it is the header (no prompt yet).
	screen.Newest
	// Footer: the footer's context line ("0.0%/128k (auto) … model") is
	// under the lower rule.
	Footer  bool   `json:"footer,omitempty"`
	Error   string `json:"error,omitempty"`
	Aborted bool   `json:"aborted,omitempty"`
}

// reading is one reading of a capture: the chrome, then the newest block.
type reading struct {
	sig   Signals
	w     screen.Walk
	block []screen.Line // the newest block, bottom up
}

// Markers of pi's screen.
const (
	headerEnd   = "Pi can explain its own features"
	dialogHint  = "enter select"
	workingText = "Working..."
	errorPrefix = "Error: "
	aborted     = "Operation aborted"
	optionMark  = "→ "
)

// read walks the capture from its last line up: the footer, the lower
// rule, the editor or dialog, the upper rule, the working line, then the
// newest block of the history (up to two blank lines in a row).
func read(capture string) *reading {
	r := &reading{}
	r.sig.Chrome = screen.ChromeNone
	r.w.Init(capture)
	defer func() { r.sig.LinesScanned = r.w.Scanned }()
	rules := 0
	var inner []screen.Line // between the two rules, bottom up
	for {
		ln, ok := r.w.Up()
		if !ok {
			break
		}
		if ln.Indent == 0 && screen.IsRule(ln.T, 20) {
			rules++
			if rules == 2 {
				break
			}
			continue
		}
		if rules == 1 {
			inner = append(inner, ln)
		}
		if rules == 0 && strings.Contains(ln.T, "%/") && strings.Contains(ln.T, "k (") {
			r.sig.Footer = true
		}
		// The footer is a few lines; a screen without rules near its
		// bottom is not pi's chrome.
		if rules == 0 && r.w.NonBlank > 6 {
			break
		}
	}
	if rules < 2 {
		r.w.Rest()
		return r
	}
	r.chrome(inner)
	r.history()
	r.errorBlock()
	return r
}

// errorBlock reads the newest block as an error when it starts with
// "Error: " (a long one wraps over several lines): the block, joined.
func (r *reading) errorBlock() {
	if len(r.block) == 0 || !strings.HasPrefix(r.block[len(r.block)-1].T, errorPrefix) {
		return
	}
	top := r.block[len(r.block)-1]
	r.sig.Error = screen.JoinBottomUp(top.T, r.block[:len(r.block)-1], 400)
}

// chrome reads what sits between the two rules: a dialog (its hint line)
// or the editor.
func (r *reading) chrome(inner []screen.Line) {
	r.sig.Chrome = screen.ChromeComposer
	for _, ln := range inner {
		if strings.Contains(ln.T, dialogHint) {
			r.sig.Chrome = screen.ChromeDialog
		}
		if t, ok := strings.CutPrefix(ln.T, optionMark); ok && r.sig.Dialog == "" {
			r.sig.Dialog = screen.Signal(t)
		}
	}
	if r.sig.Chrome == screen.ChromeComposer {
		for i := len(inner) - 1; i >= 0; i-- {
			if inner[i].T != "" {
				r.sig.Composer, r.sig.ComposerLine = screen.Signal(inner[i].T), inner[i].N
				break
			}
		}
	}
}

// history reads above the upper rule: the working line, then the newest
// block (its lines, bottom up, until two blank lines in a row).
func (r *reading) history() {
	b := r.w.NewestBlock(workingLine, nil, headerLine, &r.sig.Newest)
	r.block = b.Lines
	if b.Working.N != 0 {
		r.sig.Busy, r.sig.BusyLine = screen.Signal(b.Working.T), b.Working.N
	}
	r.sig.Aborted = len(b.Lines) > 0 && b.Lines[0].T == aborted
}

// headerLine reports a line of pi's header: its version, or the end of its
// key hints.
func headerLine(t string) bool {
	return strings.HasPrefix(t, headerEnd) || strings.HasPrefix(t, "pi v")
}

// workingLine reports pi's working line: a braille spinner glyph, then
// "Working...".
func workingLine(t string) bool {
	rest, ok := screen.SpinnerGlyph(t)
	return ok && strings.HasPrefix(strings.TrimSpace(rest), workingText)
}

// Decide turns the reading into a status: the screen only, as pi's title
// does not change while a turn runs.
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Ahead(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, r.sig.BusyLine != 0, ReasonDialog, ReasonNoComposer, ReasonBusy); ok {
		return st, reason
	}
	return screen.Settle(r.sig.Error != "", !r.sig.Header && len(r.block) > 0, ReasonError, ReasonCompleted, ReasonIdle)
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

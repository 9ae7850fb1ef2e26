// Package omp reads the screen of OMP, oh-my-pi's coding agent
// (@oh-my-pi/pi-coding-agent 18.2.3), as captured from a tmux pane, into a
// terminal status (idle, processing, completed, waiting_user_answer,
// error), and extracts the last assistant message for the fallback path.
//
// OMP draws inline. From the bottom up: blank rows it keeps free, the
// editor ("╰─ " before its first line, three blanks before the others; a
// long paste shows as a chip, "╰─ 📄 #1"), the status line right above it
// (" π > ⬢ <model> > <folder> ▶─0.0%──…─128K─", a spinner and the seconds
// in the π's place while a turn runs: " ⠇ 4s > …"), the chips' cards of
// a pending paste ("╭── 📄 #1 ───╮" … "╰ +40 lines ─╯"), the working line
// ("⎋ Working…") while a turn runs, and the history, one column in: the
// prompts, tool calls in boxes ("│ $ sleep 4; echo slept"), the replies,
// an API error between two rules (" ✘ 400 …", "Dismissed when you send
// your next message."). Blocks are set apart by two blank lines. Above
// the first prompt sit the welcome box ("╭─── omp v18.2.3 ───") and a
// tip (" Tip: …"). A tool approval (in the always-ask mode) replaces the
// editor and the status line with a box: "╭─ Allow tool: bash ───╮", "❯
// Approve", "up/down navigate  enter select  esc cancel". The pane title
// is "π > <folder>", "π ⠏ <folder>" while a turn runs (the screen says as
// much); the pane's command is bun.
//
// Only positive signs make a screen busy (the spinner in the status line,
// the working line); text it does not know is neutral. The history is read
// only back to the newest block, so the cost does not grow with the
// scrollback.
package omp

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonDialog     = "a dialog waits for a choice ('enter select' in a box at the bottom)"
	ReasonBusy       = "a spinner in the status line, or the working line: a turn is running"
	ReasonError      = "an error ('✘ …' between two rules) is the newest block"
	ReasonNoComposer = "no editor ('╰─') under a status line at the bottom"
	ReasonCompleted  = "the editor is ready and the newest block is a reply"
	ReasonIdle       = "the editor is ready and only the welcome box and a tip are above it: no prompt yet"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	// ChromeSignals: Composer is the editor's first line (a draft); Dialog
	// is the dialog's title.
	screen.ChromeSignals
	Status string `json:"status,omitempty"` // the status line
	// Chips are the titles of the pending pastes' cards ("📄 #1"), left to
	// right, and Captions their captions ("+40 lines", "3000 chars").
	Chips    []string `json:"chips,omitempty"`
	Captions []string `json:"captions,omitempty"`
	// Newest: the newest block; Header: it is the welcome box or its
	// tip (no prompt).
	screen.Newest
	Error string `json:"error,omitempty"`
}

// reading is one reading of a capture: the chrome, then the newest block.
type reading struct {
	sig    Signals
	w      screen.Walk
	editor []screen.Line // the editor's lines, bottom up (the first line last)
	block  []screen.Line // the newest block, bottom up
}

// Markers of OMP's screen.
const (
	editorMark  = "╰─"
	dialogHint  = "enter select"
	dialogTitle = "╭─ "
	workingText = "Working…"
	workingMark = "⎋ "
	errorMark   = "✘ "
	welcomeTop  = "╭─── omp v"
	tipPrefix   = "Tip: "
	statusMark  = "▶"
	chipMark    = "📄 #"
)

// maxEditor is how many lines the walk takes for the editor and the
// rows below it before it decides there is no editor at the bottom.
const maxEditor = 40

// read walks the capture from its last line up: the blank rows, the editor
// (or a dialog), the status line, the chips' cards, the working line, then
// the newest block of the history (up to two blank lines in a row).
func read(capture string) *reading {
	r := &reading{}
	r.sig.Chrome = screen.ChromeNone
	r.w.Init(capture)
	defer func() { r.sig.LinesScanned = r.w.Scanned }()
	if !r.chrome() {
		r.w.Rest()
		return r
	}
	if r.sig.Chrome == screen.ChromeComposer {
		r.cards()
	}
	r.history()
	r.errorBlock()
	return r
}

// chrome reads the bottom: the editor and the status line above it, or a
// dialog box. false: neither within the last maxEditor lines.
func (r *reading) chrome() bool {
	var seen []screen.Line // bottom up
	for len(seen) < maxEditor {
		ln, ok := r.w.Up()
		if !ok {
			return false
		}
		if ln.T == "" && len(seen) == 0 {
			continue
		}
		seen = append(seen, ln)
		if ln.Indent == 0 && strings.HasPrefix(ln.T, editorMark) && !strings.HasSuffix(ln.T, "╯") {
			status, ok := r.w.Up()
			if !ok || !strings.Contains(status.T, statusMark) {
				return false
			}
			r.sig.Chrome, r.editor = screen.ChromeComposer, seen
			r.sig.Composer = screen.Signal(strings.TrimSpace(strings.TrimPrefix(ln.T, editorMark)))
			r.sig.ComposerLine = ln.N
			r.sig.Status = screen.Signal(status.T)
			if rest, spin := screen.SpinnerGlyph(status.T); spin && strings.Contains(rest, " > ") {
				r.sig.Busy, r.sig.BusyLine = screen.Signal(status.T), status.N
			}
			return true
		}
		if ln.Indent == 0 && strings.HasPrefix(ln.T, dialogTitle) && r.dialogBelow(seen) {
			r.sig.Chrome = screen.ChromeDialog
			r.sig.Dialog = screen.Signal(strings.TrimRight(strings.TrimPrefix(ln.T, dialogTitle), "─╮ "))
			return true
		}
	}
	return false
}

// dialogBelow reports a box whose lines (bottom up, its top last) hold the
// selection hint.
func (r *reading) dialogBelow(box []screen.Line) bool {
	for _, ln := range box {
		if strings.Contains(ln.T, dialogHint) {
			return true
		}
	}
	return false
}

// cards reads the chips' cards above the status line, side by side: a
// box each, its title on its top edge ("╭── 📄 #1 ───╮"), its caption on
// its bottom edge ("╰ +40 lines ─╯"). The walk stops on the
// first line that is neither blank nor a card's row, and puts it back.
func (r *reading) cards() {
	for {
		m, n := r.w.Mark(), r.w.Scanned
		ln, ok := r.w.PrevLine()
		if !ok {
			return
		}
		switch {
		case ln.T == "":
		case strings.HasPrefix(ln.T, "╰ ") && strings.HasSuffix(ln.T, "╯") && r.sig.Captions == nil:
			r.sig.Captions = cardLabels(ln.T, "╯", "╰─ ")
		case strings.HasPrefix(ln.T, "│") && strings.HasSuffix(ln.T, "│") && r.sig.Captions != nil:
		case strings.HasPrefix(ln.T, "╭──") && strings.Contains(ln.T, chipMark) && r.sig.Captions != nil:
			r.sig.Chips = cardLabels(ln.T, "╮", "╭─ ")
		default:
			r.w.Reset(m)
			r.w.Scanned = n
			return
		}
		r.w.Scanned++
	}
}

// cardLabels are the labels in a row of cards side by side (their top or
// bottom edges), left to right: each card's edge up to end, without the
// edge characters cut.
func cardLabels(row, end, cut string) []string {
	var out []string
	for _, c := range strings.Split(row, end) {
		if c = strings.Trim(strings.TrimSpace(c), cut); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// errorBlock reads the newest block as an error when it is one: a rule,
// "✘ <the error>", its details, a rule.
func (r *reading) errorBlock() {
	for i := len(r.block) - 1; i > 0; i-- {
		if screen.IsRule(r.block[i].T, 20) && strings.HasPrefix(r.block[i-1].T, errorMark) {
			r.sig.Error = screen.Signal(strings.TrimPrefix(r.block[i-1].T, errorMark))
			return
		}
	}
}

// history reads above the chrome: the working line, then the newest block
// (its lines, bottom up, until two blank lines in a row or a box's bottom
// edge).
func (r *reading) history() {
	b := r.w.NewestBlock(workingLine, boxBottom, headerLine, &r.sig.Newest)
	r.block = b.Lines
	if b.Working.N != 0 && r.sig.BusyLine == 0 {
		r.sig.Busy, r.sig.BusyLine = screen.Signal(b.Working.T), b.Working.N
	}
}

// headerLine reports a line of OMP's welcome box or the tip under it.
func headerLine(t string) bool {
	return strings.HasPrefix(t, tipPrefix) || strings.HasPrefix(t, welcomeTop)
}

// boxBottom reports a box's bottom edge (a tool call, the welcome box)
// above a message: one blank line parts them, the box is another block.
func boxBottom(ln screen.Line) bool {
	return ln.Indent == 0 && strings.HasPrefix(ln.T, "╰") && strings.HasSuffix(ln.T, "╯")
}

// workingLine reports OMP's working line: "⎋ Working…".
func workingLine(t string) bool {
	rest, ok := strings.CutPrefix(t, workingMark)
	return ok && strings.HasPrefix(rest, workingText)
}

// Decide turns the reading into a status: the screen only (the title's
// spinner says no more than the status line's).
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Ahead(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, r.sig.BusyLine != 0, ReasonDialog, ReasonNoComposer, ReasonBusy); ok {
		return st, reason
	}
	return screen.Settle(r.sig.Error != "", !r.sig.Header && len(r.block) > 0, ReasonError, ReasonCompleted, ReasonIdle)
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

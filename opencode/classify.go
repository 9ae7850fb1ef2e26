// Package opencode reads the screen of OpenCode (1.18.33), as captured from
// a tmux pane, into a terminal status (idle, processing, completed,
// waiting_user_answer, error), and extracts the last assistant message for
// the fallback path.
//
// OpenCode's screen, from the bottom up: a hint line ("⬝⬝⬝■■■  esc
// interrupt" while a turn runs, else the folder and "ctrl+p commands"),
// the composer, a box of "┃" lines closed by "╹▀▀▀" with the agent line
// ("┃  Build · fake-model Fake") in it, and above it the history: each
// prompt in a "┃" box, tool calls and errors in "┃" boxes too (told apart
// only by colour), messages five columns in, and each turn's footer
// ("▣  Build · fake-model · 3.9s"; without the duration while the turn
// runs, and when it ended in an error). A bash permission replaces the
// composer: "△ Permission required", the command, "Allow once   Allow
// always   Reject". A question (the model's question tool, or Kilo Code's
// own "Snapshot is slow") replaces composer and hint line with a "┃" box:
// the question, its numbered options, "↑↓ select  enter submit  esc
// dismiss" at its foot. The pane title is "OpenCode", then "OC | <session
// title>"; it does not change while a turn runs.
//
// Only the hint line makes a screen busy; text it does not know is
// neutral. The history is read up to the newest turn footer, so the cost
// does not grow with the scrollback.
package opencode

import (
	"strings"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonDialog      = "a permission waits for a choice ('△ Permission required', 'Allow once   Allow always   Reject')"
	ReasonQuestion    = "a question waits for an answer ('↑↓ select  enter submit  esc dismiss' in place of the composer)"
	ReasonBusy        = "the hint line under the composer says 'esc interrupt': a turn is running"
	ReasonError       = "the newest turn's footer has no duration and an error box sits above it"
	ReasonCompleted   = "the composer is ready and the newest turn's footer has its duration"
	ReasonIdleNoTurns = "the composer is ready and no turn is on the screen"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int    `json:"lines_scanned"`
	Chrome       string `json:"chrome"`
	ComposerLine int    `json:"composer_line"`
	DialogLine   int    `json:"dialog_line"`
	// Question tells a question's dialog (its footer at DialogLine) from
	// a permission's.
	Question   bool   `json:"question,omitempty"`
	Busy       string `json:"busy,omitempty"`
	Footer     string `json:"footer,omitempty"`
	FooterLine int    `json:"footer_line"`
	FooterDone bool   `json:"footer_done"`
	Error      string `json:"error,omitempty"`
	// StopLine is the line at which the reading stopped by a rule of its
	// own (a box's edge, an older footer, the dialog's title, the chrome
	// pass giving up); 0 when it ran into the top of the capture. Nothing
	// above it is read, so scrollback there changes nothing.
	StopLine int `json:"stop_line"`
}

// How far the chrome pass looks up.
const (
	hintLines   = 4  // non-blank lines under the composer
	dialogLines = 40 // a permission with a long command in it
	boxLines    = 16 // lines of an error box joined into its detail
	maxMessage  = 400
)

type reading struct {
	sig Signals
	w   screen.Walk
	// width is the main column's width: where the composer's rule ends. A
	// wide pane has a sidebar right of it (session title, tokens, cost),
	// cut off every history line.
	width int
	// message holds the lines of the newest message (above the footer),
	// newest first.
	message []screen.Line
}

func read(capture string) *reading {
	r := &reading{}
	r.w.Init(capture)
	if r.chrome() {
		r.history()
	}
	r.sig.LinesScanned = r.w.N()
	return r
}

// Decide turns the reading into a status. OpenCode's title stays the same
// while a turn runs, so only the screen is read.
func (r *reading) Decide(string) (handoff.Status, string) {
	dialog := ReasonDialog
	if r.sig.Question {
		dialog = ReasonQuestion
	}
	if st, reason, ok := screen.Blocked(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, dialog); ok {
		return st, reason
	}
	s := &r.sig
	switch {
	case s.Busy != "":
		return handoff.StatusProcessing, ReasonBusy
	case s.Chrome == screen.ChromeNone:
		return handoff.StatusIdle, screen.ReasonNoComposer
	case s.FooterLine == 0:
		return handoff.StatusIdle, ReasonIdleNoTurns
	case !s.FooterDone && s.Error != "":
		return handoff.StatusError, ReasonError
	}
	return handoff.StatusCompleted, ReasonCompleted
}

// chrome reads the hint line and finds the composer's closing "╹▀▀▀", or a
// permission or a question in its place. It reports whether the history above the
// composer is to be read.
func (r *reading) chrome() bool {
	r.sig.Chrome = screen.ChromeNone
	seen, options := 0, false
	for seen < dialogLines {
		ln, ok := r.w.Text()
		if !ok {
			return false
		}
		seen++
		t := unbox(ln.T)
		switch {
		case strings.HasPrefix(ln.T, "╹▀"):
			r.sig.Chrome, r.sig.ComposerLine = screen.ChromeComposer, ln.N
			r.width = utf8.RuneCountInString(ln.Text)
			r.skipComposer()
			r.w.Clean = r.mainColumn
			return true
		case strings.Contains(t, "esc interrupt") && seen <= hintLines:
			r.sig.Busy = strings.Clone(t)
		case isQuestionFoot(t) && seen <= hintLines:
			r.sig.Chrome, r.sig.DialogLine, r.sig.StopLine = screen.ChromeDialog, ln.N, ln.N
			r.sig.Question = true
			return false
		case strings.HasPrefix(t, "Allow once") && strings.Contains(t, "Reject"):
			options = true
		case options && strings.HasPrefix(t, "△ Permission required"):
			r.sig.Chrome, r.sig.DialogLine, r.sig.StopLine = screen.ChromeDialog, ln.N, ln.N
			return false
		case !options && seen > hintLines:
			r.sig.StopLine = ln.N
			return false
		}
	}
	r.sig.StopLine = r.w.N()
	return false
}

// isQuestionFoot reports the foot of a question's dialog, unboxed: "↑↓
// select  enter submit  esc dismiss". Only its first and last hints are
// read: the one between names what Enter does, which may differ with the
// kind of question (only single-choice ones were captured).
func isQuestionFoot(t string) bool {
	i := strings.Index(t, "↑↓ select")
	return i >= 0 && strings.Contains(t[i:], "esc dismiss")
}

// skipComposer reads the composer's "┃" lines up to the first line that is
// not one.
func (r *reading) skipComposer() {
	for {
		m := r.w.Mark()
		ln, ok := r.w.Up()
		if !ok {
			return
		}
		if !strings.HasPrefix(ln.T, "┃") {
			r.w.Reset(m)
			return
		}
	}
}

// history finds the newest turn footer ("▣  Build · …") and reads what is
// right above it: the message (lines not in a box), or, for a footer
// without a duration, the box that holds the error.
func (r *reading) history() {
	for {
		ln, ok := r.w.Text()
		if !ok {
			return
		}
		if strings.HasPrefix(ln.T, "▣") {
			r.sig.Footer, r.sig.FooterLine = strings.Clone(ln.T), ln.N
			r.sig.FooterDone = hasDuration(ln.T)
			break
		}
	}
	var box []string
	text := false // a non-blank message line was read
	for {
		ln, ok := r.w.Up()
		if !ok {
			break
		}
		if stop := r.block(ln, &box, &text); stop || len(r.message)+len(box) >= maxMessage {
			r.sig.StopLine = ln.N
			break
		}
	}
	if !text {
		r.message = nil
	}
	if !text && len(box) > 0 && !r.boxAbove() {
		// The box is the turn's prompt (a turn just begun, or one
		// interrupted before any reply): no error.
		return
	}
	if !text && len(box) > 0 {
		for i, j := 0, len(box)-1; i < j; i, j = i+1, j-1 {
			box[i], box[j] = box[j], box[i]
		}
		r.sig.Error = strings.Clone(strings.Join(box, " "))
	}
}

// boxAbove reports whether another box (the turn's prompt, a tool) sits
// above the box right over a footer without a duration, before the
// previous turn (its footer or its message) or the top: only then is that
// box an error. Told apart by colour on the screen (the prompt's bar is
// blue, an error's red), which a plain capture lacks. StopLine moves to
// where it decided; 0 when it reached the top undecided.
func (r *reading) boxAbove() bool {
	for {
		ln, ok := r.w.Up()
		if !ok {
			r.sig.StopLine = 0
			return false
		}
		if ln.T == "" || ln.T == "┃" {
			continue
		}
		r.sig.StopLine = ln.N
		return strings.HasPrefix(ln.T, "┃")
	}
}

// mainColumn is a line of the history without the sidebar (the walk's
// Clean once the composer gave the main column's width).
func (r *reading) mainColumn(ln screen.Line) screen.Line {
	if r.width == 0 || len(ln.Text) <= r.width {
		return ln
	}
	n := 0
	for i := range ln.Text {
		if n == r.width {
			ln.Text = screen.TrimRight(ln.Text[:i])
			ln.T, ln.Indent = screen.TrimLeft(ln.Text)
			break
		}
		n++
	}
	return ln
}

// block takes one line of what sits right above the newest footer: message
// lines (in no box) or one box's lines. It reports the line that ends it.
func (r *reading) block(ln screen.Line, box *[]string, text *bool) (stop bool) {
	if strings.HasPrefix(ln.T, "▣") {
		return true
	}
	if strings.HasPrefix(ln.T, "┃") {
		if *text {
			return true
		}
		in := strings.TrimSpace(strings.TrimPrefix(ln.T, "┃"))
		if in == "" {
			// A box's padding, or a blank line of a prompt's paragraphs:
			// boxes are parted by a line without a bar, not by an empty one.
			return false
		}
		if len(*box) < boxLines {
			*box = append(*box, in)
		}
		return false
	}
	if len(*box) > 0 {
		return true
	}
	*text = *text || ln.T != ""
	r.message = append(r.message, ln)
	return false
}

// hasDuration reports a footer that ends in the turn's duration ("▣  Build
// · fake-model · 3.9s", "· 1m 5s").
func hasDuration(t string) bool {
	i := strings.LastIndex(t, "· ")
	if i < 0 {
		return false
	}
	d := strings.TrimSpace(t[i+len("· "):])
	if !strings.HasSuffix(d, "s") || len(d) < 2 {
		return false
	}
	for _, c := range d[:len(d)-1] {
		if !strings.ContainsRune("0123456789.mh ", c) {
			return false
		}
	}
	return true
}

// unbox drops a box's left border ("┃") from a trimmed line.
func unbox(t string) string {
	if rest, ok := strings.CutPrefix(t, "┃"); ok {
		return strings.TrimSpace(rest)
	}
	return t
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

// Package cont reads the screen of Continue's CLI (@continuedev/cli
// 1.5.47, the command cn), as captured from a tmux pane, into a terminal
// status (idle, processing, completed, waiting_user_answer, error), and
// extracts the last assistant message for the fallback path. Its name is
// cont because continue is a Go keyword; the provider is "continue".
//
// Continue draws inline (Ink). From the bottom up: the footer ("  <folder>
// … ◉ Continue CLI", "ctrl+c to exit" in the folder's place after one
// Ctrl+C; a hint line such as "↑/↓ to navigate, Enter to select …" may sit
// over it), the composer in a rounded box ("│ ● text │", "│ $ text │" in
// shell mode; the placeholder "● ▋Ask anything, @ for context, …"), the
// working line right above the box while a turn runs ("⣷⢿⣷  ( 2s • esc to
// interrupt )", "• ctrl+b to background" while a tool runs), and the
// history: cells at column 0, separated by blank lines: the user's
// messages and the assistant's both as "● text" (blue and white: the
// colour alone tells them apart), tool calls as "● Bash(cmd)" ("○" while
// pending or running) with their output two columns in ("  ⎿  Terminal
// output:"), an assistant message that follows another assistant message
// without a bullet, two columns in, and the CLI's own notes at column 0
// ("Error: 400 …" for a failed request). A tool's approval replaces the
// composer's content with a dialog in the same box ("Would you like to
// continue?", "> Continue (tab)"). Above the first message sit the logo
// and " Config: …", " Model: …". The pane's title is never set.
//
// A plain capture cannot tell a user's message from an assistant's by
// their look. Continue draws a bullet only on a message whose role
// differs from the one before, so every turn opens with the user's
// bulleted message and at most one bulleted assistant message follows it
// before a tool call: in a run of bulleted messages that starts after a
// tool call, a note or the logo, the odd ones are the user's. The first
// user message under the logo may come without its bullet, one column in
// (a fresh Continue at load); it counts in the run all the same. The
// history is read back to the start of that run only.
//
// Only positive signs make a screen busy (the working line); text it does
// not know is neutral.
package cont

import (
	"regexp"
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	// ChromeSignals: Composer is the composer's first line without its
	// frame and mark ("● ", "$ "); Dialog is the approval's question.
	screen.ChromeSignals
	// Shell: the composer is in shell mode ("$ " for its mark).
	Shell bool `json:"shell,omitempty"`
	// Footer: Continue's footer ("◉ Continue CLI") under the box.
	Footer bool `json:"footer,omitempty"`
	// Cell is the newest cell (screen.CellMessage, CellTool, CellError,
	// CellPrompt for a user's message; "" when none) and CellLine where it
	// starts.
	Cell     string `json:"cell,omitempty"`
	CellLine int    `json:"cell_line"`
	// Run is how many bulleted messages follow the last tool call, note
	// or the logo; RunKnown that its start was on the screen.
	Run      int  `json:"run"`
	RunKnown bool `json:"run_known,omitempty"`
	// StartLine is where the run's start was seen: the tool call, note
	// or logo line above it (0: the walk reached the capture's top or
	// read no history). Nothing above it changes the reading.
	StartLine int `json:"start_line"`
	// Header: the logo's lines (" Config: …") were reached.
	Header bool   `json:"header,omitempty"`
	Error  string `json:"error,omitempty"`
}

// CellPrompt is a user's message as the newest cell.
const CellPrompt = "prompt"

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonIdle       = screen.ReasonIdle
	ReasonCompleted  = "the composer is ready and an assistant message or a tool call is the newest cell"
	ReasonError      = "a failed request ('Error: …' at column 0) is the newest cell"
	ReasonBusy       = "the working line ('( Ns • esc to interrupt )', right above the composer) shows: a turn is running"
	ReasonDialog     = "a tool waits for approval ('Would you like to continue?' in the composer's box)"
	ReasonNoComposer = "no composer box over Continue's footer ('◉ Continue CLI') at the bottom of the screen"
	ReasonUnanswered = "the user's message is the newest cell (by the count of its run): the turn has not answered yet"
)

// Markers of Continue's screen.
const (
	boxBottom  = "╰"
	boxTop     = "╭"
	boxSide    = "│"
	footerMark = "◉ Continue CLI"
	bullet     = "● "
	pending    = "○ "
	shellMark  = "$ "
	errorWord  = "Error: "
	outputMark = "⎿"
	busyMark   = "esc to interrupt"
	question   = "Would you like to continue?"
	// placeholder is the empty composer's text, after the cursor "▋".
	placeholder = "▋Ask anything"
)

// cell is one cell of the history: its first line (column 0) and the
// lines under it, bottom up.
type cell struct {
	head screen.Line
	body []screen.Line
	kind string
}

// reading is one reading of a capture: the chrome, then the history's
// newest cells.
type reading struct {
	sig Signals
	w   screen.Walk
	// inner are the box's lines, bottom up.
	inner []screen.Line
	// cells are the history's cells, newest first, back to the start of
	// the newest run of bulleted messages.
	cells []cell
}

// read walks the capture from its last line up: the footer, the box, the
// working line, then the history.
func read(capture string) *reading {
	r := &reading{}
	r.sig.Chrome = screen.ChromeNone
	r.w.Init(capture)
	switch {
	case r.bottom() && r.box():
		r.history()
		r.settle()
	default:
		r.w.Rest()
	}
	r.sig.LinesScanned = r.w.Scanned
	return r
}

// up is the next line above that is not blank; false at the top.
func (r *reading) up() (screen.Line, bool) {
	for {
		if ln, ok := r.w.Up(); !ok || ln.T != "" {
			return ln, ok
		}
	}
}

// bottom reads up to the box's lower edge: the footer and what may sit
// between it and the box (a hint line), four lines at most. The box
// counts only over Continue's footer, or with nothing at all under it:
// Continue draws each frame top down, so a capture taken while it draws
// one can hold all of it but the footer (seen at load); what is above
// the box is then the new frame's whole.
func (r *reading) bottom() bool {
	for i := range 4 {
		ln, ok := r.up()
		if !ok {
			return false
		}
		if ln.Indent == 0 && strings.HasPrefix(ln.T, boxBottom) {
			return r.sig.Footer || i == 0
		}
		r.sig.Footer = r.sig.Footer || strings.HasSuffix(ln.T, footerMark)
	}
	return false
}

// box collects the box's lines up to its upper edge, then reads them.
func (r *reading) box() bool {
	for len(r.inner) <= 300 {
		ln, ok := r.w.Up()
		switch {
		case !ok || ln.Indent != 0:
			return false
		case strings.HasPrefix(ln.T, boxTop):
			return len(r.inner) > 0 && r.boxed()
		case !strings.HasPrefix(ln.T, boxSide):
			return false
		}
		r.inner = append(r.inner, ln)
	}
	return false
}

// boxed reads what the box holds: the approval dialog, or the composer
// (its first line, its mark).
func (r *reading) boxed() bool {
	for _, ln := range r.inner {
		if t := unframe(ln.T); t == question {
			r.sig.Chrome, r.sig.Dialog = screen.ChromeDialog, screen.Signal(t)
			return true
		}
	}
	top := r.inner[len(r.inner)-1]
	t := unframe(top.T)
	r.sig.Shell = strings.HasPrefix(t, shellMark)
	t = strings.TrimPrefix(strings.TrimPrefix(t, bullet), shellMark)
	if strings.HasPrefix(t, placeholder) {
		t = ""
	}
	r.sig.Chrome, r.sig.Composer, r.sig.ComposerLine = screen.ChromeComposer, screen.Signal(t), top.N
	return true
}

// unframe is a box line without its sides and the blanks inside them.
func unframe(t string) string {
	t = strings.TrimPrefix(strings.TrimSpace(t), boxSide)
	return strings.TrimSpace(strings.TrimSuffix(t, boxSide))
}

// history reads above the box: the working line, then the cells back to
// the start of the newest run of bulleted messages.
func (r *reading) history() {
	var body []screen.Line
	for {
		ln, ok := r.w.Up()
		if !ok {
			return
		}
		if ln.T == "" {
			if len(body) > 0 {
				body = append(body, ln)
			}
			continue
		}
		if len(r.cells) == 0 && len(body) == 0 && r.sig.BusyLine == 0 && ln.Indent > 0 && strings.Contains(ln.T, busyMark) {
			r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
			continue
		}
		if ln.Indent > 0 {
			if header(ln.T) {
				r.first(body)
				r.sig.Header, r.sig.RunKnown, r.sig.StartLine = true, true, ln.N
				return
			}
			body = append(body, ln)
			continue
		}
		c := cell{head: ln, body: body, kind: kindOf(ln, body)}
		body = nil
		if !r.add(c) {
			return
		}
	}
}

// first reads what lies between the logo's block and the oldest cell
// read (body, bottom up): the block's own paragraph (the warning's text
// under its heading), then, after a blank line, the first user message
// when Continue drew it without its bullet, one column in (seen on a
// fresh Continue at load). That message opens the run, as a bulleted one
// would.
func (r *reading) first(body []screen.Line) {
	i := len(body) - 1
	for i >= 0 && body[i].T != "" {
		i--
	}
	for ; i >= 0; i-- {
		if body[i].T != "" {
			// No body: its paragraphs are the user's, not a streamed answer.
			r.add(cell{head: body[i], kind: screen.CellMessage})
			return
		}
	}
}

// add records a cell; false once the run of bulleted messages has a start.
func (r *reading) add(c cell) bool {
	if len(r.cells) == 0 {
		r.sig.Cell, r.sig.CellLine = c.kind, c.head.N
		if c.kind == screen.CellError {
			r.sig.Error = errorText(c)
		}
	}
	r.cells = append(r.cells, c)
	if c.kind == screen.CellMessage {
		r.sig.Run++
		if streamed(c.body) >= 0 {
			// The user's message and the assistant's answer under it.
			r.sig.Run++
		}
		// A long chat of plain answers is read back so far only: beyond,
		// whose message is the newest is not known (RunKnown false).
		return r.sig.Run < maxRun
	}
	r.sig.RunKnown, r.sig.StartLine = true, c.head.N
	return false
}

// settle reads the run: its odd messages, counted from its start, are the
// user's. Called once the walk is over.
func (r *reading) settle() {
	if r.sig.Cell == screen.CellMessage && r.sig.RunKnown && r.sig.Run%2 == 1 {
		r.sig.Cell = CellPrompt
	}
}

// streamed is where, in a message cell's body (bottom up), a streamed
// answer starts: Continue draws a long answer that streamed in without a
// bullet, one column in, after a blank line under the user's message
// (its wrapped lines one or two columns in); -1 when there is none. The
// message's own lines and paragraphs are two columns in.
func streamed(body []screen.Line) int {
	for i := len(body) - 1; i > 0; i-- {
		if body[i].T == "" && body[i-1].Indent == 1 {
			return i - 1
		}
	}
	return -1
}

// kindOf is a cell's kind by its first line and the lines under it
// (bottom up): a tool call ("○ Name(…)", or "● Name(…)" over its output
// "⎿"), a bulleted message, a failed request or another note of the CLI.
func kindOf(head screen.Line, body []screen.Line) string {
	switch {
	case strings.HasPrefix(head.T, pending):
		return screen.CellTool
	case strings.HasPrefix(head.T, bullet):
		t := strings.TrimPrefix(head.T, bullet)
		if knownTool.MatchString(t) || (anyTool.MatchString(t) && len(body) > 0 && strings.HasPrefix(body[len(body)-1].T, outputMark)) {
			return screen.CellTool
		}
		return screen.CellMessage
	case strings.HasPrefix(head.T, errorWord):
		return screen.CellError
	}
	return cellNote
}

// maxRun is how many bulleted messages the walk reads back at most.
const maxRun = 64

// cellNote is a note of the CLI's own at column 0 (a system message: the
// /help text, a warning): it ends a run as a tool call does.
const cellNote = "note"

// knownTool matches a call of one of Continue 1.5.47's own tools, by the
// names it shows; anyTool any name and its arguments (an MCP tool's),
// taken as a tool when its output follows.
var (
	knownTool = regexp.MustCompile(`^(Bash|Read|Write|Edit|MultiEdit|List|Search|Fetch|Diff|Checklist|Status|Subagent|Skills|Exit|Ask Question|Check Background Job|Upload Artifact|Report Failure)\(`)
	anyTool   = regexp.MustCompile(`^[\w.:-]+\(`)
)

// header reports a line of the logo's block above the first message.
func header(t string) bool {
	return strings.HasPrefix(t, "Config: ") || strings.HasPrefix(t, "Model: ") || strings.Contains(t, "Model Capability Warning") ||
		strings.Contains(t, "╚═") || strings.Contains(t, "██")
}

// errorText is the failed request's line and the lines that continue it,
// joined.
func errorText(c cell) string {
	var cont []screen.Line
	for i := len(c.body) - 1; i >= 0 && c.body[i].T != ""; i-- {
		cont = append(cont, c.body[i])
	}
	// JoinBottomUp wants the continuation bottom up.
	for i, j := 0, len(cont)-1; i < j; i, j = i+1, j-1 {
		cont[i], cont[j] = cont[j], cont[i]
	}
	return screen.JoinBottomUp(strings.TrimSpace(c.head.T), cont, 400)
}

// Decide turns the reading into a status: the screen only (Continue sets
// no title). A dialog is decided before the working line (screen.Ahead):
// the turn's timer runs on above the approval.
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Ahead(r.w.Capture(), r.w.NonBlank, r.sig.Chrome, r.sig.BusyLine != 0, ReasonDialog, ReasonNoComposer, ReasonBusy); ok {
		return st, reason
	}
	if r.sig.Cell == CellPrompt {
		// Continue ends every turn with something under the user's
		// message (an answer, a tool call, an "Error: …" note); a frame
		// without the working line was seen mid-turn under the driver.
		return handoff.StatusProcessing, ReasonUnanswered
	}
	replied := r.sig.Cell == screen.CellMessage || r.sig.Cell == screen.CellTool
	return screen.Settle(r.sig.Cell == screen.CellError, replied, ReasonError, ReasonCompleted, ReasonIdle)
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

// Package claude reads the screen of Anthropic's Claude Code CLI (2.1.330),
// as captured from a tmux pane, into a terminal status (idle, processing,
// completed, waiting_user_answer, error), and extracts the last assistant
// message for the fallback path.
//
// Claude Code draws, from the bottom up: a footer (the permission mode, and
// "esc to interrupt" while a turn runs), the composer ("❯" between two
// rules), and above it the history: user prompts ("❯ text"), assistant
// messages and tool calls ("● …", "⎿ …"), the spinner line of a running
// turn ("✶ Computing… (4s · ↓ 38 tokens)"), the line that ends a turn
// ("✻ Brewed for 7s · done 9:04 AM") and API errors ("● API Error: 500 …").
// Dialogs (a permission prompt, a question, the startup trust dialog)
// replace the composer and end in a key hint ("Esc to cancel").
//
// The classifier reads a capture in three passes over its bottom, each with
// its own type: the chrome (footer, composer or dialog), then the history
// from the composer up to the last user prompt, then the decision. It
// decides "processing" only from positive signs of work (the footer's "esc
// to interrupt", the spinner line, a spinner in the pane title); text it
// does not know is neutral. The cost follows what happened since the last
// prompt, not the length of the scrollback.
package claude

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason. Each names the signal
// that decided the status.
const (
	ReasonDialog     = "a dialog waits for a key (its key hint and highlighted option are at the bottom)"
	ReasonBusyFooter = "the footer offers 'esc to interrupt': a turn is running"
	ReasonSpinner    = "the spinner line of a running turn is the newest line of the history"
	ReasonRetry      = "a failed request waits to be retried: the retry line is the newest line of the history"
	ReasonTitle      = "the pane title shows a spinner"
	ReasonErrorNote  = "a failure note follows the last prompt and the composer asks to resend"
)

// Cell kinds, reported in Signals.Newest and Signals.Reply.
const (
	CellSpinner = "spinner" // "✶ Computing…"
	CellRetry   = "retry"   // "✻ API error · retrying in 1s · attempt 1/2"
	CellDone    = "done"    // "✻ Brewed for 7s"
)

// Signals are what the classifier found on a screen: the debug snapshot
// behind a Classification. Line numbers count from the end of the capture
// (1 = last line); 0 means not found. Texts are cleaned of escapes.
type Signals struct {
	// Title is the pane-title signal: none, spinner, claude or other.
	Title string `json:"title"`
	// LinesScanned is how many lines were looked at, from the end.
	LinesScanned int `json:"lines_scanned"`

	// Chrome is what sits at the bottom: composer, dialog or none.
	Chrome       string `json:"chrome"`
	Composer     string `json:"composer,omitempty"` // the composer's text (a draft or a placeholder)
	ComposerLine int    `json:"composer_line"`
	Footer       string `json:"footer,omitempty"` // the first footer line under the composer
	FooterLine   int    `json:"footer_line"`
	Busy         bool   `json:"busy,omitempty"`   // the footer offers "esc to interrupt"
	Dialog       string `json:"dialog,omitempty"` // the dialog's key hint
	DialogLine   int    `json:"dialog_line"`
	Menu         string `json:"menu,omitempty"` // the dialog's highlighted option
	MenuLine     int    `json:"menu_line"`

	// Turn: the last prompt above the composer, the newest cell after it
	// (the bottom-most line at column 0), the bottom-most reply (done,
	// message or tool), an API error (the whole cell) when it is the newest.
	screen.Turn
	// Interrupted: "⎿ Interrupted · …" follows the last prompt.
	Interrupted bool `json:"interrupted,omitempty"`
}

// reading is one reading of a capture: the chrome, then the history.
type reading struct {
	sig     Signals
	ls      *lines
	chrome  chrome
	history history
	lines   lines
}

// read runs the chrome and history passes over capture.
func read(capture string) *reading {
	sc := &reading{}
	sc.lines.Init(capture)
	sc.ls = &sc.lines
	sc.chrome.read(sc.ls, &sc.sig)
	if sc.chrome.kind != screen.ChromeDialog {
		sc.history.read(sc.ls, sc.chrome.above, &sc.sig)
	}
	sc.sig.LinesScanned = sc.ls.N()
	return sc
}

// Decide turns the signals into a status. The order is the precedence: a
// dialog, then positive signs of work, then an error, then the composer; a
// spinner in the title, should one show, is a sign of work.
func (sc *reading) Decide(title string) (handoff.Status, string) {
	sc.sig.Title = titleSignal(title)
	h := &sc.history
	if st, reason, ok := screen.Blocked(sc.ls.Capture(), sc.chrome.nonBlank+h.nonBlank, sc.chrome.kind, ReasonDialog); ok {
		return st, reason
	}
	switch {
	case sc.sig.Busy:
		return handoff.StatusProcessing, ReasonBusyFooter
	case h.newest == CellSpinner:
		return handoff.StatusProcessing, ReasonSpinner
	case h.newest == CellRetry:
		return handoff.StatusProcessing, ReasonRetry
	case sc.sig.Title == TitleSpinner:
		return handoff.StatusProcessing, ReasonTitle
	case h.newest == "" && h.note != "" && resendPlaceholder(sc.sig.Composer),
		// Before about 2.1.320: no placeholder, the duration line under
		// the note; the note itself says the turn failed.
		h.newest == CellDone && h.cells == 1 && h.note != "" && startsWithAny(h.note, failureNotes[:]):
		sc.sig.Error, sc.sig.ErrorLine = h.note, h.noteLine
		return handoff.StatusError, ReasonErrorNote
	}
	return sc.sig.Settled(sc.chrome.kind)
}

// chromeLines bounds how far up from the bottom the composer's lower rule
// is looked for (footer lines, a slash-command menu), and dialogLines how
// far up a dialog's highlighted option is looked for.
const (
	chromeLines = 12
	dialogLines = 40
)

// chrome is the first pass: the bottom of the screen.
type chrome struct {
	kind     string
	nonBlank int
	// above are the lines read from the bottom that turned out not to be
	// chrome, newest first: the history pass reads them before going on.
	above []line
}

// read looks for the composer from the bottom: footer lines, a rule, the
// composer's lines (the first starts with "❯"), a rule. Without one it
// looks for a dialog: a key hint in the last lines and a highlighted option
// above it.
func (c *chrome) read(ls *lines, sig *Signals) {
	c.kind = screen.ChromeNone
	seen := make([]line, 0, 16) // non-blank lines from the bottom, newest first
	lower := -1                 // index in seen of the composer's lower rule
	panel := false              // the bottom lines are a panel's key hint: read up to its rule
	for len(seen) < dialogLines {
		ln, ok := ls.PrevLine()
		if !ok {
			break
		}
		if ln.T == "" {
			continue
		}
		seen = append(seen, ln)
		c.nonBlank++
		i := len(seen) - 1
		if i < 2 {
			panel = panel || panelHint(seen)
		}
		if isRule(ln.T) {
			if lower < 0 {
				if i < chromeLines {
					lower = i
				}
				continue
			}
			// The upper rule: the line below it must start the composer.
			if i-1 > lower && seen[i-1].Indent == 0 && strings.HasPrefix(seen[i-1].T, chevron) {
				c.setComposer(seen, lower, i, sig)
				return
			}
			lower = i // a rule without a composer below it: try again from here
			continue
		}
		if _, ok := userPrompt(ln); ok {
			// A prompt of the history ("❯ text" with a plain space; the
			// composer's "❯" is followed by a no-break space): no composer
			// lies above it, and a dialog ends below it.
			break
		}
		if lower < 0 && i >= chromeLines && !panel {
			break
		}
		if lower >= 0 && i-lower > chromeLines {
			break // too tall for a composer
		}
	}
	c.findDialog(seen, sig)
	if c.kind == screen.ChromeNone && !c.bareComposer(seen, sig) {
		c.above = seen
	}
}

// bareComposer finds the composer by what it says where its rules are not
// drawn (they are decoration a terminal may leave out): "❯" alone or with
// a no-break space at column 0 among the bottom lines, footer lines below
// it. The lines read above it are handed on to the history pass.
func (c *chrome) bareComposer(seen []line, sig *Signals) bool {
	for i := 0; i < len(seen) && i < chromeLines; i++ {
		ln := seen[i]
		if _, ok := userPrompt(ln); ok {
			return false
		}
		if ln.Indent != 0 || !composerLine(ln.T) {
			continue
		}
		c.kind = screen.ChromeComposer
		sig.Chrome = screen.ChromeComposer
		sig.Composer = screen.Signal(trimLeftOnly(strings.TrimPrefix(ln.T, chevron)))
		sig.ComposerLine = ln.N
		for j := i - 1; j >= 0; j-- {
			if isRule(seen[j].T) {
				continue
			}
			if sig.FooterLine == 0 {
				sig.Footer = screen.Signal(seen[j].T)
				sig.FooterLine = seen[j].N
			}
			if busyFooter(seen[j].T) {
				sig.Busy = true
			}
		}
		c.above = seen[i+1:]
		return true
	}
	return false
}

// setComposer records the composer found between seen[upper] and
// seen[lower], with the footer lines below it.
func (c *chrome) setComposer(seen []line, lower, upper int, sig *Signals) {
	c.kind = screen.ChromeComposer
	sig.Chrome = screen.ChromeComposer
	first := seen[upper-1]
	sig.Composer = screen.Signal(trimLeftOnly(strings.TrimPrefix(first.T, chevron)))
	sig.ComposerLine = first.N
	for i := lower - 1; i >= 0; i-- {
		if sig.FooterLine == 0 {
			sig.Footer = screen.Signal(seen[i].T)
			sig.FooterLine = seen[i].N
		}
		if busyFooter(seen[i].T) {
			sig.Busy = true
		}
	}
	// The lines below the lower rule are footer; the composer sits between
	// the rules. Nothing read so far is history.
	c.above = nil
}

// findDialog looks for a dialog in the lines read from the bottom: a key
// hint among the last three and a highlighted option above it.
func (c *chrome) findDialog(seen []line, sig *Signals) {
	hint := -1
	for i := 0; i < len(seen) && i < 3; i++ {
		if dialogHint(seen[i].T) {
			hint = i
			break
		}
	}
	if hint < 0 {
		sig.Chrome = screen.ChromeNone
		return
	}
	for i := hint + 1; i < len(seen); i++ {
		if _, ok := userPrompt(seen[i]); ok {
			break // the dialog ends below the last prompt
		}
		if menuCursor(seen[i]) {
			c.kind = screen.ChromeDialog
			sig.Chrome = screen.ChromeDialog
			sig.Dialog, sig.DialogLine = screen.Signal(seen[hint].T), seen[hint].N
			sig.Menu, sig.MenuLine = screen.Signal(seen[i].T), seen[i].N
			return
		}
		// A full-width panel without options (auto mode's "can't check
		// actions" notice): its key hint offers Enter and another key,
		// and a rule tops it.
		if isRule(seen[i].T) && panelHint(seen[hint:i]) {
			c.kind = screen.ChromeDialog
			sig.Chrome = screen.ChromeDialog
			sig.Dialog, sig.DialogLine = screen.Signal(seen[hint].T), seen[hint].N
			return
		}
	}
	sig.Chrome = screen.ChromeNone
}

// history is the second pass: from the chrome up to the last user prompt.
type history struct {
	nonBlank int
	newest   string // the kind of the bottom-most column-0 cell
	cells    int    // how many column-0 cells were read
	// message is the offset of the bottom-most assistant message's first
	// line, -1 if none; end is where the chrome starts (or the capture ends).
	message int
	// below is the line just below the one being read (for tool cells,
	// whose "⎿" line follows the bullet).
	below line
	// cont are the continuation lines seen since the last cell, newest
	// first (for the error's full text).
	cont []string
	// note is the bottom-most "⎿ …" note (not a tip, not Interrupted)
	// below every cell.
	note     string
	noteLine int
}

// read walks up from the chrome: first the lines the chrome pass read but
// did not keep, then the rest, down to the last user prompt.
func (h *history) read(ls *lines, above []line, sig *Signals) {
	h.message = -1
	for _, ln := range above {
		if h.take(ln, sig) {
			return
		}
	}
	for {
		ln, ok := ls.PrevLine()
		if !ok {
			return
		}
		if h.take(ln, sig) {
			return
		}
	}
}

// take reads one line of the history (bottom-up) and reports whether it
// was the last user prompt, which ends the pass.
func (h *history) take(ln line, sig *Signals) bool {
	if ln.T == "" {
		return false
	}
	h.nonBlank++
	below := h.below
	h.below = ln
	if text, ok := userPrompt(ln); ok {
		sig.LastUser, sig.LastUserLine = screen.Signal(text), ln.N
		return true
	}
	if ln.Indent > 0 {
		if interruptedLine(ln) {
			sig.Interrupted = true
		}
		// A note under the last prompt, or (before about 2.1.320) between
		// it and the turn's duration line.
		if (h.newest == "" || h.newest == CellDone && h.cells == 1) && h.note == "" {
			if t, ok := noteText(ln); ok {
				h.note, h.noteLine = screen.Signal(t), ln.N
			}
		}
		// A cell's text continues two columns in (the effort hint, tips
		// and notices are not part of it).
		if h.newest == "" && len(h.cont) < 8 && ln.Indent == 2 && !elbowLine(ln) && !noticeLine(ln.T) {
			h.cont = append(h.cont, ln.T)
		}
		return false
	}
	// A rule under every cell is the composer's upper one in a frame
	// caught mid-draw (Claude Code redraws top down: the spinner line,
	// then the rule, the composer and the footer not yet): the cells
	// above it are the history, not the rule.
	if h.newest == "" && isRule(ln.T) {
		return false
	}
	// A cell starts at column 0.
	kind := screen.CellOther
	text, isBullet := bulletText(ln)
	switch {
	case retryLine(ln):
		kind = CellRetry
	case spinnerLine(ln):
		kind = CellSpinner
	case doneLine(ln):
		kind = CellDone
	case isBullet && startsWithAny(text, errorPrefixes[:]):
		kind = screen.CellError
	case isBullet && elbowLine(below) && !interruptedLine(below):
		kind = screen.CellTool
	case isBullet:
		kind = screen.CellMessage
	}
	switch {
	case h.newest == "":
		h.newest = kind
		sig.Newest, sig.NewestText, sig.NewestLine = kind, screen.Signal(ln.T), ln.N
		if kind == screen.CellError {
			sig.Error, sig.ErrorLine = h.errorText(text), ln.N
		}
	case h.newest == CellDone && h.cells == 1 && kind == screen.CellError && failureWording(text):
		// Releases before about 2.1.320 end a failed turn with its
		// duration line too ("● API Error: 500 Internal server error. …",
		// "✻ Sautéed for 5s"): the turn ended on the error.
		h.newest = kind
		sig.Newest, sig.NewestText, sig.NewestLine = kind, screen.Signal(ln.T), ln.N
		sig.Error, sig.ErrorLine = h.errorText(text), ln.N
		sig.Reply, sig.ReplyLine = "", 0
		return false
	}
	h.cells++
	switch kind {
	case CellDone, screen.CellMessage, screen.CellTool:
		if sig.ReplyLine == 0 {
			sig.Reply, sig.ReplyLine = kind, ln.N
		}
	}
	if kind == screen.CellMessage && h.message < 0 {
		h.message = ln.Start
	}
	return false
}

// errorText joins an error cell's first line with its continuation lines.
func (h *history) errorText(first string) string {
	var b strings.Builder
	b.WriteString(first)
	for i := len(h.cont) - 1; i >= 0; i-- {
		b.WriteByte(' ')
		b.WriteString(h.cont[i])
	}
	return strings.Clone(screen.Excerpt(b.String(), 400))
}

// Found is what the reading found and the error text it quotes.
func (sc *reading) Found() (any, string) { return sc.sig, sc.sig.Error }

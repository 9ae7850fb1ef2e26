// Package codex reads the screen of the OpenAI Codex CLI, as captured from a
// tmux pane, into a terminal status (idle, processing, completed,
// waiting_user_answer, error), and extracts the last assistant message for
// the fallback path.
//
// It reads the legacy screens ("You …", "assistant: …", "❯"), v0.104 ("›"
// prompt with "N% context left"), v0.105 ("model effort · N% left · cwd")
// and Codex 0.169 (composer "› Ask Codex to do anything", status line
// "model effort · cwd", "• Working (0s • esc to interrupt)", "Worked for
// 11s", approval menus, red "■" errors). Because a 0.169 screen that streams
// an answer looks idle, the pane title (a braille spinner during a turn) is a
// second input.
//
// The capture is read from its end backwards and only down to the last user
// message, so the cost follows what happened since the last prompt, not the
// length of the scrollback.
package codex

import (
	"strings"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
)

// window is how many non-blank lines at the bottom of the screen count as
// "the last lines": active-work UI and menus further up have scrolled away
// and no longer describe the present.
const window = 20

// chromeLines bounds how far up the composer is looked for: footer, status
// line and a multi-line draft fit in it.
const chromeLines = 16

// The title signals reported in Signals.Title.
const (
	TitleNone           = "none"            // no title given
	TitleSpinner        = "spinner"         // braille spinner: a turn runs
	TitleActionRequired = "action_required" // "[ ! ] Action Required": approval or question
	TitleOther          = "other"           // the cwd's basename: no signal
)

// Reasons reported in handoff.Classification.Reason. Each names the signal
// that decided the status.
const (
	ReasonEmpty          = "empty capture: nothing on the screen"
	ReasonMenu           = "an approval or choice menu waits on the screen"
	ReasonLegacyWaiting  = "an approval question [y/n] follows the last user message"
	ReasonTitleAction    = "the pane title says Action Required"
	ReasonErrorCell      = "a ■ error follows the last user message with no reply after it"
	ReasonLegacyError    = "an error line follows the last user message with no assistant reply"
	ReasonActiveWork     = "Codex's active-work UI is in the last lines of the screen"
	ReasonTitleSpinner   = "the pane title shows the spinner of a running turn"
	ReasonNoPrompt       = "no ready prompt at the bottom of the screen"
	ReasonCompleted      = "the prompt is ready and a reply follows the last user message"
	ReasonIdle           = "the prompt is ready and nothing follows the last user message"
	ReasonIdleNoMessages = "the prompt is ready and no conversation is on the screen"
)

// Signals are what the classifier found on a screen: the debug snapshot
// behind a Classification. Line numbers count from the end of the capture
// (1 = last line); 0 means not found. Excerpts are cleaned of escapes.
type Signals struct {
	// Title is the pane-title signal: none, spinner, action_required or other.
	Title string `json:"title"`
	// LinesScanned is how many lines were looked at, from the end.
	LinesScanned int `json:"lines_scanned"`
	// Prompt is the ready prompt found at the bottom: "composer" (a › line
	// above the footer, placeholder or draft), "bare" (a lone ›, ❯ or
	// codex>), or "" when there is none.
	Prompt     string `json:"prompt"`
	PromptLine int    `json:"prompt_line"`
	// Composer is the text in the composer and whether it is a known
	// placeholder (otherwise an unsent draft).
	Composer            string `json:"composer,omitempty"`
	ComposerPlaceholder bool   `json:"composer_placeholder,omitempty"`
	// Footer is the bottom-most footer or status line.
	Footer     string `json:"footer,omitempty"`
	FooterLine int    `json:"footer_line"`
	// LastUser is the last user message (first line) above the prompt.
	LastUser     string `json:"last_user,omitempty"`
	LastUserLine int    `json:"last_user_line"`
	// Reply is the bottom-most sign of a reply after the last user message:
	// "message" (• text), "tool" (• Ran …), "label" (assistant: …) or
	// "worked_for" (the line that ends a 0.169 turn).
	Reply     string `json:"reply,omitempty"`
	ReplyLine int    `json:"reply_line"`
	// ActiveWork is Codex's own busy UI found in the last lines.
	ActiveWork     string `json:"active_work,omitempty"`
	ActiveWorkLine int    `json:"active_work_line"`
	// Waiting is the approval/choice menu line found.
	Waiting     string `json:"waiting,omitempty"`
	WaitingLine int    `json:"waiting_line"`
	// Error is the error line found after the last user message.
	Error     string `json:"error,omitempty"`
	ErrorLine int    `json:"error_line"`
	// Interrupted: "■ Conversation interrupted" follows the last user message.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Classifier reads Codex screens. The zero value is ready to use; it holds
// no state, so one value may serve many panes concurrently.
type Classifier struct{}

// New returns a Codex classifier.
func New() *Classifier { return &Classifier{} }

var _ handoff.Classifier = Classifier{}

// Classify reads a raw capture (escape sequences allowed) and the pane title
// ("" when unknown) into a status, a reason and the signals behind it.
func (Classifier) Classify(capture, title string) handoff.Classification {
	var sc screen
	sc.read(capture, false)
	sc.sig.Title = titleSignal(title)
	status, reason := sc.decide()
	c := handoff.Classification{Status: status, Reason: reason, Signals: sc.sig}
	if status == handoff.StatusError {
		c.Detail = sc.sig.Error
	}
	return c
}

// LastMessage returns the last assistant message on the screen; see
// ExtractLastMessage.
func (Classifier) LastMessage(capture string) (string, error) {
	return ExtractLastMessage(capture)
}

// screen is one backward reading of a capture.
type screen struct {
	sig Signals

	nonBlank      int     // non-blank lines seen
	replies       bool    // a reply marker after the last user message
	menu          bool    // the bottom shows an approval/choice menu (UI, never quoted)
	legacyWait    [2]bool // a legacy [y/n] question: [0] anywhere scanned, [1] in the window
	errCell       bool    // a ■ error with nothing newer below it
	legacyErr     [2]bool // a legacy Error:/panic: line: [0] anywhere scanned, [1] in the window
	active        bool    // active-work UI in the window with no error below it
	userFound     bool
	promptFound   bool
	promptStart   int // where the bottom UI (prompt, footer, menu) starts in the capture
	message       int // offset of the bottom-most assistant message header, -1 if none
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

// settle decides the pending UI once the cell above it is known: it counts
// unless that cell is the last user message.
func (sc *screen) settle(count bool) {
	p := sc.pending
	sc.pending = pendingUI{}
	if !count {
		return
	}
	if p.active && !sc.active && !sc.errCell {
		sc.active = true
		sc.sig.ActiveWork = p.activeText
		sc.sig.ActiveWorkLine = p.activeLine
	}
	if p.menu && !sc.replies && !sc.active {
		sc.menu = true
		sc.setWaiting(p.menuText, p.menuLine)
		sc.promptStart = min(sc.promptStart, p.menuStart)
	}
}

// read walks the capture backwards down to the last user message, collecting
// signals. With extract set it also finds the last assistant message's
// header (which needs tool cells told apart from messages).
func (sc *screen) read(capture string, extract bool) {
	ls := newLines(capture)
	sc.message = -1
	sc.promptStart = len(capture)

	chromeOnly := true  // every non-blank line below is footer/status/draft
	footerSeen := false // a footer line was seen below
	hasTree := false    // the cell being read upwards has a "└" line
	for {
		raw, start, dirty, ok := ls.prev()
		if !ok {
			break
		}
		l := ls.clean(raw, dirty)
		t, indent := trimLeftSpace(l)
		if t == "" {
			continue
		}
		sc.nonBlank++
		n := ls.n
		inWindow := sc.nonBlank <= window

		if kind, text := promptLine(t); kind != notPrompt {
			if kind == chevronPrompt && isMenuItem(text) {
				// "› 1. Yes, proceed (y)": the cursor of a menu.
				sc.settle(true)
				if inWindow && !sc.replies {
					sc.setWaiting(t, n)
					sc.menu = true
					sc.promptStart = min(sc.promptStart, start)
				}
				chromeOnly = false
				continue
			}
			// The composer: a lone prompt, or a prompt with a placeholder or
			// draft that has the footer below it (or, in older versions, the
			// footer hint on its own line: "› Summarize … ? for shortcuts").
			if !sc.promptFound && chromeOnly && sc.nonBlank <= chromeLines &&
				(text == "" || footerSeen || footer(text, 0) != notFooter) {
				sc.promptFound = true
				sc.promptStart = start
				sc.sig.PromptLine = n
				if text == "" {
					sc.sig.Prompt = "bare"
				} else {
					sc.sig.Prompt = "composer"
					sc.sig.Composer = excerpt(text)
					sc.sig.ComposerPlaceholder = isPlaceholder(text)
				}
				chromeOnly = false
				continue
			}
			if kind == chevronPrompt && text != "" && indent <= 1 {
				sc.settle(false)
				sc.user(t, n)
				break
			}
			sc.settle(true)
			chromeOnly = false
			continue
		}

		// Nothing but footer lines below: this line is in Codex's bottom pane
		// (no history cell, no user message ever sits below the composer).
		bottom := chromeOnly
		if chromeOnly {
			if f := footer(t, indent); f != notFooter && sc.nonBlank <= chromeLines {
				if !footerSeen {
					sc.sig.Footer = excerpt(t)
					sc.sig.FooterLine = n
				}
				footerSeen = true
				sc.promptStart = start
				if f == footerBusy && !sc.active {
					sc.active = true
					sc.sig.ActiveWork = excerpt(t)
					sc.sig.ActiveWorkLine = n
				}
				continue
			}
			if footerSeen && indent >= 2 && sc.nonBlank <= chromeLines {
				continue // a line of a multi-line draft
			}
			chromeOnly = false
		}

		if indent <= 1 {
			// A cell starts here: settle the UI found below it.
			if isLegacyUser(t, indent) {
				sc.settle(false)
				sc.user(t, n)
				break
			}
			sc.settle(true)
		}

		// Codex's own UI, in the last lines only.
		if inWindow && activeWork(t, indent) {
			if indent > 1 {
				if !sc.pending.active {
					sc.pending.active = true
					sc.pending.activeText, sc.pending.activeLine = excerpt(t), n
				}
				continue
			}
			if !sc.errCell && !sc.active {
				sc.active = true
				sc.sig.ActiveWork = excerpt(t)
				sc.sig.ActiveWorkLine = n
			}
			if !startsCell(t) {
				continue
			}
			// "• Exploring" is also a tool cell: go on to count it.
		} else if inWindow && indent <= 2 && menuHint(t) {
			if indent > 1 && !bottom {
				if !sc.pending.menu {
					sc.pending.menu = true
					sc.pending.menuText, sc.pending.menuLine = excerpt(t), n
				}
				sc.pending.menuStart = start // the menu's topmost line so far
			} else if !sc.replies && !sc.active {
				sc.setWaiting(t, n)
				sc.menu = true
				sc.promptStart = min(sc.promptStart, start)
			}
			continue
		}

		if t[0] == 0xE2 {
			// Lines led by a glyph (■ • └ ─): cells and their parts.
			if isErr, interrupted := errorCell(t, indent); isErr || interrupted {
				if interrupted {
					sc.sig.Interrupted = true
				} else if !sc.replies && !sc.active && !sc.errCell {
					sc.errCell = true
					sc.setError(t, n)
				}
				hasTree = false
				continue
			}
			if indent >= 2 && strings.HasPrefix(t, treeElbow) {
				hasTree = hasTree || !isTip(t)
				continue
			}
			if text, ok := bulletText(t, indent); ok {
				// The status indicator also starts with "•"; it is not a reply.
				if !statusIndicator(t) {
					verb, _, _ := strings.Cut(text, " ")
					tool := toolHeader(text, hasTree, dirty && boldWord(raw, verb))
					kind := "message"
					if tool {
						kind = "tool"
					}
					sc.reply(kind, n)
					if extract && !tool && sc.message < 0 {
						sc.message = start
					}
				}
				hasTree = false
				continue
			}
		}
		if isWorkedFor(t) {
			sc.reply("worked_for", n)
			hasTree = false
			continue
		}
		if indent > 1 {
			continue // inside a cell: nothing else starts there
		}
		hasTree = false
		if _, ok := isLegacyLabel(t, indent); ok {
			sc.reply("label", n)
			if extract && sc.message < 0 {
				sc.message = start
				sc.messageLegacy = true
			}
			continue
		}
		if legacyWaiting(t) {
			sc.legacyWait[0] = true
			sc.legacyWait[1] = sc.legacyWait[1] || inWindow
			sc.setWaiting(t, n)
		}
		if legacyError(t, indent) {
			sc.legacyErr[0] = true
			sc.legacyErr[1] = sc.legacyErr[1] || inWindow
			if sc.sig.ErrorLine == 0 {
				sc.setError(t, n)
			}
		}
	}
	if !sc.userFound {
		sc.settle(true)
	}
	sc.sig.LinesScanned = ls.n
}

// startsCell reports whether t begins with a cell glyph at column 0.
func startsCell(t string) bool {
	return strings.HasPrefix(t, bullet) || strings.HasPrefix(t, hollow)
}

func (sc *screen) user(t string, n int) {
	sc.userFound = true
	sc.sig.LastUser = excerpt(t)
	sc.sig.LastUserLine = n
}

func (sc *screen) reply(kind string, n int) {
	if !sc.replies {
		sc.replies = true
		sc.sig.Reply = kind
		sc.sig.ReplyLine = n
	}
}

func (sc *screen) setWaiting(t string, n int) {
	if sc.sig.WaitingLine == 0 {
		sc.sig.Waiting = excerpt(t)
		sc.sig.WaitingLine = n
	}
}

func (sc *screen) setError(t string, n int) {
	sc.sig.Error = excerpt(t)
	sc.sig.ErrorLine = n
}

// decide turns the signals into a status. The order is the precedence:
// a waiting menu, then errors, then active work, then the prompt.
func (sc *screen) decide() (handoff.Status, string) {
	switch {
	case sc.nonBlank == 0:
		return handoff.StatusError, ReasonEmpty
	case sc.menu:
		return handoff.StatusWaitingUserAnswer, ReasonMenu
	case sc.legacyCounts(sc.legacyWait):
		return handoff.StatusWaitingUserAnswer, ReasonLegacyWaiting
	case sc.sig.Title == TitleActionRequired:
		return handoff.StatusWaitingUserAnswer, ReasonTitleAction
	case sc.errCell:
		return handoff.StatusError, ReasonErrorCell
	case sc.legacyCounts(sc.legacyErr) && !sc.active:
		return handoff.StatusError, ReasonLegacyError
	case sc.active:
		return handoff.StatusProcessing, ReasonActiveWork
	case sc.sig.Title == TitleSpinner:
		return handoff.StatusProcessing, ReasonTitleSpinner
	case !sc.promptFound:
		return handoff.StatusProcessing, ReasonNoPrompt
	case sc.replies:
		return handoff.StatusCompleted, ReasonCompleted
	case sc.userFound:
		return handoff.StatusIdle, ReasonIdle
	}
	return handoff.StatusIdle, ReasonIdleNoMessages
}

// legacyCounts applies the anchor's rule to the legacy text patterns
// (Error:, Approve … [y/n]): they count only when no assistant reply follows
// the last user message — otherwise the assistant is quoting them — and,
// when no user message is on the screen, only in the last lines.
func (sc *screen) legacyCounts(found [2]bool) bool {
	if sc.replies {
		return false
	}
	if sc.userFound {
		return found[0]
	}
	return found[1]
}

// excerpt shortens a line for the signals, at a rune boundary.
func excerpt(s string) string {
	const max = 120
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

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
	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

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
	ReasonMenu           = "an approval or choice menu waits on the screen"
	ReasonLegacyWaiting  = "an approval question [y/n] follows the last user message"
	ReasonTitleAction    = "the pane title says Action Required"
	ReasonErrorCell      = "a ■ error follows the last user message with no reply after it"
	ReasonLegacyError    = "an error line follows the last user message with no assistant reply"
	ReasonActiveWork     = "Codex's active-work UI is in the last lines of the screen"
	ReasonTitleSpinner   = "the pane title shows the spinner of a running turn"
	ReasonNoPrompt       = "no ready prompt, and the last user message is the bottom of the screen: just sent"
	ReasonCompletedNoUI  = "no ready prompt but no sign of work either, and a reply follows the last user message"
	ReasonIdleNoUI       = "no ready prompt but no sign of work either, and nothing follows the last user message"
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
	// Unknown is the bottom-most line below the composer that the
	// classifier does not know (a new hint, a warning counter): neutral.
	Unknown     string `json:"unknown,omitempty"`
	UnknownLine int    `json:"unknown_line,omitempty"`
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

// reading is one backward reading of a capture, in two passes over the same
// walk from the last line up: the bottom pass reads Codex's bottom pane
// (footer, status line, composer; bottom.go), the history pass reads the
// cells above it down to the last user message (history.go). decide then
// turns what they found into a status.
type reading struct {
	bottom  bottomPane
	history history
	// nonBlank is how many non-blank lines were read; scanned how many
	// lines in all.
	nonBlank, scanned int
}

// read runs both passes over capture. With extract set the history pass
// also finds the last assistant message's header.
func (r *reading) read(capture string, extract bool) {
	s := scanner{ls: screen.NewLines(capture)}
	handed := r.bottom.read(&s, len(capture))
	r.history.read(&s, handed, extract, r.bottom.busy != "", len(capture))
	r.nonBlank, r.scanned = s.nonBlank, s.ls.N()
}

// uiStart is where the bottom UI (menu, composer, footer) starts in the
// capture: a message read for the fallback ends above it.
func (r *reading) uiStart() int {
	return min(r.bottom.start, r.history.menuStart)
}

// signals assembles the debug snapshot from both passes and the title
// signal.
func (r *reading) signals(title string) Signals {
	b, h := &r.bottom, &r.history
	sig := Signals{
		Title:               title,
		LinesScanned:        r.scanned,
		Prompt:              b.prompt,
		PromptLine:          b.promptLine,
		Composer:            b.composer,
		ComposerPlaceholder: b.placeholder,
		Footer:              b.footer,
		FooterLine:          b.footerLine,
		Unknown:             b.unknown,
		UnknownLine:         b.unknownLine,
		LastUser:            h.lastUser,
		LastUserLine:        h.lastUserLine,
		Reply:               h.reply,
		ReplyLine:           h.replyLine,
		ActiveWork:          h.activeText,
		ActiveWorkLine:      h.activeLine,
		Waiting:             h.waiting,
		WaitingLine:         h.waitingLine,
		Error:               h.errText,
		ErrorLine:           h.errLine,
		Interrupted:         h.interrupted,
	}
	if b.busy != "" {
		sig.ActiveWork, sig.ActiveWorkLine = b.busy, b.busyLine
	}
	return sig
}

// scanner is the backward walk both passes share: the lines from the bottom
// up, and how many non-blank ones were read. Each pass reads its lines with
// prev, into plain variables (this is the hot loop). The bottom pass hands
// a line it does not take to the history pass by setting the walk back
// (mark, reset) to below it.
type scanner struct {
	ls       *screen.Lines
	nonBlank int
	// raw is the last line prev read as captured, dirty when it holds
	// escapes: the history pass tells a tool's bold name by them.
	raw   string
	dirty bool
}

// scanMark is a place in the walk to go back to.
type scanMark struct {
	at       screen.Mark
	nonBlank int
}

func (s *scanner) mark() scanMark { return scanMark{s.ls.Mark(), s.nonBlank} }

func (s *scanner) reset(m scanMark) { s.ls.Reset(m.at); s.nonBlank = m.nonBlank }

// prev reads the next non-blank line upwards, cleaned: its text without
// the indent (t), the indent, its offset, and whether blank lines were
// stepped over to reach it (gap). ok is false past the top.
func (s *scanner) prev() (t string, indent, start int, gap, ok bool) {
	for {
		raw, start, dirty, ok := s.ls.Prev()
		if !ok {
			return "", 0, 0, gap, false
		}
		if t, indent := screen.TrimLeft(s.ls.Clean(raw, dirty)); t != "" {
			s.nonBlank++
			s.raw, s.dirty = raw, dirty
			return t, indent, start, gap, true
		}
		gap = true
	}
}

// decide turns what the passes found into a status. The order is the
// precedence: a waiting menu, then errors, then active work, then the prompt.
// Only positive signs make a screen busy: Codex's active-work UI (the
// status indicator "Working (Ns • esc to interrupt)", "• Exploring", a
// running background terminal, the busy footer), the title's spinner, or a
// user message just sent with nothing below it. Text the passes do not
// know is neutral.
func decide(r *reading, title string) (handoff.Status, string) {
	b, h := &r.bottom, &r.history
	switch {
	case r.nonBlank == 0:
		return handoff.StatusError, screen.ReasonEmpty
	case h.menu:
		return handoff.StatusWaitingUserAnswer, ReasonMenu
	case h.legacyCounts(h.legacyWait):
		return handoff.StatusWaitingUserAnswer, ReasonLegacyWaiting
	case title == TitleActionRequired:
		return handoff.StatusWaitingUserAnswer, ReasonTitleAction
	case h.errCell:
		return handoff.StatusError, ReasonErrorCell
	case h.legacyCounts(h.legacyErr) && !h.active:
		return handoff.StatusError, ReasonLegacyError
	case h.active:
		return handoff.StatusProcessing, ReasonActiveWork
	case title == TitleSpinner:
		return handoff.StatusProcessing, ReasonTitleSpinner
	case b.prompt == "" && h.userFound && !h.after:
		// The prompt left the composer and nothing was drawn below it yet
		// (v0.104 hides the composer; legacy screens have none).
		return handoff.StatusProcessing, ReasonNoPrompt
	case b.prompt == "":
		// Something Codex draws in the composer's place that is not known
		// here (a warnings view, a picker, a new overlay): no sign of work
		// is no sign of work. The title's spinner would have said busy.
		if h.replies {
			return handoff.StatusCompleted, ReasonCompletedNoUI
		}
		return handoff.StatusIdle, ReasonIdleNoUI
	case h.replies:
		return handoff.StatusCompleted, ReasonCompleted
	case h.userFound:
		return handoff.StatusIdle, ReasonIdle
	}
	return handoff.StatusIdle, ReasonIdleNoMessages
}

// classify is Codex's Read: the bottom pane and the history, with the pane
// title's spinner as a second input (a streaming answer looks idle).
func classify(capture, title string) handoff.Classification {
	var r reading
	r.read(capture, false)
	ts := titleSignal(title)
	status, reason := decide(&r, ts)
	return screen.Verdict(status, reason, r.signals(ts), r.history.errText)
}

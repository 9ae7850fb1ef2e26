package codex

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// The bottom pass: Codex's bottom pane, read from the last line up. Below
// the history, Codex draws the composer (the input box: "› " with a
// placeholder or a draft) and under it the status line and footer hints.
// Nothing of the conversation is ever below the composer, so everything the
// pass reads here is UI, never quoted text.

// chromeLines bounds how far up the composer is looked for: footer, status
// line and a multi-line draft fit in it.
const chromeLines = 16

// Prompt kinds reported in Signals.Prompt.
const (
	promptNone     = ""
	promptBare     = "bare"     // a lone ›, ❯ or codex>
	promptComposer = "composer" // a › line with a placeholder or a draft
)

// bottomPane is what the bottom pass found.
type bottomPane struct {
	// prompt is the ready prompt (promptNone when none was found), with its
	// line number from the end and, for a composer, its text and whether
	// that text is a placeholder (otherwise an unsent draft).
	prompt      string
	promptLine  int
	composer    string
	placeholder bool
	// footer is the bottom-most footer or status line.
	footer     string
	footerLine int
	// busy is a footer Codex shows only while a turn runs ("tab to queue
	// message"): a positive sign of work.
	busy     string
	busyLine int
	// unknown is the bottom-most line below the composer that is none of
	// the known footer lines and means nothing to the history either (a new
	// hint, a warning counter, a notice): neutral, reported for debugging.
	unknown     string
	unknownLine int
	// start is the offset of the topmost line of the pane that was read
	// (footer or composer); the capture's length when there is none.
	start int
}

// read consumes the bottom pane from s: footer and status lines, draft
// lines, up to and including the composer. The pass ends at the composer,
// or at the first line that is none of these: then it reports handed, with
// the walk set back to right below that line, for the history pass to read
// it first.
//
// Lines it does not know are neutral: one that means nothing to the
// history pass either (see unknownLine) is stepped over while the composer
// is looked for (pastUnknown). If the composer turns up above it, the line
// was part of the pane; if not, it is handed over.
func (b *bottomPane) read(s *scanner, end int) (handed bool) {
	b.start = end
	footerSeen := false
	for {
		m := s.mark()
		t, indent, start, _, ok := s.prev()
		if !ok {
			return false
		}
		// composer and addFooter, by hand: this loop runs on every poll.
		if kind, text := promptLine(t); kind != notPrompt {
			if s.nonBlank <= chromeLines && (text == "" || footerSeen || footer(text, 0) != notFooter || isPlaceholder(text)) &&
				!(kind == chevronPrompt && isMenuItem(text)) {
				b.setPrompt(start, s.ls.N(), text)
				return false
			}
		} else if s.nonBlank <= chromeLines {
			if f := footer(t, indent); f != notFooter {
				if !footerSeen {
					b.footer, b.footerLine = screen.Signal(t), s.ls.N()
				}
				footerSeen = true
				b.start = start
				if f == footerBusy && b.busy == "" {
					b.busy, b.busyLine = screen.Signal(t), s.ls.N()
				}
				continue
			}
			if footerSeen && indent >= 2 {
				continue // a line of a multi-line draft
			}
			if unknownLine(t, indent) {
				if b.pastUnknown(s, t, s.ls.N(), footerSeen) {
					return false
				}
				s.reset(m)
				return true
			}
		}
		s.reset(m)
		return true
	}
}

// composer reports whether a prompt line (kind, text), the seq-th
// non-blank line from the bottom, is the composer: a lone prompt, a prompt
// with a placeholder, or one with a draft that has the footer below it (or,
// in older versions, the footer hint on its own line: "› Summarize … ? for
// shortcuts"). "› 1. Yes, proceed (y)" is a menu's cursor.
func composer(kind int, text string, seq int, footerSeen bool) bool {
	if kind == chevronPrompt && isMenuItem(text) || seq > chromeLines {
		return false
	}
	return text == "" || footerSeen || isPlaceholder(text) || footer(text, 0) != notFooter
}

// pastUnknown goes on reading the pane above an unknown line t (line n)
// and reports whether the composer is above it. In 0.169 a draft set off
// by a blank line from such lines is the composer too: a user message with
// nothing but them below it would have the composer below it. If there is
// no composer, b is as it was before the unknown line (the caller sets the
// walk back).
func (b *bottomPane) pastUnknown(s *scanner, t0 string, n0 int, footerSeen bool) bool {
	saved := *b
	apart := false
	for {
		t, indent, start, gap, ok := s.prev()
		if !ok {
			break
		}
		apart = apart || gap
		if kind, text := promptLine(t); kind != notPrompt {
			if composer(kind, text, s.nonBlank, footerSeen) ||
				apart && !(kind == chevronPrompt && isMenuItem(text)) && s.nonBlank <= chromeLines {
				b.setPrompt(start, s.ls.N(), text)
				b.unknown, b.unknownLine = screen.Signal(t0), n0
				return true
			}
			break
		}
		if s.nonBlank > chromeLines {
			break
		}
		if f := footer(t, indent); f != notFooter {
			b.addFooter(f, t, s.ls.N(), start, footerSeen)
			footerSeen = true
			continue
		}
		if footerSeen && indent >= 2 || unknownLine(t, indent) {
			continue
		}
		break
	}
	*b = saved
	return false
}

// addFooter records a footer or status line (kind f) read at line n.
func (b *bottomPane) addFooter(f int, t string, n, start int, footerSeen bool) {
	if !footerSeen {
		b.footer, b.footerLine = screen.Signal(t), n
	}
	b.start = start
	if f == footerBusy && b.busy == "" {
		b.busy, b.busyLine = screen.Signal(t), n
	}
}

func (b *bottomPane) setPrompt(start, n int, text string) {
	b.start = start
	b.promptLine = n
	if text == "" {
		b.prompt = promptBare
		return
	}
	b.prompt = promptComposer
	b.composer = screen.Signal(text)
	b.placeholder = isPlaceholder(text)
}

// unknownLine reports whether a line means nothing to either pass: not a
// footer (checked before), not a prompt, and nothing the history pass
// reacts to — no active-work UI, menu, cell glyph, "Worked for" or legacy
// pattern.
func unknownLine(t string, indent int) bool {
	switch {
	case activeWork(t, indent), indent <= 2 && menuHint(t), isWorkedFor(t):
		return false
	case indent >= 2 && strings.HasPrefix(t, treeElbow):
		return false
	}
	if isErr, interrupted := errorCell(t, indent); isErr || interrupted {
		return false
	}
	if _, ok := bulletText(t, indent); ok {
		return false
	}
	if indent <= 1 {
		if _, ok := isLegacyLabel(t, indent); ok || isLegacyUser(t, indent) || legacyWaiting(t) || legacyError(t, indent) {
			return false
		}
	}
	return true
}

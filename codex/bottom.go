package codex

import "strings"

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
// or at the first line that is none of these: that line is returned, with
// handed set, for the history pass to read first.
//
// Lines it does not know are neutral: one that means nothing to the
// history pass either (see unknownLine) is stepped over while the composer
// is looked for. If the composer turns up above it, the line was part of
// the pane; if not, the walk goes back to it and hands it over.
func (b *bottomPane) read(s *scanner, end int) (first line, handed bool) {
	b.start = end
	footerSeen, gap := false, false
	var (
		skipped  bool       // an unknown line was stepped over
		apart    bool       // a blank line above it, below the line read now
		skip     line       // the bottom-most one
		back     scanMark   // the walk right above it
		backPane bottomPane // the pane read below it
	)
	for {
		// s.next, by hand (a line value is built only when handed over).
		raw, start, dirty, ok := s.ls.prev()
		if !ok {
			break
		}
		t, indent := trimLeftSpace(s.ls.clean(raw, dirty))
		if t == "" {
			gap = true
			continue
		}
		s.nonBlank++
		seq, lineGap := s.nonBlank, gap
		gap = false
		if kind, text := promptLine(t); kind != notPrompt {
			// The composer: a lone prompt, a prompt with a placeholder, or
			// one with a draft that has the footer below it (or, in older
			// versions, the footer hint on its own line: "› Summarize … ?
			// for shortcuts"). In 0.169, also a draft set off by a blank
			// line from lines unknown here: a user message with nothing but
			// such lines below it would have the composer below it.
			// "› 1. Yes, proceed (y)" is a menu's cursor.
			if !(kind == chevronPrompt && isMenuItem(text)) && seq <= chromeLines &&
				(text == "" || footerSeen || isPlaceholder(text) ||
					footer(text, 0) != notFooter || skipped && (apart || lineGap)) {
				b.setPrompt(start, s.ls.n, text)
				if skipped {
					b.unknown, b.unknownLine = excerpt(skip.t), skip.n
				}
				return line{}, false
			}
		} else if seq <= chromeLines {
			if f := footer(t, indent); f != notFooter {
				if !footerSeen {
					b.footer, b.footerLine = excerpt(t), s.ls.n
				}
				footerSeen = true
				b.start = start
				if f == footerBusy && b.busy == "" {
					b.busy, b.busyLine = excerpt(t), s.ls.n
				}
				continue
			}
			if footerSeen && indent >= 2 {
				continue // a line of a multi-line draft
			}
			if unknownLine(t, indent) {
				if !skipped {
					skipped, back, backPane = true, s.mark(), *b
					skip = line{raw: raw, t: t, indent: indent, start: start, n: s.ls.n, seq: seq, dirty: dirty, gap: lineGap}
				}
				apart = apart || lineGap && skip.start != start
				continue
			}
		}
		first = line{raw: raw, t: t, indent: indent, start: start, n: s.ls.n, seq: seq, dirty: dirty, gap: lineGap}
		handed = true
		break
	}
	if skipped {
		// No composer above the unknown line: it was not the pane's.
		s.reset(back)
		*b = backPane
		return skip, true
	}
	return first, handed
}

func (b *bottomPane) setPrompt(start, n int, text string) {
	b.start = start
	b.promptLine = n
	if text == "" {
		b.prompt = promptBare
		return
	}
	b.prompt = promptComposer
	b.composer = excerpt(text)
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

package codex

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
	// start is the offset of the topmost line of the pane that was read
	// (footer or composer); the capture's length when there is none.
	start int
}

// read consumes the bottom pane from s: footer and status lines, draft
// lines, up to and including the composer. The pass ends at the composer,
// or at the first line that is none of these: that line is returned, with
// handed set, for the history pass to read first.
func (b *bottomPane) read(s *scanner, end int) (first line, handed bool) {
	b.start = end
	footerSeen := false
	for {
		l, ok := s.next()
		if !ok {
			return line{}, false
		}
		if kind, text := promptLine(l.t); kind != notPrompt {
			if kind == chevronPrompt && isMenuItem(text) {
				return l, true // "› 1. Yes, proceed (y)": a menu's cursor
			}
			// The composer: a lone prompt, or a prompt with a placeholder or
			// draft that has the footer below it (or, in older versions, the
			// footer hint on its own line: "› Summarize … ? for shortcuts").
			if l.seq <= chromeLines && (text == "" || footerSeen || footer(text, 0) != notFooter) {
				b.setPrompt(&l, text)
				return line{}, false
			}
			return l, true
		}
		if l.seq > chromeLines {
			return l, true
		}
		if f := footer(l.t, l.indent); f != notFooter {
			if !footerSeen {
				b.footer, b.footerLine = excerpt(l.t), l.n
			}
			footerSeen = true
			b.start = l.start
			if f == footerBusy && b.busy == "" {
				b.busy, b.busyLine = excerpt(l.t), l.n
			}
			continue
		}
		if footerSeen && l.indent >= 2 {
			continue // a line of a multi-line draft
		}
		return l, true
	}
}

func (b *bottomPane) setPrompt(l *line, text string) {
	b.start = l.start
	b.promptLine = l.n
	if text == "" {
		b.prompt = promptBare
		return
	}
	b.prompt = promptComposer
	b.composer = excerpt(text)
	b.placeholder = isPlaceholder(text)
}

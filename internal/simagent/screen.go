package simagent

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// Screen is what the simulated agent shows, modelled on Codex 0.169: the
// transcript of finished cells, then (while a turn runs) the status
// indicator, the composer, a status line and a footer. It is plain data so
// the drawing can be tested without a terminal.
type Screen struct {
	// Transcript holds the lines of the history cells, oldest first.
	Transcript []string
	// Draft is the text in the composer; "" shows the placeholder.
	Draft string
	// Busy: a turn runs (spinner title, busy footer while Indicator shows).
	Busy bool
	// Indicator is the status indicator's header ("Working"); "" hides it,
	// as Codex does while an answer streams.
	Indicator string
	// Since is when the indicator's elapsed time starts.
	Since time.Time
	// Model, Effort and Cwd make up the status line.
	Model, Effort, Cwd string
	// Menu, when set, is an approval menu shown in the composer's place
	// (Codex's "Would you like to run the following command?"); the title
	// then says action required.
	Menu []string
}

// Placeholder is the composer's text when it is empty.
const Placeholder = "Ask Codex to do anything"

// Footers: the idle one, and the one shown while the status indicator runs.
const (
	FooterIdle = "  ← for agents · ? for shortcuts"
	FooterBusy = "  tab to queue message"
)

// spinner frames Codex shows in the pane title while a turn runs.
var spinnerFrames = [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// Title is the pane title at now: a braille spinner and the cwd's basename
// while busy, the basename alone when idle.
func (s *Screen) Title(now time.Time) string {
	base := filepath.Base(s.Cwd)
	if len(s.Menu) > 0 {
		return "[ ! ] Action Required"
	}
	if !s.Busy {
		return base
	}
	frame := spinnerFrames[(now.UnixMilli()/100)%int64(len(spinnerFrames))]
	return frame + " " + base
}

// maxDraftLines bounds how much of a draft the composer shows: its first
// line and, as a composer scrolled to its cursor does, its last ones;
// Codex collapses large pastes to a placeholder the same way.
const (
	maxDraftLines   = 6
	largePasteChars = 1000
)

// bottom returns the lines below the transcript.
func (s *Screen) bottom(now time.Time) []string {
	var out []string
	if s.Indicator != "" {
		secs := int(now.Sub(s.Since).Seconds())
		if secs < 0 {
			secs = 0
		}
		out = append(out, "", fmt.Sprintf("◦ %s (%ds • esc to interrupt)", s.Indicator, secs))
	}
	out = append(out, "")
	if len(s.Menu) > 0 {
		return append(out, s.Menu...)
	}
	out = append(out, composerLines(s.Draft)...)
	out = append(out, "", fmt.Sprintf("  %s %s · %s", s.Model, s.Effort, s.Cwd))
	if s.Indicator != "" {
		out = append(out, FooterBusy)
	} else {
		out = append(out, FooterIdle)
	}
	return out
}

func composerLines(draft string) []string {
	switch {
	case draft == "":
		return []string{"› " + Placeholder}
	case utf8.RuneCountInString(draft) > largePasteChars:
		return []string{fmt.Sprintf("› [Pasted Content %d chars]", utf8.RuneCountInString(draft))}
	}
	lines := strings.Split(draft, "\n")
	if len(lines) <= maxDraftLines {
		return quoteLines("› ", draft, maxDraftLines)
	}
	// The end stays in sight (the driver checks the paste's end before
	// Enter), the start says where the draft begins.
	out := []string{"› " + lines[0], fmt.Sprintf("  … +%d lines", len(lines)-maxDraftLines+1)}
	for _, l := range lines[len(lines)-maxDraftLines+2:] {
		out = append(out, "  "+l)
	}
	return out
}

// quoteLines prefixes the first line of text with first and the others with
// two spaces, showing at most max lines.
func quoteLines(first, text string, max int) []string {
	lines := strings.Split(text, "\n")
	var out []string
	for i, l := range lines {
		if i == max {
			out = append(out, fmt.Sprintf("  … +%d lines", len(lines)-max))
			break
		}
		if i == 0 {
			out = append(out, first+l)
		} else {
			out = append(out, "  "+l)
		}
	}
	return out
}

// Render lays the screen out for a terminal of rows × cols: long lines are
// wrapped (continuations indented by two spaces, as Codex does), and the
// oldest transcript lines are dropped when everything does not fit. It
// returns exactly the lines to draw, at most rows of them.
func (s *Screen) Render(now time.Time, rows, cols int) []string {
	width := cols - 1 // never write the last column: no pending-wrap surprises
	if width < 10 {
		width = 10
	}
	var lines []string
	for _, l := range append(append([]string(nil), s.Transcript...), s.bottom(now)...) {
		lines = append(lines, wrap(l, width)...)
	}
	if len(lines) > rows {
		lines = lines[len(lines)-rows:]
	}
	return lines
}

// wrap splits a line into pieces at most width cells wide.
func wrap(line string, width int) []string {
	line = strings.ReplaceAll(line, "\t", "    ")
	var out []string
	var cur strings.Builder
	w := 0
	for _, r := range line {
		rw := runeWidth(r)
		if w+rw > width {
			out = append(out, cur.String())
			cur.Reset()
			cur.WriteString("  ")
			w = 2
		}
		cur.WriteRune(r)
		w += rw
	}
	return append(out, cur.String())
}

// runeWidth is a rough terminal cell width: control characters are shown
// as nothing, East Asian wide characters and emoji as two cells.
func runeWidth(r rune) int {
	switch {
	case r < 0x20 || r == 0x7f:
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0xa4cf, r >= 0xac00 && r <= 0xd7a3,
		r >= 0xf900 && r <= 0xfaff, r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1faff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// Frame is the byte stream that draws lines over the whole terminal and sets
// the title, without clearing the screen (tmux would push a cleared screen
// into the scrollback) — each line is rewritten and erased to its end.
func Frame(lines []string, title string) string {
	var b strings.Builder
	b.WriteString("\x1b]0;" + sanitizeTitle(title) + "\x07")
	b.WriteString("\x1b[H")
	for i, l := range lines {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString(stripControls(l))
		b.WriteString("\x1b[K")
	}
	b.WriteString("\x1b[J")
	return b.String()
}

func stripControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

func sanitizeTitle(s string) string { return stripControls(s) }

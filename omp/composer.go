package omp

import (
	"strconv"
	"strings"
	"unicode/utf16"

	"golang.org/x/text/unicode/norm"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// editorText is what the editor shows, its lines top down ("╰─ " and the
// continuation lines' three blanks dropped); ok is false when no editor is
// at the bottom.
func editorText(r *reading) (lines []string, ok bool) {
	if r.sig.Chrome != screen.ChromeComposer {
		return nil, false
	}
	for i := len(r.editor) - 1; i >= 0; i-- {
		t := r.editor[i].Text
		if i == len(r.editor)-1 {
			t = strings.TrimPrefix(strings.TrimPrefix(t, editorMark), " ")
		} else {
			t = strings.TrimPrefix(t, "   ")
		}
		lines = append(lines, t)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, true
}

// readPaste reads the editor after text was pasted. OMP shows a paste of
// up to ten lines and 1000 characters as it is; a longer one becomes a
// chip, "📄 #N" in the editor, with a card above the status line whose
// caption is its size as OMP counts the text it keeps ("+N lines" for
// more than one line, else "N chars"; cut to ten columns with "…"). The
// chip is the prompt's when it is the editor's only content and the only
// card, and the caption is the prompt's.
func readPaste(capture, text string) (handoff.Paste, string) {
	r := read(capture)
	lines, ok := editorText(r)
	if !ok {
		if screen.BottomHas(capture, 16, largePasteMenu) {
			return handoff.PasteWrong, largePasteNote
		}
		return handoff.PasteUnread, ""
	}
	shown := strings.TrimSpace(strings.Join(lines, " "))
	if shown == "" {
		return handoff.PasteArriving, ""
	}
	if strings.Contains(shown, chipMark) {
		return readChip(r, shown, text)
	}
	kept := strings.Split(strings.TrimRight(kept(text), "\n "), "\n")
	first, last := strings.TrimSpace(kept[0]), strings.TrimSpace(kept[len(kept)-1])
	top, bottom := strings.TrimSpace(lines[0]), strings.TrimSpace(lines[len(lines)-1])
	switch {
	case strings.HasPrefix(first, top) && strings.HasSuffix(last, bottom) && bottom != "":
		return handoff.PasteWhole, screen.Signal(bottom)
	case strings.HasPrefix(first, top):
		return handoff.PasteArriving, screen.Signal(bottom)
	}
	return handoff.PasteWrong, screen.Signal(shown)
}

// readChip checks the editor's chip against the prompt: the editor holds
// that one chip, and its card (the one titled with its number: a card of
// an earlier paste may still show beside it) has the prompt's caption.
func readChip(r *reading, shown, text string) (handoff.Paste, string) {
	if !strings.HasPrefix(shown, chipMark) || strings.ContainsRune(shown[len(chipMark):], ' ') {
		return handoff.PasteWrong, screen.Signal(shown)
	}
	got := ""
	for i, c := range r.sig.Chips {
		if c == shown && i < len(r.sig.Captions) {
			got = r.sig.Captions[i]
		}
	}
	if want := caption(text); got != want {
		return handoff.PasteWrong, screen.Signal(shown + ": its card says " + strconv.Quote(got) + ", the prompt's " + strconv.Quote(want))
	}
	return handoff.PasteWhole, screen.Signal(shown + " " + got)
}

// largePasteMenu titles the menu OMP opens for a paste of 100 lines or
// more (its paste.largeMenuThreshold): Enter there would wrap the prompt in
// <attachment> tags, Esc pastes it as a chip.
const (
	largePasteMenu = "╭─ Pasted "
	largePasteNote = "OMP's large-paste menu ('Pasted N lines') took the paste: set paste.largeMenuThreshold: 0 in ~/.omp/agent/config.yml"
)

// kept is the text OMP keeps of a paste: CRLF and CR as LF, NFC, a tab as
// three blanks, the other control characters dropped.
func kept(text string) string {
	t := strings.ReplaceAll(text, "\r\n", "\n")
	t = norm.NFC.String(strings.ReplaceAll(t, "\r", "\n"))
	t = strings.ReplaceAll(t, "\t", "   ")
	return strings.Map(func(c rune) rune {
		if c < 0x20 && c != '\n' {
			return -1
		}
		return c
	}, t)
}

// captionCols is how many columns a card's caption may take.
const captionCols = 10

// caption is the caption of the card OMP shows for a paste of text:
// "+N lines" when what it keeps has more than one line, else "N chars" (N
// in UTF-16 code units, as JavaScript counts), cut to ten columns.
func caption(text string) string {
	k := kept(text)
	var c string
	if n := strings.Count(k, "\n") + 1; n > 1 {
		c = "+" + strconv.Itoa(n) + " lines"
	} else {
		c = strconv.Itoa(len(utf16.Encode([]rune(k)))) + " chars"
	}
	if len(c) > captionCols {
		c = c[:captionCols-1] + "…"
	}
	return c
}

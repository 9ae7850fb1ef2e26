package screen

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// PasteForm is how one CLI's composer shows a prompt just pasted: its
// fold (the placeholder a long paste becomes, with the size it shows), the
// line it draws while it still reads a paste, and where its composer is.
// A provider fills one in and uses Read as its Composer.ReadPaste.
type PasteForm struct {
	// Folds are the placeholders the CLI folds a long paste into.
	Folds []Fold
	// Arriving matches one of the last 6 non-blank lines of the screen
	// while the CLI still reads a paste ("Pasting… 12 KB"); nil if none.
	Arriving *regexp.Regexp
	// Composer returns the text lines the composer shows, without its
	// frame and prompt mark; ok is false when no composer is found.
	Composer func(capture string) (lines []string, ok bool)
	// Placeholder reports the hint an empty composer shows in its first
	// line ("Type your message or @path/to/file"), trimmed: not a draft
	// (see Draft). nil: the CLI draws none.
	Placeholder func(first string) bool
}

// Draft reads the first line of what the composer on capture holds, for a
// Composer.ReadDraft (see handoff.DraftReader): its first non-blank line,
// trimmed; "" when no composer is found, it holds nothing, or it shows
// only the CLI's Placeholder. The tmux driver refuses to paste onto a
// draft: the prompt would join it into one message.
func (f PasteForm) Draft(capture string) string {
	lines, ok := f.Composer(capture)
	if !ok {
		return ""
	}
	for _, ln := range lines {
		t := strings.TrimFunc(ln, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
		if t == "" {
			continue
		}
		if f.Placeholder != nil && f.Placeholder(t) {
			return ""
		}
		return t
	}
	return ""
}

// Prefixes is a PasteForm.Placeholder for hints that start with one of
// prefixes.
func Prefixes(prefixes ...string) func(first string) bool {
	return func(first string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(first, p) {
				return true
			}
		}
		return false
	}
}

// tailRunes is how much of the text's end, at least, must end the
// composer for an unfolded paste to read whole (see textEnd).
const tailRunes = 40

// textEnd is the end of ink (text's Ink) that must end the composer for
// an unfolded paste of text to read whole: its last tailRunes runes, and
// back to the receipt when text carries a RESPONSE FILE INSTRUCTION. The
// instruction's last sentence is the same in every dispatch; its receipt
// (on the command's last line, just above) is this dispatch's own, so a
// composer still showing another dispatch's prompt does not read whole.
func textEnd(text, ink string) string {
	tail := []rune(ink)
	if len(tail) > tailRunes {
		tail = tail[len(tail)-tailRunes:]
	}
	end := string(tail)
	if t, ok := handoff.ParseInstruction(text); ok {
		if i := strings.LastIndex(ink, string(t.Receipt)); i >= 0 && i < len(ink)-len(end) {
			end = ink[i:]
		}
	}
	return end
}

// Read says what the composer on capture shows of text (as pasted): see
// handoff.PasteReader. A fold whose size is text's, alone in the
// composer, or text's own end last in the composer (textEnd: with its
// receipt, when it has one), is PasteWhole; a fold of another size,
// several folds, or a fold beside other text is PasteWrong; the CLI's reading line, or a composer without a fold that
// does not end with the text's end (empty, a placeholder, a start of the
// text) is PasteArriving: the driver's wait for the paste ends it; no
// composer found is PasteUnread.
func (f PasteForm) Read(capture, text string) (handoff.Paste, string) {
	if f.Arriving != nil {
		// Near the bottom: a CLI draws it under its composer.
		for _, ln := range Bottom(capture, 6) {
			if f.Arriving.MatchString(ln.T) {
				return handoff.PasteArriving, ln.T
			}
		}
	}
	lines, ok := f.Composer(capture)
	if !ok {
		return handoff.PasteUnread, ""
	}
	shown := strings.Join(lines, "\n")
	var found []foundFold
	for _, fd := range f.Folds {
		for _, loc := range fd.Pattern.FindAllStringSubmatchIndex(shown, -1) {
			found = append(found, foundFold{fd, loc})
		}
	}
	switch {
	case len(found) > 1:
		return handoff.PasteWrong, "several folds: " + Excerpt(strings.Join(strings.Fields(shown), " "), 200)
	case len(found) == 1:
		return found[0].read(shown, text)
	}
	got, want := Ink(shown), Ink(text)
	if end := textEnd(text, want); end != "" && strings.HasSuffix(got, end) {
		return handoff.PasteWhole, "the text's end: " + Excerpt(strings.TrimSpace(lines[len(lines)-1]), 120)
	}
	return handoff.PasteArriving, Excerpt(strings.Join(strings.Fields(shown), " "), 200)
}

// Fold is one form of a CLI's placeholder for a folded paste.
type Fold struct {
	// Pattern matches the placeholder; its first submatch, when it has
	// one, is the size it shows.
	Pattern *regexp.Regexp
	// Size is the size the placeholder shows for text (its characters,
	// its lines); nil when it shows none.
	Size func(text string) int
}

// PiFolds are the folds of pi's editor (pi-tui), which pi and Kimi Code
// draw: a long single line as "[paste #1 20000 chars]" (its length in
// UTF-16 units), several lines as "[paste #2 +72 lines]" (its lines; the
// number counts the session's pastes).
func PiFolds() []Fold {
	return []Fold{
		{Pattern: regexp.MustCompile(`\[paste #\d+ (\d+) chars\]`), Size: UTF16Len},
		{Pattern: regexp.MustCompile(`\[paste #\d+ \+(\d+) lines\]`), Size: LineCount},
	}
}

// foundFold is a Fold matched at loc.
type foundFold struct {
	Fold
	loc []int
}

// read reads a composer, shown, that holds this one fold: whole when
// nothing else is there and the size it shows is text's.
func (f foundFold) read(shown, text string) (handoff.Paste, string) {
	loc := f.loc
	fold := shown[loc[0]:loc[1]]
	if rest := Ink(shown[:loc[0]] + shown[loc[1]:]); rest != "" {
		return handoff.PasteWrong, Excerpt(fold+" beside other text: "+rest, 200)
	}
	if f.Size != nil && len(loc) >= 4 && loc[2] >= 0 {
		n, err := strconv.Atoi(shown[loc[2]:loc[3]])
		if want := f.Size(text); err != nil || n != want {
			return handoff.PasteWrong, fold + " (the prompt's is " + strconv.Itoa(want) + ")"
		}
	}
	return handoff.PasteWhole, fold
}

// Ink is s without white space and format characters (zero-width spaces,
// joiners, a BOM): what a screen shows of text whatever the CLI's
// wrapping, indentation and cursor, so a composer can be compared with
// the text pasted into it.
func Ink(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}

// UTF16Len is the length of text in UTF-16 code units: a JavaScript
// string's length, the "chars" a Node CLI's fold counts.
func UTF16Len(text string) int {
	n := 0
	for _, r := range text {
		n += utf16.RuneLen(r)
	}
	return n
}

// LineBreaks is the number of line breaks in text: the "+N lines" of a
// fold that counts the lines after the first.
func LineBreaks(text string) int { return strings.Count(text, "\n") }

// LineCount is the number of lines of text: line breaks plus one.
func LineCount(text string) int { return strings.Count(text, "\n") + 1 }

// BetweenRules is a PasteForm.Composer for a composer drawn between two
// horizontal rules near the bottom of the screen (Claude Code, Gemini CLI,
// Qwen Code): the lines between the last two rules, within the last n
// non-blank lines, with mark (the prompt mark, e.g. "❯") cut from the
// first.
func BetweenRules(n int, marks ...string) func(capture string) ([]string, bool) {
	return func(capture string) ([]string, bool) {
		bottom := Bottom(capture, n)
		lower := -1
		for i, ln := range bottom {
			if !IsRule(ln.T, 20) {
				continue
			}
			if lower < 0 {
				lower = i
				continue
			}
			// bottom runs upwards: the composer is bottom[lower+1 : i].
			var lines []string
			for j := i - 1; j > lower; j-- {
				lines = append(lines, bottom[j].T)
			}
			if len(lines) > 0 {
				lines[0] = CutMark(lines[0], marks...)
			}
			return lines, true
		}
		return nil, false
	}
}

// CutMark cuts the first of marks that s starts with, and the blanks after it.
func CutMark(s string, marks ...string) string {
	for _, m := range marks {
		if rest, ok := strings.CutPrefix(s, m); ok {
			return strings.TrimLeft(rest, " "+NBSP)
		}
	}
	return s
}

// MarkedComposer is a PasteForm.Composer for a composer that starts with
// a prompt mark (Gemini CLI's "*", Codex's "›"): the last line within the
// last n non-blank lines that starts with mark, without it, and the lines
// under it up to the first that end says is below the composer.
func MarkedComposer(n int, mark string, end func(Line) bool) func(capture string) ([]string, bool) {
	return func(capture string) ([]string, bool) {
		bottom := Bottom(capture, n)
		for i, ln := range bottom {
			rest, ok := strings.CutPrefix(ln.T, mark)
			if !ok {
				continue
			}
			lines := []string{strings.TrimLeft(rest, " "+NBSP)}
			for j := i - 1; j >= 0 && !end(bottom[j]); j-- {
				lines = append(lines, bottom[j].T)
			}
			return lines, true
		}
		return nil, false
	}
}

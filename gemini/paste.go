package gemini

import (
	"regexp"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pasteForm is how Gemini CLI 0.61.0 shows a paste, tried on the real CLI
// (testdata/paste): a long single line as "[Pasted Text: 20000 chars]"
// (its length in UTF-16 units), several lines as "[Pasted Text: 72
// lines]" (its lines), a short one as its text. The composer starts with
// "*" (YOLO mode) or ">" (the modes that ask) and ends above the footer
// ("workspace (/directory)") or a rule.
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds: []screen.Fold{
			{Pattern: regexp.MustCompile(`\[Pasted Text: (\d+) chars\]`), Size: screen.UTF16Len},
			{Pattern: regexp.MustCompile(`\[Pasted Text: (\d+) lines\]`), Size: screen.LineCount},
		},
		Composer:    composerText,
		Placeholder: screen.Prefixes("Type your message or @path/to/file"),
	}
}

// composerText is what the composer holds, found where the classifier
// finds it (its first line one column in, under the rule over its mode
// line): that line without its mark, "*" in YOLO mode or ">" in the modes
// that ask (shell mode's "!" is Mode's), and the lines under it down to
// its frame or the footer. The prompts in the history above are drawn
// with ">" too: only the one the classifier took for the composer is read.
func composerText(capture string) ([]string, bool) {
	r := read(capture)
	if r.sig.Chrome != screen.ChromeComposer {
		return nil, false
	}
	bottom := screen.Bottom(capture, 60)
	for i, ln := range bottom {
		if ln.N != r.sig.ComposerLine {
			continue
		}
		rest, ok := strings.CutPrefix(ln.T, "*")
		if !ok {
			if rest, ok = strings.CutPrefix(ln.T, ">"); !ok {
				return nil, false
			}
		}
		lines := []string{strings.TrimLeft(rest, " "+screen.NBSP)}
		for j := i - 1; j >= 0 && !belowComposer(bottom[j]); j-- {
			lines = append(lines, bottom[j].T)
		}
		return lines, true
	}
	return nil, false
}

// belowComposer: the footer, the frame (a rule, a box, or the half-block
// band drawn under the composer where the terminal has colour), a hint
// line.
func belowComposer(ln screen.Line) bool {
	return strings.HasPrefix(ln.T, "workspace (") || screen.IsRule(ln.T, 20) || strings.HasPrefix(ln.T, "▀▀▀▀▀") ||
		strings.HasPrefix(ln.T, "╰") || strings.HasPrefix(ln.T, "│ workspace")
}

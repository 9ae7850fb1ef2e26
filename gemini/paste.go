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
// "*" and ends above the footer ("workspace (/directory)") or a rule.
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds: []screen.Fold{
			{Pattern: regexp.MustCompile(`\[Pasted Text: (\d+) chars\]`), Size: screen.UTF16Len},
			{Pattern: regexp.MustCompile(`\[Pasted Text: (\d+) lines\]`), Size: screen.LineCount},
		},
		Composer:    screen.MarkedComposer(60, "*", belowComposer),
		Placeholder: screen.Prefixes("Type your message or @path/to/file"),
	}
}

// belowComposer: the footer, the frame (a rule, a box, or the half-block
// band drawn under the composer where the terminal has colour), a hint
// line.
func belowComposer(ln screen.Line) bool {
	return strings.HasPrefix(ln.T, "workspace (") || screen.IsRule(ln.T, 20) || strings.HasPrefix(ln.T, "▀▀▀▀▀") ||
		strings.HasPrefix(ln.T, "╰") || strings.HasPrefix(ln.T, "│ workspace")
}

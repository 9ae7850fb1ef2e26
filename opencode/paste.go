package opencode

import (
	"regexp"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// pasteForm is how OpenCode 1.18.33 shows a paste, tried on the real CLI
// (testdata/paste): anything of more than a line or two as "[Pasted ~72
// lines]" (the lines of the text without the blanks and line breaks at
// its ends: in the delivery rows a dispatch's prompt, which ends with a
// line break, showed one line less than its line breaks plus one, and one
// that starts with two blank lines three less; a long single line is "~1
// lines"), a short one as its text. The composer is the box of "┃" lines above "╹▀▀▀", less its
// last line (the agent and model: "Build · fake-model Fake").
func pasteForm() screen.PasteForm {
	return screen.PasteForm{
		Folds:    []screen.Fold{{Pattern: regexp.MustCompile(`\[Pasted ~(\d+) lines?\]`), Size: lines}},
		Composer: boxComposer,
		// Its hint with an example that rotates: Ask anything… "Fix
		// broken tests" (Kilo Code: "Ask anything... ").
		Placeholder: screen.Prefixes("Ask anything"),
	}
}

// boxComposer reads the composer's box: its "┃" lines above the bottom
// edge, without the last (the agent line).
func boxComposer(capture string) ([]string, bool) {
	bottom := screen.Bottom(capture, 60)
	edge := -1
	for i, ln := range bottom {
		if strings.HasPrefix(ln.T, "╹") {
			edge = i
			break
		}
	}
	if edge < 0 {
		return nil, false
	}
	var box []string
	for j := edge + 1; j < len(bottom); j++ {
		rest, ok := strings.CutPrefix(bottom[j].T, "┃")
		if !ok {
			break
		}
		box = append(box, strings.TrimSpace(rest))
	}
	// box runs upwards: box[0] is the agent line, under the text.
	for k := 1; k < len(box); k++ {
		if box[k] != "" {
			lines := make([]string, 0, len(box)-k)
			for i := len(box) - 1; i >= k; i-- {
				lines = append(lines, box[i])
			}
			return lines, true
		}
	}
	return []string{}, len(box) > 0
}

// lines is what OpenCode's fold counts: the lines of text without the
// blanks and line breaks at its ends.
func lines(text string) int {
	return screen.LineCount(strings.TrimSpace(text))
}

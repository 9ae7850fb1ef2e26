package screen_test

import (
	"regexp"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// form is a composer between two rules behind "> ", folding a paste into
// "[Pasted N chars]" and showing "Reading… K KB" under it meanwhile.
var form = screen.PasteForm{
	Folds:    []screen.Fold{{Pattern: regexp.MustCompile(`\[Pasted (\d+) chars\]`), Size: screen.UTF16Len}},
	Arriving: regexp.MustCompile(`^Reading…`),
	Composer: screen.BetweenRules(20, ">"),
}

func composer(lines ...string) string {
	rule := strings.Repeat("─", 40)
	return "history\n" + rule + "\n> " + strings.Join(lines, "\n  ") + "\n" + rule + "\n  footer\n"
}

func TestPasteFormReadsTheComposer(t *testing.T) {
	text := "first line\nsecond line, the last of the prompt 🧪"
	for _, c := range []struct {
		name, capture string
		want          handoff.Paste
	}{
		{"the text, wrapped", composer("first line", "second line, the last of the", "prompt 🧪"), handoff.PasteWhole},
		{"its start only", composer("first line"), handoff.PasteArriving},
		{"empty", composer(""), handoff.PasteArriving},
		{"still reading", composer("") + "Reading… 4 KB\n", handoff.PasteArriving},
		{"its fold", composer("[Pasted 49 chars]"), handoff.PasteWhole},
		{"a fold of another size", composer("[Pasted 48 chars]"), handoff.PasteWrong},
		{"two folds", composer("[Pasted 49 chars][Pasted 49 chars]"), handoff.PasteWrong},
		{"a fold after a draft", composer("draft [Pasted 49 chars]"), handoff.PasteWrong},
		{"no composer", "history\nfooter\n", handoff.PasteUnread},
	} {
		if got, seen := form.Read(c.capture, text); got != c.want {
			t.Errorf("%s: %s (%q), want %s", c.name, got, seen, c.want)
		}
	}
}

// Every dispatch's prompt ends with the same sentence of the response
// instruction; its receipt, on the line above, is its own. A composer
// still showing the previous dispatch's prompt (the same instruction, its
// own receipt) is not this prompt whole; this prompt's end, wrapped, is.
func TestPasteFormReadsTheReceiptInTheTextsEnd(t *testing.T) {
	path := "/tmp/handoff/reviewer.md"
	this := handoff.Receipt(strings.Repeat("THIS", 5))
	previous := handoff.Receipt(strings.Repeat("PREV", 5))
	text := handoff.WithInstruction("review the change", path, this)
	// endLines is how a composer shows the end of a prompt signed with r
	// (the command's last line, a blank line, the last sentence), the last
	// sentence wrapped at 60 columns.
	endLines := func(r handoff.Receipt) []string {
		lines := strings.Split(strings.TrimRight(handoff.Instruction(path, r), "\n"), "\n")
		last := lines[len(lines)-1]
		return []string{"…", lines[len(lines)-3], "", last[:60], last[60:]}
	}
	for _, c := range []struct {
		name string
		r    handoff.Receipt
		want handoff.Paste
	}{
		{"the previous dispatch's prompt end", previous, handoff.PasteArriving},
		{"this prompt's end", this, handoff.PasteWhole},
	} {
		if got, seen := form.Read(composer(endLines(c.r)...), text); got != c.want {
			t.Errorf("%s: %s (%q), want %s", c.name, got, seen, c.want)
		}
	}
}

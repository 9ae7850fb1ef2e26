package codex

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// paint wraps a line's marker in the escapes Codex 0.169 emits (as captured
// with capture-pane -e): dim/bold glyphs, 256-colour bands, resets.
func paint(line string) string {
	switch {
	case strings.HasPrefix(line, "› "):
		return "\x1b[1;2m› \x1b[0m\x1b[38;5;255m\x1b[48;5;238m" + line[len("› "):] + "\x1b[39m\x1b[49m"
	case strings.HasPrefix(line, "• "):
		return "\x1b[2m• \x1b[0m\x1b[39m\x1b[49m" + line[len("• "):]
	case strings.HasPrefix(line, "◦ "):
		return "\x1b[2m◦\x1b[0m\x1b[39m\x1b[49m \x1b[2mWorking\x1b[0m (1s • \x1b[0;1mesc\x1b[0;2m to interrupt)\x1b[0m"
	}
	return "\x1b[2m" + line + "\x1b[0m\x1b[39m\x1b[49m"
}

// bench is the synthetic Codex captures the classifier is measured on
// (internal/conformance builds them).
var bench = conformance.Bench{
	Classifier: Provider(),
	Title:      "proj",
	History: []string{
		"› Please look at the parser and tell me what it does with trailing commas",
		"",
		"• I'll read the parser first.",
		"",
		"• Explored",
		"  └ Read parser.go, lexer.go",
		"",
		"• The parser accepts trailing commas in lists and objects. It is running fine",
		"  and nothing is executing in the background; I was exploring the tests too.",
		"",
		"  - lists: accepted",
		"  - objects: accepted",
		"",
		"  Worked for 12s • 04:28",
		"",
		"",
	},
	Tails: map[handoff.Status][]string{
		handoff.StatusCompleted: {
			"› Summarise what you changed",
			"",
			"• I changed three things:",
			"",
			"  1. the lexer keeps positions",
			"  2. the parser reports the line of an error",
			"  3. the tests cover both",
			"",
			"  Worked for 31s • 04:29",
			"",
			"› Ask Codex to do anything",
			"",
			"  gpt-5.5 high · ~/work/proj",
			"  ← for agents · ? for shortcuts",
		},
		handoff.StatusProcessing: {
			"› Summarise what you changed",
			"",
			"• I changed three things:",
			"",
			"◦ Working (12s • esc to interrupt)",
			"",
			"› Ask Codex to do anything",
			"",
			"  gpt-5.5 high · ~/work/proj",
			"  tab to queue message",
		},
		handoff.StatusIdle: {
			"› Summarise what you changed",
			"",
			"■ Conversation interrupted - tell the model what to do differently.",
			"",
			"› Ask Codex to do anything",
			"",
			"  gpt-5.5 high · ~/work/proj",
			"  ← for agents · ? for shortcuts",
		},
	},
	NoPrompt: []string{"", "› Ask Codex to do anything", "", "  gpt-5.5 high · ~/work/proj"},
	Paint:    paint,
	Filler:   "  a line of a very long answer whose user message scrolled out",
	Real:     realDir,
}

// TestBench runs conformance.Bench.Test on these captures.
func TestBench(t *testing.T) { bench.Test(t) }

// BenchmarkClassify runs conformance.Bench.Run on these captures.
func BenchmarkClassify(b *testing.B) { bench.Run(b) }

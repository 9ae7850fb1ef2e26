package codex

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
)

// paint wraps a line's marker in the escapes Codex 0.169 emits (as captured
// with capture-pane -e): dim/bold glyphs, 256-colour bands, resets.
func paint(line string, colour bool) string {
	if !colour || line == "" {
		return line
	}
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

// historyTurn is one earlier turn of the scrollback: 16 lines.
func historyTurn() []string {
	return []string{
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
	}
}

// benchCapture builds a capture of exactly n lines whose last turn is in
// the given state; the scrollback above it is earlier turns.
func benchCapture(n int, state handoff.Status, colour bool) string {
	var tail []string
	switch state {
	case handoff.StatusCompleted:
		tail = []string{
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
		}
	case handoff.StatusProcessing:
		tail = []string{
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
		}
	case handoff.StatusIdle:
		tail = []string{
			"› Summarise what you changed",
			"",
			"■ Conversation interrupted - tell the model what to do differently.",
			"",
			"› Ask Codex to do anything",
			"",
			"  gpt-5.5 high · ~/work/proj",
			"  ← for agents · ? for shortcuts",
		}
	}
	lines := make([]string, 0, n)
	turn := historyTurn()
	for len(lines)+len(tail) < n {
		for _, l := range turn {
			if len(lines)+len(tail) == n {
				break
			}
			lines = append(lines, l)
		}
	}
	lines = append(lines, tail...)
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(paint(l, colour))
		b.WriteByte('\n')
	}
	return b.String()
}

func TestBenchCapturesClassifyAsNamed(t *testing.T) {
	for _, n := range []int{25, 200, 20000} {
		for _, state := range []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing} {
			for _, colour := range []bool{false, true} {
				capture := benchCapture(n, state, colour)
				if got := strings.Count(capture, "\n"); got != n {
					t.Fatalf("%d-line capture has %d lines", n, got)
				}
				if got := New().Classify(capture, "proj"); got.Status != state {
					t.Errorf("%d lines, colour %v: %q (%s), want %q", n, colour, got.Status, got.Reason, state)
				}
			}
		}
	}
}

// BenchmarkClassify: captures of 25 to 20,000 lines, idle/completed/
// processing, plain and coloured. The cost follows the lines after the last
// user message, so it must stay flat as the scrollback grows.
func BenchmarkClassify(b *testing.B) {
	c := New()
	for _, colour := range []bool{false, true} {
		for _, state := range []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing} {
			for _, n := range []int{25, 200, 1000, 5000, 20000} {
				capture := benchCapture(n, state, colour)
				name := fmt.Sprintf("%s/colour=%v/lines=%d", state, colour, n)
				b.Run(name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(capture)))
					for b.Loop() {
						if got := c.Classify(capture, "proj"); got.Status != state {
							b.Fatalf("got %q", got.Status)
						}
					}
				})
			}
		}
	}
}

// BenchmarkClassifyNoUserMessage is the worst case: no user message on the
// screen, so the whole capture is read.
func BenchmarkClassifyNoUserMessage(b *testing.B) {
	c := New()
	for _, n := range []int{200, 20000} {
		var lines []string
		for len(lines) < n-4 {
			lines = append(lines, "  a line of a very long answer whose user message scrolled out")
		}
		lines = append(lines, "", "› Ask Codex to do anything", "", "  gpt-5.5 high · ~/work/proj")
		capture := screenOf(lines...)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(capture, "")
			}
		})
	}
}

func BenchmarkExtractLastMessage(b *testing.B) {
	for _, n := range []int{200, 20000} {
		capture := benchCapture(n, handoff.StatusCompleted, true)
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ExtractLastMessage(capture); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClassifyReal0169 classifies the real Codex 0.169 screens (40-line
// coloured captures) with their titles.
func BenchmarkClassifyReal0169(b *testing.B) {
	dir := filepath.Join("testdata", "real-0.169")
	raw, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		b.Fatal(err)
	}
	var cases []realCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		b.Fatal(err)
	}
	c := New()
	for _, rc := range cases {
		capture, err := os.ReadFile(filepath.Join(dir, rc.File))
		if err != nil {
			b.Fatal(err)
		}
		s := string(capture)
		b.Run(strings.TrimSuffix(rc.File, ".txt"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.Classify(s, rc.Title)
			}
		})
	}
}

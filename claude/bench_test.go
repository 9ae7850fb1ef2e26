package claude

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
)

// paint wraps a line in the escapes Claude Code 2.1.330 emits (as captured
// with capture-pane -e): 256-colour glyphs and text, resets, padding.
func paint(line string, colour bool) string {
	if !colour || line == "" {
		return line
	}
	switch {
	case strings.HasPrefix(line, "● "):
		return "\x1b[38;5;231m\x1b[49m●\x1b[39m " + line[len("● "):] + "\x1b[39m" + strings.Repeat(" ", 20)
	case strings.HasPrefix(line, "✻ ") || strings.HasPrefix(line, "✶ "):
		return "\x1b[38;5;174m" + line[:3] + "\x1b[39m \x1b[38;5;174m" + line[4:] + "\x1b[39m"
	case strings.HasPrefix(line, "───"):
		return "\x1b[38;5;244m" + line + "\x1b[39m"
	case strings.HasPrefix(line, "❯ "):
		return "\x1b[48;5;237m❯ \x1b[38;5;231m" + line[len("❯ "):] + "\x1b[39m" + strings.Repeat(" ", 20)
	case strings.HasPrefix(line, "❯\u00a0"):
		return "\x1b[38;5;246m❯\u00a0\x1b[7m \x1b[0m\x1b[39m\x1b[49m" + strings.Repeat(" ", 20)
	}
	return "\x1b[39m  \x1b[38;5;246m" + strings.TrimLeft(line, " ") + "\x1b[39m" + strings.Repeat(" ", 10)
}

// historyTurn is one earlier turn of the scrollback: 16 lines.
func historyTurn() []string {
	return []string{
		"❯ Please look at the parser and tell me what it does with trailing commas",
		"",
		"● I'll read the parser first.",
		"",
		"  Read 2 files (ctrl+o to expand)",
		"",
		"● The parser accepts trailing commas in lists and objects. It is running fine",
		"  and nothing is executing in the background; esc to interrupt is not shown.",
		"",
		"  - lists: accepted",
		"  - objects: accepted",
		"  - API Error: none",
		"",
		"✻ Brewed for 12s · done 9:04 AM",
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
			"❯ Summarise what you changed",
			"",
			"● I changed three things:",
			"",
			"  1. the lexer keeps positions",
			"  2. the parser reports the line of an error",
			"  3. the tests cover both",
			"",
			"✻ Churned for 31s · done 9:05 AM",
			"",
			rule, "❯\u00a0", rule,
			"  ⏵⏵ bypass permissions on (shift+tab to cycle)",
		}
	case handoff.StatusProcessing:
		tail = []string{
			"❯ Summarise what you changed",
			"",
			"● I changed three things:",
			"",
			"  1. the lexer keeps positions",
			"",
			"✽ Orbiting… (12s · ↓ 210 tokens)",
			"  ⎿ \u00a0Tip: Use /memory to view and manage Claude memory",
			"",
			rule, "❯\u00a0", rule,
			"  ⏵⏵ bypass permissions on (shift+tab to cycle) · esc to interrupt",
		}
	case handoff.StatusIdle:
		tail = []string{
			"❯ Summarise what you changed",
			"",
			rule, "❯\u00a0", rule,
			"  ⏵⏵ bypass permissions on (shift+tab to cycle)",
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
				if got := New().Classify(capture, "✳ Claude Code"); got.Status != state {
					t.Errorf("%d lines, colour %v: %q (%s), want %q", n, colour, got.Status, got.Reason, state)
				}
			}
		}
	}
}

// BenchmarkClassify: captures of 25 to 20,000 lines, idle/completed/
// processing, plain and coloured. The cost follows the lines after the last
// prompt, so it must stay flat as the scrollback grows.
func BenchmarkClassify(b *testing.B) {
	c := New()
	for _, colour := range []bool{false, true} {
		for _, state := range []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing} {
			for _, n := range []int{25, 200, 1000, 5000, 20000} {
				capture := benchCapture(n, state, colour)
				b.Run(fmt.Sprintf("%s/colour=%v/lines=%d", state, colour, n), func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(capture)))
					for b.Loop() {
						if got := c.Classify(capture, "✳ Claude Code"); got.Status != state {
							b.Fatalf("got %q", got.Status)
						}
					}
				})
			}
		}
	}
}

// BenchmarkClassifyNoPrompt is the worst case: no prompt on the screen, so
// the whole capture is read.
func BenchmarkClassifyNoPrompt(b *testing.B) {
	c := New()
	for _, n := range []int{200, 20000} {
		var lines []string
		for len(lines) < n-4 {
			lines = append(lines, "  a line of a very long answer whose prompt scrolled out")
		}
		lines = append(lines, rule, "❯\u00a0", rule, "  ⏵⏵ bypass permissions on")
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

// BenchmarkClassifyReal classifies the real Claude Code screens.
func BenchmarkClassifyReal(b *testing.B) {
	c := New()
	for _, rc := range loadRealCases(b) {
		capture, err := os.ReadFile(filepath.Join(realDir, rc.File))
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

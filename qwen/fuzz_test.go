package qwen

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// Synthetic screens, as Qwen Code 0.24.4 draws them.
const (
	ruleLine    = "────────────────────────────────────────────────────────────"
	placeholder = "*   Type your message or @path/to/file"
	busy        = "  ⠋Consulting the digital spirits... (3s · ↑ 10 tokens · esc to cancel)"
	spinning    = "◐︎ Qwen - work"
	ready       = "Qwen - work"
)

func ls(lines ...string) []string { return lines }

// chrome is the bottom of the screen: an optional busy line, the composer
// between its rules, the footer.
func chrome(status string, composer string) []string {
	var out []string
	if status != "" {
		out = append(out, status)
	}
	return append(out, ruleLine, composer, ruleLine, "  ➜ work · fake-model", "  YOLO mode (shift + tab to cycle)")
}

func promptLines(text string) []string { return ls("", "  > "+text, "") }

// FuzzClassify: any input is read into one of the five statuses with a
// one-line reason and JSON-encodable signals; an error has a detail; the
// extraction finds a non-empty message or says there is none; scrollback
// above the last prompt changes neither the verdict nor the work done.
// The seed corpus is every real Qwen Code screen.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, conformance.Scrollback(promptLines, "  ✕ [API Error: old]", busy, "   › 1. Yes, allow once",
		"  ◆︎ an old answer", "  ✓ Shell ls"), func(s Signals) (int, int) { return s.LinesScanned, s.LastUserLine },
		conformance.Capture(promptLines("hi"), ls("  ◆︎ Hello"), chrome("", placeholder)), ready,
		conformance.Capture(promptLines("hi"), chrome(busy, placeholder)), spinning,
		conformance.Capture(promptLines("hi"), ls("  ? Shell echo hi", "   Allow execution of: 'echo'?", "   › 1. Yes, allow once", "  ⠏ Waiting for user confirmation...")), spinning)
}

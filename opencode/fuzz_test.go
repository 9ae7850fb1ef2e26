package opencode

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// Synthetic screens, as OpenCode 1.18.33 draws them.
const (
	ready   = "OpenCode"
	session = "OC | Handoff session"
	hint    = "   ⬝⬝⬝⬝■■■■  esc interrupt                                      tab agents  ctrl+p commands"
	folder  = "   /tmp/work                                                    20  ctrl+p commands"
)

func ls(lines ...string) []string { return lines }

// chrome is the bottom of the screen: the composer box and the hint line.
func chrome(hintLine string) []string {
	return ls("  ┃", "  ┃", "  ┃", "  ┃  Build · fake-model Fake", "  ╹"+strings.Repeat("▀", 60), hintLine, "")
}

// promptLines is a prompt's box.
func promptLines(text string) []string { return ls("", "  ┃", "  ┃  "+text, "  ┃", "") }

func footer(done bool) string {
	if done {
		return "     ▣  Build · fake-model · 3.9s"
	}
	return "     ▣  Build · fake-model"
}

// FuzzClassify: any input is read into one of the five statuses with a
// one-line reason and JSON-encodable signals; an error has a detail; the
// extraction finds a non-empty message or says there is none; scrollback
// above where the reading stopped changes neither the verdict nor the work
// done. The seed corpus is every real OpenCode screen.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, conformance.Scrollback(promptLines, "  ┃  old error", "  ┃", hint, "  ┃  △ Permission required",
		"  ┃   Allow once   Allow always   Reject",
		"  ┃  ↑↓ select  enter submit  esc dismiss", "     an old answer", footer(true)), func(s Signals) (int, int) { return s.LinesScanned, s.StopLine },
		conformance.Capture(promptLines("hi"), ls("     Hello", "", footer(true)), chrome(folder)), session,
		conformance.Capture(promptLines("hi"), ls(footer(false)), chrome(hint)), session,
		conformance.Capture(promptLines("hi"), ls("  ┃", "  ┃  Bad request", "  ┃", footer(false)), chrome(folder)), session,
		conformance.Capture(promptLines("hi"), ls("     $ echo hi", footer(false), "  ┃", "  ┃  △ Permission required", "  ┃  $ echo hi",
			"  ┃   Allow once   Allow always   Reject        enter confirm", "  ┃")), session)
}

package copilot

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// Synthetic screens, as Copilot CLI 1.0.102 draws them.
const (
	ruleLine   = "────────────────────────────────────────────────────────────"
	idleFooter = " ← open sidebar · Interactive · Manual Approval · / commands · ? help   fake-model"
	busy       = " ● Working · 60 B esc esc interrupt                        fake-model"
	ready      = "GitHub Copilot"
	named      = "Say hi - GitHub Copilot"
)

func ls(lines ...string) []string { return lines }

// chrome is the bottom of the screen: the folder line, the composer
// between its rules, the footer (busy or idle).
func chrome(footer, composer string) []string {
	return ls(" /tmp/work", ruleLine, composer, ruleLine, footer)
}

func promptLines(text string) []string { return ls("", " ❯ "+text+"                 14:03", "") }

// dialog is an approval box in the composer's place.
func dialog() []string {
	return ls("╭──────────────────────────────────────────╮", "│ Write a marker file                      │",
		"│ Do you want to run this command?         │", "│                                          │",
		"│ ❯ 1. Yes                                 │", "│   2. Yes, and don't ask again            │",
		"│   3. No, and tell Copilot what to do     │", "╰──────────────────────────────────────────╯")
}

// FuzzClassify: any input is read into one of the five statuses with a
// one-line reason and JSON-encodable signals; an error has a detail; the
// extraction finds a non-empty message or says there is none; scrollback
// above the last prompt changes neither the verdict nor the work done.
// The seed corpus is every real Copilot CLI screen.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, conformance.Scrollback(promptLines, " ✗ 400 old error", busy, "│ ❯ 1. Yes  │",
		" ● an old answer", " $ Shell ls"), func(s Signals) (int, int) { return s.LinesScanned, s.LastUserLine },
		conformance.Capture(promptLines("hi"), ls(" ● Hello"), chrome(idleFooter, "❯")), named,
		conformance.Capture(promptLines("hi"), chrome(busy, "❯")), named,
		conformance.Capture(promptLines("hi"), ls(" $ Shell Write a marker file", "   echo hi > x"), dialog()), named)
}

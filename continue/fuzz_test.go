package cont

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// box is Continue's composer box at 80 columns holding t, over its footer.
func box(t string) []string {
	return []string{"╭" + strings.Repeat("─", 78) + "╮", "│ ● " + t + strings.Repeat(" ", max(0, 75-len([]rune(t)))) + "│",
		"╰" + strings.Repeat("─", 78) + "╯", "  [⏵⏵ auto]" + strings.Repeat(" ", 55) + "◉ Continue CLI"}
}

// FuzzClassify checks the properties every classification has
// (conformance.Fuzz) on every real Continue screen and on synthetic ones;
// old turns above a screen whose run of messages starts on it (a tool
// call, a note, the logo) change nothing.
func FuzzClassify(f *testing.F) {
	old := conformance.Capture([]string{" Config: fake", "", "● Old prompt", "", "● Old reply", "", "Error: 500 Internal server error", "",
		"● Older prompt", "", "● Bash(ls)", "  ⎿  Terminal output:", "    a", "", "● An old reply.", ""})
	conformance.FuzzScreens(f, Provider(), realDir(), old, func(s Signals) (int, int) { return s.LinesScanned, s.StartLine },
		conformance.Capture([]string{" Config: fake", ""}, box("▋Ask anything, @ for context, / for slash commands, ! for shell mode")), "",
		conformance.Capture([]string{"● hi", "", " ⣷⢿⣷  ( 1s • esc to interrupt )"}, box("")), "",
		conformance.Capture([]string{"● Bash(ls)", "  ⎿  Terminal output:", "    a", "", "● hi", "", "● Hello."}, box("")), "")
}

package opencode

import (
	"slices"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// recognize reports a pane of OpenCode (the registry matches the pane's
// command by name): its title is OpenCode's ("OpenCode" before the first
// turn, "OC | <session title>" after), or the composer's closing "╹▀▀▀" is
// among the bottom lines (Gemini CLI's rule has no "╹") under an agent line
// that names an agent, not a fork's, and a title that is not a fork's: Kilo Code draws the
// same screen under "Kilo CLI", with its own agents.
func recognize(title, capture string) bool {
	if Titled(title) {
		return true
	}
	if strings.HasPrefix(title, "Kilo") {
		return false
	}
	// A blank agent line (a composer still loading) names nobody.
	agent, _ := Agent(capture)
	return agent != "" && !slices.Contains(KiloAgents, agent)
}

// Titled reports OpenCode's own title: "OpenCode" before the first turn,
// "OC | <session title>" after.
func Titled(title string) bool { return title == "OpenCode" || strings.HasPrefix(title, "OC | ") }

// KiloAgents are the agents only Kilo Code has (its "code" is OpenCode's
// "build" renamed; "plan" both have): a composer naming one is Kilo's.
var KiloAgents = []string{"Code", "Ask", "Debug", "Orchestrator"}

// Agent is the agent the composer's agent line names, its first word
// ("┃  Build · fake-model Fake": Build; "┃  Code  · …": Code), the line
// right above the composer's closing "╹▀▀▀" among the bottom lines; ok is
// false when no composer is there.
func Agent(capture string) (agent string, ok bool) {
	bottom := screen.Bottom(capture, 10)
	for i, ln := range bottom {
		if !strings.HasPrefix(ln.T, "╹▀▀▀") {
			continue
		}
		if i+1 < len(bottom) {
			if in, boxed := strings.CutPrefix(bottom[i+1].T, "┃"); boxed {
				if f := strings.Fields(in); len(f) > 0 {
					return f[0], true
				}
			}
		}
		return "", true
	}
	return "", false
}

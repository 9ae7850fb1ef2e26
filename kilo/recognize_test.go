package kilo

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// composer is the bottom of OpenCode's screen with agent on its agent line.
// An empty agent is a blank agent line, as while Kilo loads.
func composer(agent string) string {
	line := "  ┃"
	if agent != "" {
		line += "  " + agent + "  · fake-model Fake"
	}
	return strings.Join([]string{"  ┃", "  ┃  Ask anything…", "  ┃", line,
		"  ╹" + strings.Repeat("▀", 60), "                    tab agents  ctrl+p commands", ""}, "\n")
}

// Kilo's title names it; without a title, its composer does when the
// agent is one only Kilo has. OpenCode's agents, a blank agent line and a
// screen without the composer are not Kilo's; OpenCode's recogniser takes
// exactly the screens Kilo's leaves.
func TestRecognizeKiloByTitleOrItsOwnAgent(t *testing.T) {
	cases := []struct {
		title, capture string
		kilo, openCode bool
	}{
		{"Kilo CLI", "anything\n", true, false},
		{"Kilo CLI", composer("Build"), true, false},
		{"", composer("Code"), true, false},
		{"", composer("Orchestrator"), true, false},
		{"", composer("Build"), false, true},
		{"", composer("Plan"), false, true},
		{"", composer(""), false, false},
		{"OpenCode", composer("Code"), false, true},
		{"", "$ ls\n", false, false},
	}
	for _, c := range cases {
		if got := recognize(c.title, c.capture); got != c.kilo {
			t.Errorf("title %q, agent line %q: Kilo recognises it %v, want %v", c.title, lastBoxed(c.capture), got, c.kilo)
		}
		if got := opencode.Provider().Recognize(c.title, c.capture); got != c.openCode {
			t.Errorf("title %q, agent line %q: OpenCode recognises it %v, want %v", c.title, lastBoxed(c.capture), got, c.openCode)
		}
	}
}

// lastBoxed is the last "┃" line of a capture, to name a case.
func lastBoxed(capture string) string {
	last := ""
	for _, l := range strings.Split(capture, "\n") {
		if strings.Contains(l, "┃") {
			last = strings.TrimSpace(l)
		}
	}
	return last
}

package kilo

import (
	"slices"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// recognize reports a pane of Kilo Code (the registry matches the pane's
// command, kilo, by name; a node launcher names nothing): its title is
// Kilo's ("Kilo CLI"), or the composer's agent line, OpenCode's, names an
// agent only Kilo has ("┃  Code  · fake-model Fake") under a title that is
// not OpenCode's. In "Plan", an agent
// both have, only the title or the command tells them apart.
func recognize(title, capture string) bool {
	if strings.HasPrefix(title, "Kilo") {
		return true
	}
	if opencode.Titled(title) {
		return false
	}
	agent, ok := opencode.Agent(capture)
	return ok && slices.Contains(opencode.KiloAgents, agent)
}

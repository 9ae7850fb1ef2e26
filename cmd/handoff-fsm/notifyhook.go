package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// codexNotification is the part of Codex's notify payload the hook reads.
type codexNotification struct {
	Type          string   `json:"type"`
	InputMessages []string `json:"input-messages"`
}

// markCodexTurn marks the turn complete beside its response file when
// payload is Codex's agent-turn-complete notification for a prompt that
// carried a RESPONSE FILE INSTRUCTION, so a waiting send decides without
// reading the screen. codex reports whether payload was Codex's
// notification at all; problems go to stderr and never fail Codex's turn.
func markCodexTurn(payload []byte, stderr io.Writer) (codex bool) {
	var n codexNotification
	if json.Unmarshal(payload, &n) != nil || n.Type != "agent-turn-complete" {
		return false
	}
	path, ok := handoff.InstructionPath(strings.Join(n.InputMessages, "\n"))
	if !ok {
		return true // a turn handoff-fsm did not dispatch
	}
	if err := responsefile.MarkTurnComplete(path, payload); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm hook: %v\n", err)
	}
	return true
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

const notifyHookUsage = `usage: handoff-fsm notify-hook JSON

Codex runs its notify program with a JSON description of each completed turn as the last
argument. Configure it in Codex's config.toml:

  notify = ["handoff-fsm", "notify-hook"]

For a turn whose prompt carried a RESPONSE FILE INSTRUCTION, this marks the turn complete
beside that response file, and a waiting handoff-fsm send reacts at once, without reading the
screen (which it still polls). Anything else is ignored. It never fails Codex's turn: problems
go to stderr and the exit status is 0.
`

// codexNotification is the part of Codex's notify payload the hook reads.
type codexNotification struct {
	Type          string   `json:"type"`
	InputMessages []string `json:"input-messages"`
}

func runNotifyHook(_ context.Context, args []string, _ io.Reader, _, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(stderr, notifyHookUsage)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	payload := args[len(args)-1]
	var n codexNotification
	if err := json.Unmarshal([]byte(payload), &n); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm notify-hook: the notification is not JSON (%v); ignored\n", err)
		return exitOK
	}
	if n.Type != "agent-turn-complete" {
		return exitOK
	}
	path, ok := handoff.InstructionPath(strings.Join(n.InputMessages, "\n"))
	if !ok {
		return exitOK // a turn handoff-fsm did not dispatch
	}
	if err := responsefile.MarkTurnComplete(path, []byte(payload)); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm notify-hook: %v\n", err)
	}
	return exitOK
}

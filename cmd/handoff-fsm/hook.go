package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"time"

	"github.com/handoff-fsm/handoff-fsm/hookmark"
)

// hookDirEnv names the marker folder when --dir is not given.
const hookDirEnv = "HANDOFF_HOOK_DIR"

// runHook records one hook call of an agent CLI (Claude Code's hooks,
// Codex's notify program): the event's JSON comes on stdin (Claude Code's
// hooks) or as the last argument (Codex's notify program). A Codex turn
// whose input carried a RESPONSE FILE INSTRUCTION is marked complete beside
// that response file, where a waiting send looks; with --dir the call is
// also recorded as a hookmark marker (Claude Code: send --hook-dir DIR). It
// prints nothing on stdout and never exits 2: for Claude Code's Stop hook, 2
// would mean "do not stop".
func runHook(_ context.Context, args []string, stdin io.Reader, _, stderr io.Writer) int {
	cmd := newCmdline("hook", "usage: handoff-fsm hook [--dir DIR] [EVENT_JSON]\n"+
		"\nRecords an agent CLI's hook call as a marker in DIR ($"+hookDirEnv+" when --dir is absent):\n"+
		"DIR/<event>.json (stopped, failed, waiting, submitted) and DIR/events.jsonl.\n"+
		"The event's JSON is read from stdin, or taken from the last argument.\n"+
		"Codex, in config.toml (no --dir needed: the turn is marked beside its response file):\n"+
		"  notify = [\"handoff-fsm\", \"hook\"]\n"+
		"Claude Code, in ~/.claude/settings.json (then send --hook-dir DIR):\n"+
		"  {\"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"handoff-fsm hook --dir /w/.tmp/agent-events/analyst\"}]}]}}\n"+
		"\nflags:\n", stderr)
	dir := cmd.String("dir", os.Getenv(hookDirEnv), "the marker folder, one per agent")
	pos, code, ok := cmd.parse(args)
	if !ok {
		if code == exitOK { // -h
			return exitOK
		}
		return exitFailure // never exitUsage (2): it would block Claude Code's Stop
	}
	var payload []byte
	if len(pos) > 0 {
		payload = []byte(pos[len(pos)-1])
	} else {
		b, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
		if err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
		payload = b
	}
	codex := markCodexTurn(payload, stderr)
	if *dir == "" {
		if codex {
			return exitOK // Codex's notify program: never fail its turn
		}
		return cmd.fail(exitFailure, "--dir (or $%s) is required", hookDirEnv)
	}
	m, err := hookmark.Parse(bytes.NewReader(payload), time.Now())
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	if _, err := hookmark.Write(*dir, m); err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	return exitOK
}

package screen

import (
	"encoding/json"
	"path/filepath"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Launch is how a team starts the CLI (`handoff-fsm up`): how its turn-end
// hook is wired for one run without touching the user's own
// configuration, and how it goes on with its last session after its
// process died. The zero value: no hook, no resume.
type Launch struct {
	// Hook is how the CLI is told to run cmd (argv) at the end of each
	// turn, with files the folder for any file it needs; nil: the CLI has
	// no command hook.
	Hook func(files string, cmd []string) Wiring
	// Via says, for people, how Hook wires it ("-c notify=[…]").
	Via string
	// Resume are the arguments that continue the CLI's most recent session
	// in its work folder, put before the agent's own arguments.
	Resume []string
	// Secure, when set, checks a file Hook wrote: the CLI ignores one that
	// fails it (with the reason as the error).
	Secure func(path string) error
	// Own, when set, gives each agent of a team a place of its own for
	// what Resume goes on with, hook or no hook: a CLI that keeps its
	// sessions per user, not per folder or per process, would otherwise
	// resume another agent's newest session. files is the agent's folder
	// of per-run files; env is its variables from the team file (its HOME,
	// say), which the user's own settings are looked up under first.
	Own func(files string, env map[string]string) Wiring
}

// Wiring is one agent's hook (or its own place, Launch.Own): arguments to
// add, variables to set, files to write and symbolic links to make first
// (absolute paths; Links maps a link to its target).
type Wiring struct {
	Args  []string
	Env   map[string]string
	Files map[string][]byte
	Links map[string]string
}

// HooksJSON is a settings file holding one command hook for event, in the
// form Claude Code, Gemini CLI and Qwen Code share.
func HooksJSON(event string, cmd []string) []byte {
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = handoff.ShellQuote(a)
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{event: []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": strings.Join(quoted, " ")}},
	}}}}, "", "  ")
	return append(b, '\n')
}

// SystemDefaults is the Hook of a CLI that merges a system-defaults
// settings file whose path the variable env may move (Gemini CLI and its
// fork Qwen Code: the lowest of their settings layers, and hooks from every
// layer run): the file holds one command hook for event.
func SystemDefaults(env, event string) func(files string, cmd []string) Wiring {
	return func(files string, cmd []string) Wiring {
		f := filepath.Join(files, "system-defaults.json")
		return Wiring{Env: map[string]string{env: f}, Files: map[string][]byte{f: HooksJSON(event, cmd)}}
	}
}

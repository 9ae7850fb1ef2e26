package team

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// launch is what `up` knows about starting one agent CLI for a team: how
// to wire its turn-end hook for this run only, without touching the
// user's own configuration, and how it goes on with its last session
// after its process died. The CLIs differ in both, so each has a line in
// launches; a provider without a line (one from a provider file) gets
// neither.
type launch struct {
	// hook is how the CLI is told to run cmd (argv) at the end of each
	// turn: arguments to add, variables to set, files to write first
	// (absolute paths). nil: the CLI has no such hook.
	hook func(files string, cmd []string) wiring
	// via says, for people, what hook does ("-c notify=[…]").
	via string
	// resume are the arguments that continue the CLI's most recent
	// session in its work folder, put before the agent's own arguments.
	resume []string
}

// wiring is one agent's hook, as arguments, environment and files.
type wiring struct {
	args  []string
	env   map[string]string
	files map[string][]byte
}

// launches holds the CLIs `up` knows how to wire and resume, by provider.
// Verified on the pinned versions (e2e/team_test.go for codex, claude and
// gemini).
func launches() map[string]launch {
	return map[string]launch{
		// Codex runs its notify program with each finished turn's JSON as
		// its last argument; -c overrides config.toml for this process.
		"codex": {hook: func(_ string, cmd []string) wiring {
			return wiring{args: []string{"-c", "notify=" + tomlArray(cmd)}}
		}, via: "-c notify=[…]", resume: []string{"resume", "--last"}},
		// Claude Code reads more settings from --settings FILE, merged with
		// the user's; its Stop hook gets the event's JSON on stdin.
		"claude": {hook: func(files string, cmd []string) wiring {
			f := filepath.Join(files, "claude-settings.json")
			return wiring{args: []string{"--settings", f}, files: map[string][]byte{f: hooksJSON("Stop", cmd)}}
		}, via: "--settings FILE (a Stop hook)", resume: []string{"--continue"}},
		// Gemini CLI and Qwen Code merge a system-defaults file (the
		// lowest of their settings layers; hooks from every layer run)
		// whose path an environment variable may move.
		"gemini": {hook: func(files string, cmd []string) wiring {
			return settingsDefaults(files, "GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "AfterAgent", cmd)
		}, via: "$GEMINI_CLI_SYSTEM_DEFAULTS_PATH (an AfterAgent hook)", resume: []string{"--resume", "latest"}},
		"qwen": {hook: func(files string, cmd []string) wiring {
			return settingsDefaults(files, "QWEN_CODE_SYSTEM_DEFAULTS_PATH", "Stop", cmd)
		}, via: "$QWEN_CODE_SYSTEM_DEFAULTS_PATH (a Stop hook)", resume: []string{"--continue"}},
		// OpenCode and pi have plug-ins and extensions, no command hook:
		// their screens and response files decide alone.
		"opencode": {resume: []string{"--continue"}},
		"pi":       {resume: []string{"--continue"}},
	}
}

func settingsDefaults(files, env, event string, cmd []string) wiring {
	f := filepath.Join(files, "system-defaults.json")
	return wiring{env: map[string]string{env: f}, files: map[string][]byte{f: hooksJSON(event, cmd)}}
}

// hooksJSON is a settings file holding one command hook for event, in the
// form Claude Code, Gemini CLI and Qwen Code share.
func hooksJSON(event string, cmd []string) []byte {
	line := ""
	for i, a := range cmd {
		if i > 0 {
			line += " "
		}
		line += handoff.ShellQuote(a)
	}
	b, _ := json.MarshalIndent(map[string]any{"hooks": map[string]any{event: []any{map[string]any{
		"hooks": []any{map[string]any{"type": "command", "command": line}},
	}}}}, "", "  ")
	return append(b, '\n')
}

// tomlArray is argv as a TOML array of strings: a JSON string is a valid
// TOML basic string (both escape quotes, backslashes and control
// characters the same way, \uXXXX included).
func tomlArray(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

// HookDir is the folder an agent's turn-end hook writes its markers to
// (`handoff-fsm hook --dir`), one per agent: hooks do not know the role.
func (a Agent) HookDir() string {
	return filepath.Join(a.Workdir, ".tmp", "agent-events", a.Role)
}

// filesDir is where up writes an agent's per-run settings files.
func (a Agent) filesDir() string {
	return filepath.Join(a.Workdir, ".tmp", "handoff-team", a.Role)
}

// Hook says how an agent's turn-end hook is wired for a team run: by
// which of its CLI's means, or why it is not.
func Hook(a Agent, exe string) string {
	l, ok := launches()[a.Provider]
	switch {
	case exe == "":
		return "not wired (no handoff-fsm executable to run)"
	case !ok || l.hook == nil:
		return "none (" + a.Provider + " has no command hook)"
	}
	w := l.hook(a.filesDir(), nil)
	for k := range w.env {
		if _, set := a.Env[k]; set {
			return "not wired (the team file sets " + k + ")"
		}
	}
	return l.via
}

// Resume is the arguments that make a's CLI go on with its last session,
// nil when it has none.
func Resume(a Agent) []string {
	return slices.Clone(launches()[a.Provider].resume)
}

// wire returns a's arguments and environment for this run with its
// turn-end hook wired to `exe hook --dir a.HookDir()` (when a's CLI has
// one and exe is set), having written the files it needs; and with its
// CLI's resume arguments first when resume is set. hooked says whether
// the hook is wired.
func wire(a Agent, exe string, resume bool) (args []string, env map[string]string, hooked bool, err error) {
	l, known := launches()[a.Provider]
	if resume {
		args = append(args, l.resume...)
	}
	args = append(args, a.Args...)
	env = map[string]string{}
	for k, v := range a.Env {
		env[k] = v
	}
	if !known || l.hook == nil || exe == "" {
		return args, env, false, nil
	}
	w := l.hook(a.filesDir(), []string{exe, "hook", "--dir", a.HookDir()})
	for k := range w.env {
		if _, set := a.Env[k]; set {
			// The user's own value wins; the screen and the response file
			// still decide.
			return args, env, false, nil
		}
	}
	for path, data := range w.files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, nil, false, fmt.Errorf("the hook's settings: %w", err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, nil, false, fmt.Errorf("the hook's settings: %w", err)
		}
	}
	if err := os.MkdirAll(a.HookDir(), 0o755); err != nil {
		return nil, nil, false, fmt.Errorf("the hook's folder: %w", err)
	}
	for k, v := range w.env {
		env[k] = v
	}
	return append(args, w.args...), env, true, nil
}

package team

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"

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
	// secure, when set, checks a settings file hook wrote: the CLI would
	// ignore it otherwise.
	secure func(path string) error
}

// wiring is one agent's hook, as arguments, environment and files.
type wiring struct {
	args  []string
	env   map[string]string
	files map[string][]byte
}

// launches holds the CLIs `up` knows how to wire and resume, by provider.
// Each line is proven on its CLI's pinned version by e2e/team_test.go.
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
		}, via: "$GEMINI_CLI_SYSTEM_DEFAULTS_PATH (an AfterAgent hook)", resume: []string{"--resume", "latest"}, secure: rootOwned},
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

// FilesDir is where up writes the per-run settings files of the agent
// with the given role: in the user's cache folder (Gemini CLI reads a
// settings file only from folders no other user may write), one folder
// per team (its tmux socket and session). Down removes it.
func (t *Team) FilesDir(role string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = filepath.Join(t.Workdir, ".tmp")
	}
	return filepath.Join(base, "handoff-fsm", "team", t.Socket+"."+t.Session, role)
}

// HookVia says how an agent's turn-end hook is wired: by which of its
// CLI's means ("" when its CLI has none).
func HookVia(provider string) string { return launches()[provider].via }

// Resume is the arguments that make a's CLI go on with its last session,
// nil when it has none.
func Resume(a Agent) []string {
	return slices.Clone(launches()[a.Provider].resume)
}

// wired is an agent's command line for one start.
type wired struct {
	args []string
	env  map[string]string
	// hookDir is the hook's marker folder, "" when no hook is wired;
	// hook says how it is wired, or why not.
	hookDir, hook string
}

// wire returns a's arguments and environment for this run with its
// turn-end hook wired to `exe hook --dir a.HookDir()` (when a's CLI has
// one and exe is set), having written the files it needs into files; and
// with its CLI's resume arguments first when resume is set.
func wire(a Agent, exe, files string, resume bool) (wired, error) {
	l, known := launches()[a.Provider]
	w := wired{env: map[string]string{}}
	if resume {
		w.args = append(w.args, l.resume...)
	}
	w.args = append(w.args, a.Args...)
	for k, v := range a.Env {
		w.env[k] = v
	}
	switch {
	case !known || l.hook == nil:
		w.hook = "none (" + a.Provider + " has no command hook)"
		return w, nil
	case exe == "":
		w.hook = "not wired (no handoff-fsm executable to run)"
		return w, nil
	}
	h := l.hook(files, []string{exe, "hook", "--dir", a.HookDir()})
	for k := range h.env {
		if _, set := a.Env[k]; set {
			// The user's own value wins; the screen and the response file
			// still decide.
			w.hook = "not wired (the team file sets " + k + ")"
			return w, nil
		}
	}
	if err := os.MkdirAll(files, 0o755); err != nil {
		return w, fmt.Errorf("the hook's settings: %w", err)
	}
	for path, data := range h.files {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return w, fmt.Errorf("the hook's settings: %w", err)
		}
		if l.secure != nil {
			if err := l.secure(path); err != nil {
				w.hook = "not wired (" + err.Error() + ")"
				return w, nil
			}
		}
	}
	if err := os.MkdirAll(a.HookDir(), 0o755); err != nil {
		return w, fmt.Errorf("the hook's folder: %w", err)
	}
	for k, v := range h.env {
		w.env[k] = v
	}
	w.args = append(w.args, h.args...)
	w.hookDir, w.hook = a.HookDir(), l.via
	return w, nil
}

// rootOwned is Gemini CLI's rule for a system settings file: it and every
// folder above it owned by root and writable by no group or other user;
// Gemini CLI skips any other (with a warning on its screen).
func rootOwned(path string) error {
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			return fmt.Errorf("Gemini CLI reads a per-run settings file only when root owns it and the folders above it; %s is not root's", p)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("Gemini CLI reads a per-run settings file only from folders no group or other user may write; %s may be", p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

package team

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// Each CLI's turn-end hook is wired by its own means for this run only:
// Codex by -c notify (a TOML array Codex parses back to the command),
// Claude Code by --settings FILE, Gemini CLI and Qwen Code by a
// system-defaults file an environment variable names (Gemini CLI only
// from folders only root may write); OpenCode and pi have none. Each hook runs `EXE hook --dir <workdir>/.tmp/agent-events/ROLE`.
func TestWireGivesEachCLIItsHook(t *testing.T) {
	exe := "/opt/handoff fsm/handoff-fsm" // a blank and a quote-worthy path
	for _, tc := range []struct {
		provider, env, event string
		flag                 string
	}{
		{provider: "codex", flag: "-c"},
		{provider: "claude", flag: "--settings", event: "Stop"},
		{provider: "gemini"}, // root's folders only: e2e/team_test.go
		{provider: "qwen", env: "QWEN_CODE_SYSTEM_DEFAULTS_PATH", event: "Stop"},
		{provider: "opencode"},
		{provider: "pi"},
	} {
		t.Run(tc.provider, func(t *testing.T) {
			work, files := t.TempDir(), t.TempDir()
			if tc.provider == "gemini" {
				// A folder any user may write: Gemini CLI would skip a
				// settings file in it, so up wires nothing there.
				if err := os.Chmod(files, 0o777); err != nil {
					t.Fatal(err)
				}
			}
			a := Agent{Role: "programmer", Provider: tc.provider, Command: tc.provider, Args: []string{"--model", "m"}, Workdir: work}
			w, err := wire(a, exe, files, false)
			if err != nil {
				t.Fatal(err)
			}
			hookDir := filepath.Join(work, ".tmp", "agent-events", "programmer")
			wantCmd := []string{exe, "hook", "--dir", hookDir}
			if !slices.Equal(w.args[:2], []string{"--model", "m"}) {
				t.Errorf("args %q: the agent's own arguments come first", w.args)
			}
			var settings string
			switch {
			case tc.provider == "codex":
				if len(w.args) != 4 || w.args[2] != "-c" || !strings.HasPrefix(w.args[3], "notify=") {
					t.Fatalf("args %q, want -c notify=[…]", w.args)
				}
				var v struct{ Notify []string }
				if _, err := toml.Decode("notify = "+strings.TrimPrefix(w.args[3], "notify="), &v); err != nil || !slices.Equal(v.Notify, wantCmd) {
					t.Errorf("notify %q reads as %q (%v), want %q", w.args[3], v.Notify, err, wantCmd)
				}
			case tc.flag == "--settings":
				if len(w.args) != 4 || w.args[2] != "--settings" {
					t.Fatalf("args %q, want --settings FILE", w.args)
				}
				settings = w.args[3]
			case tc.provider == "gemini":
				if w.hookDir != "" || len(w.env) != 0 || !strings.HasPrefix(w.hook, "not wired (Gemini CLI reads a per-run settings file only") {
					t.Errorf("Gemini CLI's hook wired from a folder others may write: env %v, hook %q", w.env, w.hook)
				}
				return
			case tc.env != "":
				settings = w.env[tc.env]
				if settings == "" {
					t.Fatalf("env %v does not set %s", w.env, tc.env)
				}
			default:
				if w.hookDir != "" || !strings.HasPrefix(w.hook, "none (") || len(w.args) != 2 || len(w.env) != 0 {
					t.Errorf("%s has no hook, got args %q env %v hook %q", tc.provider, w.args, w.env, w.hook)
				}
				return
			}
			if w.hookDir != hookDir {
				t.Errorf("hook folder %q, want %q", w.hookDir, hookDir)
			}
			if settings == "" {
				return
			}
			if !strings.HasPrefix(settings, files) {
				t.Errorf("settings file %s is not in the run's folder %s", settings, files)
			}
			b, err := os.ReadFile(settings)
			if err != nil {
				t.Fatal(err)
			}
			var s struct {
				Hooks map[string][]struct {
					Hooks []struct{ Type, Command string }
				}
			}
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			hooks := s.Hooks[tc.event]
			if len(s.Hooks) != 1 || len(hooks) != 1 || len(hooks[0].Hooks) != 1 || hooks[0].Hooks[0].Type != "command" {
				t.Fatalf("settings %s", b)
			}
			if got := hooks[0].Hooks[0].Command; got != "'/opt/handoff fsm/handoff-fsm' 'hook' '--dir' '"+hookDir+"'" {
				t.Errorf("hook command %q", got)
			}
		})
	}
}

// A restart goes on with the CLI's last session: its resume arguments
// come before the agent's own. A CLI that needs a variable the team file
// sets keeps the user's value, without the hook.
func TestWireResumesAndKeepsTheUsersVariable(t *testing.T) {
	a := Agent{Role: "tester", Provider: "codex", Command: "codex", Args: []string{"--model", "m"}, Workdir: t.TempDir()}
	w, err := wire(a, "/bin/handoff-fsm", t.TempDir(), true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.args[:4], []string{"resume", "--last", "--model", "m"}) {
		t.Errorf("args %q, want codex resume --last before the agent's own", w.args)
	}
	a = Agent{Role: "tester", Provider: "qwen", Command: "qwen", Workdir: t.TempDir(),
		Env: map[string]string{"QWEN_CODE_SYSTEM_DEFAULTS_PATH": "/etc/mine.json"}}
	w, err = wire(a, "/bin/handoff-fsm", t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	if w.env["QWEN_CODE_SYSTEM_DEFAULTS_PATH"] != "/etc/mine.json" || w.hookDir != "" || !strings.Contains(w.hook, "the team file sets QWEN_CODE_SYSTEM_DEFAULTS_PATH") {
		t.Errorf("env %v hook %q: the user's value should win, without the hook", w.env, w.hook)
	}
}

// Continue keeps its sessions per user (--resume takes the newest of its
// global folder), so each agent gets a global folder of its own, with or
// without a hook: every entry of the user's but sessions/ is linked in
// (the team file's HOME says where the user's is), and a second start
// (the restart after a kill) finds the agent's sessions where it left
// them. Removing the agent's folder, as down does, leaves the user's
// files alone.
func TestWireGivesEachContinueAgentItsOwnSessions(t *testing.T) {
	home := t.TempDir()
	user := filepath.Join(home, ".continue")
	for path, data := range map[string]string{"config.yaml": "name: mine\n", ".env": "KEY=1\n", "rules/style.md": "Be brief.\n", "sessions/other.json": "{}"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(user, path)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, path), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("CONTINUE_GLOBAL_DIR", "")
	files := t.TempDir()
	dirs := map[string]string{}
	for _, role := range []string{"analyst", "tester"} {
		a := Agent{Role: role, Provider: "continue", Command: "cn", Args: []string{"--auto"}, Workdir: t.TempDir(), Env: map[string]string{"HOME": home}}
		for _, resume := range []bool{false, true} {
			w, err := wire(a, "", filepath.Join(files, role), resume)
			if err != nil {
				t.Fatal(err)
			}
			dirs[role] = w.env["CONTINUE_GLOBAL_DIR"]
			if want := filepath.Join(files, role, "continue"); dirs[role] != want {
				t.Fatalf("%s: CONTINUE_GLOBAL_DIR = %q, want %q", role, dirs[role], want)
			}
			if resume && !slices.Equal(w.args, []string{"--resume", "--auto"}) {
				t.Errorf("%s restarted with %q, want --resume before its own arguments", role, w.args)
			}
			if w.env["HOME"] != home || !strings.HasPrefix(w.hook, "none (") {
				t.Errorf("%s: env %v hook %q", role, w.env, w.hook)
			}
		}
		for _, name := range []string{"config.yaml", ".env", filepath.Join("rules", "style.md")} {
			if b, err := os.ReadFile(filepath.Join(dirs[role], name)); err != nil || !strings.Contains(string(b), map[string]string{"config.yaml": "mine", ".env": "KEY", filepath.Join("rules", "style.md"): "brief"}[name]) {
				t.Errorf("%s: the user's %s reads %q (%v) in the agent's folder", role, name, b, err)
			}
		}
		if _, err := os.Lstat(filepath.Join(dirs[role], "sessions")); !os.IsNotExist(err) {
			t.Errorf("%s: the user's sessions are in the agent's folder (%v)", role, err)
		}
		// What Continue writes there: the agent's own session.
		if err := os.MkdirAll(filepath.Join(dirs[role], "sessions"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dirs[role], "sessions", role+".json"), []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if dirs["analyst"] == dirs["tester"] {
		t.Fatalf("both agents share %s", dirs["analyst"])
	}
	a := Agent{Role: "analyst", Provider: "continue", Command: "cn", Workdir: t.TempDir(), Env: map[string]string{"HOME": home}}
	if _, err := wire(a, "", filepath.Join(files, "analyst"), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dirs["analyst"], "sessions", "analyst.json")); err != nil {
		t.Errorf("a restart lost the agent's session: %v", err)
	}
	if err := os.RemoveAll(files); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"config.yaml", ".env", filepath.Join("rules", "style.md"), filepath.Join("sessions", "other.json")} {
		if _, err := os.Stat(filepath.Join(user, name)); err != nil {
			t.Errorf("removing the agents' folders removed the user's %s: %v", name, err)
		}
	}
}

package kimi

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// hook wires Kimi Code's Stop hook for one run. Kimi Code reads hooks
// only from config.toml in its home (KIMI_CODE_HOME, ~/.kimi-code by
// default), and has no flag that adds a settings file: the run gets a
// home of its own, files/kimi-code, whose config.toml is the user's
// (providers, models, settings) with a [[hooks]] entry for Stop appended.
// The user's own files stay untouched; what Kimi Code keeps in its home
// (sessions, a login stored in a file) is the run's.
func hook(files string, cmd []string) screen.Wiring {
	home := filepath.Join(files, "kimi-code")
	return screen.Wiring{Env: map[string]string{"KIMI_CODE_HOME": home},
		Files: map[string][]byte{filepath.Join(home, "config.toml"): HookConfig(userConfig(), cmd)}}
}

// userConfig is the user's config.toml, empty when there is none.
func userConfig() []byte {
	home := os.Getenv("KIMI_CODE_HOME")
	if home == "" {
		dir, err := os.UserHomeDir()
		if err != nil {
			return nil
		}
		home = filepath.Join(dir, ".kimi-code")
	}
	b, _ := os.ReadFile(filepath.Join(home, "config.toml"))
	return b
}

// HookConfig is config with a [[hooks]] entry appended that runs cmd
// (argv, shell-quoted) on Stop: TOML's arrays of tables may be appended
// to at the end of a document.
func HookConfig(config []byte, cmd []string) []byte {
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = handoff.ShellQuote(a)
	}
	var b strings.Builder
	b.Write(config)
	if len(config) > 0 && config[len(config)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("\n[[hooks]]\nevent = \"Stop\"\ncommand = " + tomlString(strings.Join(quoted, " ")) + "\n")
	return []byte(b.String())
}

// tomlString is s as a TOML literal string when it holds no single quote,
// else as a basic string with its backslashes and quotes escaped.
func tomlString(s string) string {
	if !strings.ContainsAny(s, "'\n") {
		return "'" + s + "'"
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

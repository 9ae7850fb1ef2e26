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
// (sessions, a login stored in a file) is the run's. The folders the user
// trusted (one record each in the home's workspace-trust/) are copied in,
// so that the run's Kimi Code does not ask again what the user answered:
// without them every first up would stop at "Trust this folder?".
func hook(files string, cmd []string) screen.Wiring {
	home := filepath.Join(files, "kimi-code")
	user := userHome()
	w := screen.Wiring{Env: map[string]string{"KIMI_CODE_HOME": home},
		Files: map[string][]byte{filepath.Join(home, "config.toml"): HookConfig(readFile(user, "config.toml"), cmd)}}
	if user == "" {
		return w
	}
	records, _ := os.ReadDir(filepath.Join(user, TrustDir))
	for _, r := range records {
		if r.Type().IsRegular() {
			if b := readFile(user, TrustDir, r.Name()); b != nil {
				w.Files[filepath.Join(home, TrustDir, r.Name())] = b
			}
		}
	}
	return w
}

// TrustDir is the folder of Kimi Code's home that holds one record per
// trusted work folder (a JSON file named after the folder: see the
// harness's realkimi.TrustRecord).
const TrustDir = "workspace-trust"

// userHome is the user's Kimi Code home (KIMI_CODE_HOME, else
// ~/.kimi-code), "" when there is no home folder.
func userHome() string {
	if home := os.Getenv("KIMI_CODE_HOME"); home != "" {
		return home
	}
	dir, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, ".kimi-code")
}

// readFile is the file at the path elem joins under home, nil when it
// cannot be read (or home is "").
func readFile(home string, elem ...string) []byte {
	if home == "" {
		return nil
	}
	b, _ := os.ReadFile(filepath.Join(append([]string{home}, elem...)...))
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

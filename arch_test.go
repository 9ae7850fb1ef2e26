package handoff_test

import (
	"os/exec"
	"strings"
	"testing"
)

// The engine and the tmux driver never name a provider: everything that
// knows one agent CLI's screens is chosen in provider/ by the command (or
// the library user).
func TestEngineAndDriverImportNoProvider(t *testing.T) {
	const mod = "github.com/handoff-fsm/handoff-fsm/"
	var providers []string
	for _, p := range []string{"codex", "claude", "gemini", "qwen", "opencode", "pi", "providerfile", "provider"} {
		providers = append(providers, mod+p)
	}
	for _, pkg := range []string{"./fsm", "./tmuxdriver", "./tmuxcontrol", "./responsefile", "./trace", "./screen", "."} {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, p := range providers {
				if dep == p || strings.HasPrefix(dep, p+"/") {
					t.Errorf("%s depends on %s", pkg, dep)
				}
			}
		}
	}
}

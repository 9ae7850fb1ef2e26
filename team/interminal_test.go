package team

import (
	"os/exec"
	"strings"
	"testing"
)

// An agent's pane is a terminal even when up runs in a CI job: its command
// unsets CI and CONTINUOUS_INTEGRATION (Continue, drawn with Ink, draws no
// composer while either is set), unless the team file sets them for it.
func TestAnAgentsPaneDoesNotInheritCI(t *testing.T) {
	t.Setenv("CI", "1")
	t.Setenv("CONTINUOUS_INTEGRATION", "true")
	for _, c := range []struct {
		name string
		env  map[string]string
		want string
	}{
		{"inherited", nil, "CI=unset CONTINUOUS_INTEGRATION=unset"},
		{"set by the team file", map[string]string{"CI": "0"}, "CI=0 CONTINUOUS_INTEGRATION=unset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := Agent{Role: "analyst", Provider: "opencode", Command: "/bin/sh", Env: c.env, Workdir: t.TempDir(),
				Args: []string{"-c", `echo "CI=${CI-unset} CONTINUOUS_INTEGRATION=${CONTINUOUS_INTEGRATION-unset}"`}}
			cmd, _, err := command(a, UpOptions{}, t.TempDir(), false)
			if err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command("/bin/sh", "-c", cmd).Output()
			if err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			if got := strings.TrimSpace(string(out)); got != c.want {
				t.Errorf("the agent's environment: %s, want %s (command %s)", got, c.want, cmd)
			}
		})
	}
}

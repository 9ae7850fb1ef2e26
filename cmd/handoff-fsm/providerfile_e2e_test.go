package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// simagentFile is the provider file that describes the simulated agent.
func simagentFile(t *testing.T) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "providerfile", "testdata", "simagent.toml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// A CLI described in a file is driven like a shipped one: send reads the
// simulated agent's screens with simagent.toml's rules, through a turn and
// an approval dialog, and returns the answer.
func TestSendWithAProviderFileOnRealTmux(t *testing.T) {
	cases := map[string]struct{ sim, args []string }{
		"a plain turn":           {},
		"an approval dialog too": {sim: []string{"--scenario", "asks"}, args: []string{"--auto-answer", "y"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			answer := "the answer read with a provider file"
			a := startAgent(t, append([]string{"--startup", "300ms", "--work", "500ms", "--stream", "300ms", "--answer", answer}, tc.sim...)...)
			args := append(a.sendArgs("--provider-file", simagentFile(t), "--poll", "250ms", "--prompt", "do it"), tc.args...)
			stdout, stderr, code := cli(t, "", args...)
			if code != exitOK {
				t.Fatalf("exit %d, want 0\n%s", code, stderr)
			}
			if strings.TrimSpace(stdout) != answer {
				t.Fatalf("stdout %q, want %q\n%s", stdout, answer, stderr)
			}
		})
	}
}

func TestProviderFileFlagErrors(t *testing.T) {
	file := simagentFile(t)
	for name, args := range map[string][]string{
		"with another --provider": {"classify", "--provider", "claude", "--provider-file", file, "-"},
		"a bad file":              {"classify", "--provider-file", filepath.Join(t.TempDir(), "x.toml"), "-"},
		"send with --state":       {"send", "--target", "%0", "--role", "analyst", "--provider-file", file, "--state", filepath.Join(t.TempDir(), "s.json"), "--prompt", "x"},
		"watch with no target":    {"watch", "--provider-file", file},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, code := cli(t, "", args...)
			if code != exitUsage || !strings.Contains(stderr, "provider-file") {
				t.Fatalf("exit %d, want %d with an error naming --provider-file\n%s", code, exitUsage, stderr)
			}
		})
	}
	stdout, stderr, code := cli(t, "› hi\n\n• hello\n\n  Worked for 1s\n\n› Ask Codex to do anything\n\n  m · /tmp\n", "classify", "--provider-file", file, "-")
	if code != exitOK || !strings.Contains(stdout, `"status":"completed"`) {
		t.Fatalf("classify: exit %d, %s %s", code, stdout, stderr)
	}
}

package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// An unusable --state path stops send before anything is sent.
func TestSendRefusesAnUnusableStatePath(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{dir, filepath.Join(dir, "missing", "s.json")} {
		_, stderr, code := cli(t, "", "send", "--socket", "hfrel-nowhere", "--target", "%0", "--role", "analyst",
			"--workdir", dir, "--state", p, "--prompt", "hi")
		if code != exitFailure || !strings.Contains(stderr, "--state") {
			t.Errorf("--state %s: exit %d\n%s", p, code, stderr)
		}
	}
}

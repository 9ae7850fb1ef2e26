package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxSaying puts a tmux first on PATH that answers -V with version and
// passes every other call to the real tmux; it returns the PATH.
func tmuxSaying(t *testing.T, version string) string {
	t.Helper()
	real, err := exec.LookPath("tmux")
	if err != nil {
		real = "/nonexistent/tmux"
	}
	dir := t.TempDir()
	script := "#!/bin/sh\nif [ \"$1\" = -V ]; then echo 'tmux " + version + "'; exit 0; fi\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir + string(os.PathListSeparator) + os.Getenv("PATH")
}

// runWithPath runs handoff-fsm with args and PATH.
func runWithPath(t *testing.T, path string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := cliCmd(ctx, args...)
	cmd.Env = append(cmd.Env, "PATH="+path)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// A tmux older than the oldest supported is a clear error (exit 1) that
// names both versions, before anything is sent.
func TestTooOldTmuxIsAClearError(t *testing.T) {
	path := tmuxSaying(t, "2.9a")
	for _, args := range [][]string{
		{"send", "--target", "%0", "--role", "analyst", "--workdir", t.TempDir(), "--prompt", "hi"},
		{"status", "--target", "%0"},
		{"watch", "--target", "%0"},
		{"watch", "--socket", "handoff-no-such-server"},
		{"demo"},
	} {
		_, stderr, code := runWithPath(t, path, args...)
		if code != exitFailure || !strings.Contains(stderr, "this is tmux 2.9a") || !strings.Contains(stderr, "needs tmux 3.0 or newer") {
			t.Errorf("%s: exit %d\n%s", args[0], code, stderr)
		}
	}
}

// send --control with tmux 3.1: control mode's output filtering needs 3.2,
// so send says so once and polls with a process per look; the dispatch ends
// as without --control.
func TestControlModeNeedsTmux32AndFallsBack(t *testing.T) {
	a := startAgent(t, quickAgent...)
	path := tmuxSaying(t, "3.1c")
	stdout, stderr, code := runWithPath(t, path, a.sendArgs(append(append([]string{}, quickWait...), "--control", "--prompt", "old tmux")...)...)
	if code != exitOK || stdout != "old tmux\n" {
		t.Fatalf("exit %d, stdout %q\n%s", code, stdout, stderr)
	}
	if strings.Count(stderr, "needs tmux 3.2") != 1 || !strings.Contains(stderr, "polling with one tmux process per look") {
		t.Errorf("stderr does not say once that control mode needs tmux 3.2:\n%s", stderr)
	}
}

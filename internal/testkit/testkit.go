// Package testkit is what the project's tests share: the check that tmux
// is there (a failure in CI, a skip saying so elsewhere), a bounded wait
// for a condition, a role's response file in a work folder, a buffer a
// running process writes to while the test reads it, and the build of a
// command the tests run. It holds no state and is imported by tests only.
package testkit

import (
	"bytes"
	"fmt"
	"os"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// RequireTmux skips the test when tmux is missing, except where CI is set:
// there the tests that need tmux must run, so it fails.
func RequireTmux(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("tmux is not installed but CI is set: the tests that need it must run in CI (%v)", err)
		}
		t.Skip("tmux is not installed; skipping the tests that need a real tmux server")
	}
}

// WaitTimeout bounds WaitFor: long enough for a loaded two-core machine,
// and only ever spent when the test fails.
const WaitTimeout = 30 * time.Second

// WaitFor polls cond every 10 ms until it holds, failing the test after
// WaitTimeout with what it waited for.
func WaitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(WaitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", WaitTimeout, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// ResponseFile is role's response file in work, with its folder made
// (responsefile.EnsureDir) as a dispatch makes it.
func ResponseFile(t testing.TB, work, role string) string {
	t.Helper()
	if err := responsefile.EnsureDir(work); err != nil {
		t.Fatal(err)
	}
	p, err := handoff.ResponsePath(work, role)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// Buffer is a bytes.Buffer that a running command (its Stdout or Stderr)
// writes to while the test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// GoBuild compiles the Go command pkg (as go build names it, relative to
// the test's folder) into out as scripts/release.sh builds a release:
// without cgo, with -trimpath. The tests then run the command as it ships,
// and CI compiles its dependencies once for them and the release
// snapshot's linux/amd64 binary, not once each (docs/testing.md).
func GoBuild(out, pkg string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

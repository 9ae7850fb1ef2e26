package filelock

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// A process started while the lock is held shares the lock's open file
// until it execs (here for its whole life, as ExtraFiles): a release must
// free the lock for the next taker all the same. Parallel dispatches in one
// process (the service) start tmux commands all the time; without this a
// just-released slot read as busy, its holder unknown.
func TestAReleaseFreesTheLockThatAChildShares(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slot.lock")
	l, err := TryLock(path, 0o644, []byte("1\n"))
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("sleep", "30")
	child.ExtraFiles = []*os.File{l.f}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	next, err := TryLock(path, 0o644, []byte("2\n"))
	if err != nil {
		t.Fatalf("after the release, with a child still sharing the file: %v", err)
	}
	_ = next.Release()
}

package filelock_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/filelock"
)

func TestTheHolderIsNamedWhileItHoldsAndForgottenAfter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	l, err := filelock.Acquire(context.Background(), path, 0o600, []byte("me"), false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := filelock.TryLock(path, 0o600, []byte("you")); !errors.Is(err, filelock.ErrHeld) {
		t.Fatalf("second: %v, want ErrHeld", err)
	}
	if got := string(filelock.Holder(path)); got != "me" {
		t.Fatalf("holder %q", got)
	}
	// A waiting Acquire ends with its context.
	ctx, cancel := context.WithTimeout(context.Background(), 3*filelock.Retry)
	defer cancel()
	if _, err := filelock.Acquire(ctx, path, 0o600, nil, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting on a held lock: %v", err)
	}
	if err := l.Release(); err != nil || l.Release() != nil {
		t.Fatalf("release: %v", err)
	}
	if filelock.Holder(path) != nil {
		t.Fatal("a free lock still names its last holder")
	}
	if !filelock.Alive(os.Getpid()) || filelock.Alive(0) {
		t.Fatal("Alive")
	}
	// Never through a symlink.
	link := filepath.Join(t.TempDir(), "link.lock")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := filelock.TryLock(link, 0o600, nil); err == nil || errors.Is(err, filelock.ErrHeld) {
		t.Fatalf("a symlinked lock file: %v", err)
	}
}

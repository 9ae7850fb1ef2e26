// Package filelock is an exclusive OS file lock (flock) that names its
// holder: the one mechanism behind the response slot lock
// (responsefile.Lock) and the pane lock (panelock.Lock).
//
// The lock belongs to the open file, so it holds across processes and
// between goroutines of one process alike (each Acquire opens the file
// anew), and the kernel releases it when the holder dies: no stale lock
// survives a crash. The holder writes a short record into the locked file
// (its pid, say) so that a refused caller can say who holds it.
package filelock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// ErrHeld is returned (wrapped) when another holder has the lock.
var ErrHeld = errors.New("lock held")

// Retry is how often a waiting Acquire tries again.
const Retry = 20 * time.Millisecond

// Lock is a held lock. Release frees it.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock on the file at path (created with perm, never
// through a symlink) and writes holder into it. When another holder has it,
// Acquire returns an error wrapping ErrHeld at once, or with wait tries
// again every Retry until the lock is free or ctx ends (ctx.Err()).
func Acquire(ctx context.Context, path string, perm os.FileMode, holder []byte, wait bool) (*Lock, error) {
	for {
		l, err := TryLock(path, perm, holder)
		if l != nil || !errors.Is(err, ErrHeld) || !wait {
			return l, err
		}
		t := time.NewTimer(Retry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// TryLock takes the lock once; the error wraps ErrHeld when it is held.
func TryLock(path string, perm os.FileMode, holder []byte) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW, perm)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	l, err := lockFile(f, holder)
	if err != nil {
		f.Close()
	}
	return l, err
}

// AcquireFile is Acquire on a lock file the caller opened (read-write) its
// own way: responsefile opens it inside a folder opened without following
// symlinks. The Lock owns f; f is closed when the lock is not taken.
func AcquireFile(ctx context.Context, f *os.File, holder []byte, wait bool) (*Lock, error) {
	for {
		l, err := lockFile(f, holder)
		if l != nil || !errors.Is(err, ErrHeld) || !wait {
			if l == nil {
				f.Close()
			}
			return l, err
		}
		t := time.NewTimer(Retry)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// lockFile takes the lock of the open file f once and writes holder into
// it; the error wraps ErrHeld when it is held. f stays open either way.
func lockFile(f *os.File, holder []byte) (*Lock, error) {
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			err = ErrHeld
		} else {
			err = fmt.Errorf("lock %s: %w", f.Name(), err)
		}
		return nil, err
	}
	// Who holds it, for the message another caller gets.
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(holder, 0)
	}
	return &Lock{f: f, path: f.Name()}, nil
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), how)
			if !errors.Is(ferr, unix.EINTR) {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// Holder reads the record the holder wrote; nil if there is none (the lock
// is free, or its holder has not written it yet). A holder that died
// without releasing leaves its record: check it is alive (Alive) before
// believing it.
func Holder(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil || len(b) == 0 {
		return nil
	}
	return b
}

// Alive reports whether a process with this pid exists (a record's holder
// that died is not).
func Alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}

// Path is the lock file.
func (l *Lock) Path() string { return l.path }

// Release frees the lock, emptying the holder's record first so that a
// reader does not take a free lock for a held one. Releasing twice is
// harmless. The file stays: removing it would let two holders lock two
// different files.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	_ = f.Truncate(0)
	// Unlocked before the close: a child forked while the lock was held
	// (any exec of this process, until it execs) shares the open file and
	// would keep the lock after our close; unlocking frees it for all.
	_ = flock(f, unix.LOCK_UN)
	return f.Close()
}

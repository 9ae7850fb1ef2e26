package responsefile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ErrSlotBusy is wrapped by Lock's error when another dispatch holds the
// response file's slot.
var ErrSlotBusy = errors.New("response slot busy")

// SlotBusyError says who holds a slot: the role, the work folder and the
// process (0 when the holder has not written its pid yet).
type SlotBusyError struct {
	Role    string
	Workdir string
	PID     int
}

func (e *SlotBusyError) Error() string {
	holder := "another dispatch (pid not known yet)"
	switch {
	case e.PID == os.Getpid():
		holder = fmt.Sprintf("another dispatch of this process (pid %d)", e.PID)
	case e.PID > 0:
		holder = fmt.Sprintf("the dispatch of pid %d", e.PID)
	}
	return fmt.Sprintf("%v: role %s in %s is held by %s, still waiting for its answer; wait for the slot (--wait-slot) or use another work folder",
		ErrSlotBusy, e.Role, e.Workdir, holder)
}

// Is makes errors.Is(err, ErrSlotBusy) true.
func (e *SlotBusyError) Is(target error) bool { return target == ErrSlotBusy }

// Slot is a response file held by one dispatch: an exclusive OS file lock
// (flock) on a lock file next to it. The lock belongs to the open file, so
// it holds across processes and between goroutines of one process alike,
// and the kernel releases it when the holder dies.
type Slot struct {
	f    *os.File
	path string
}

// LockPath is the lock file of the response file at path: .<name>.lock in
// the same folder. It is never removed (removing it would let two holders
// lock two different files).
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// slotRetry is how often a waiting Lock tries again.
const slotRetry = 20 * time.Millisecond

// Lock takes the slot of the response file at path (role and workdir name
// it in errors). When another dispatch holds it, Lock returns a
// *SlotBusyError (errors.Is ErrSlotBusy) at once, or with wait it tries
// again until the slot is free or ctx ends (ctx.Err()). The folder of path
// must exist (EnsureDir).
func Lock(ctx context.Context, path, role, workdir string, wait bool) (*Slot, error) {
	lp := LockPath(path)
	for {
		s, err := tryLock(lp)
		if s != nil || !errors.Is(err, ErrSlotBusy) {
			return s, err
		}
		if !wait {
			return nil, &SlotBusyError{Role: role, Workdir: workdir, PID: holder(lp)}
		}
		t := time.NewTimer(slotRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}

// tryLock takes the lock once; the error wraps ErrSlotBusy when it is held.
// The lock file is opened in the response folder, neither following a
// symlinked folder nor a symlink in its own place.
func tryLock(lp string) (*Slot, error) {
	d, name, err := openFolderOf(lp)
	if err != nil {
		return nil, fmt.Errorf("response slot lock %s: %w", lp, err)
	}
	f, err := d.open(name, unix.O_RDWR|unix.O_CREAT|unix.O_NOFOLLOW, 0o644)
	d.Close()
	if err != nil {
		return nil, fmt.Errorf("response slot lock %s: %w", lp, err)
	}
	if err := flock(f, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrSlotBusy
		}
		return nil, fmt.Errorf("response slot lock %s: %w", lp, err)
	}
	// The holder's pid, for the message another dispatch gets.
	pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt(pid, 0)
	}
	return &Slot{f: f, path: lp}, nil
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

// holder reads the pid the holder wrote into the lock file; 0 if none yet.
func holder(lp string) int {
	d, name, err := openFolderOf(lp)
	if err != nil {
		return 0
	}
	f, err := d.open(name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	d.Close()
	if err != nil {
		return 0
	}
	b, err := io.ReadAll(io.LimitReader(f, 64))
	f.Close()
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Path is the lock file.
func (s *Slot) Path() string { return s.path }

// Release frees the slot. Releasing twice is harmless.
func (s *Slot) Release() error {
	if s == nil || s.f == nil {
		return nil
	}
	f := s.f
	s.f = nil
	// Closing the file drops the lock; the pid is left for no one to read
	// (the next holder overwrites it).
	return f.Close()
}

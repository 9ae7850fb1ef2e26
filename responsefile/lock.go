package responsefile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/filelock"
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
// (filelock: flock) on a lock file next to it. The lock belongs to the open
// file, so it holds across processes and between goroutines of one process
// alike, and the kernel releases it when the holder dies.
type Slot struct {
	l *filelock.Lock
}

// LockPath is the lock file of the response file at path: .<name>.lock in
// the same folder. It is never removed (removing it would let two holders
// lock two different files).
func LockPath(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// Lock takes the slot of the response file at path (role and workdir name
// it in errors). When another dispatch holds it, Lock returns a
// *SlotBusyError (errors.Is ErrSlotBusy) at once, or with wait it tries
// again until the slot is free or ctx ends (ctx.Err()). The folder of path
// must exist (EnsureDir).
func Lock(ctx context.Context, path, role, workdir string, wait bool) (*Slot, error) {
	lp := LockPath(path)
	// The holder's pid, for the message another dispatch gets.
	l, err := filelock.Acquire(ctx, lp, 0o644, []byte(strconv.Itoa(os.Getpid())+"\n"), wait)
	switch {
	case errors.Is(err, filelock.ErrHeld):
		return nil, &SlotBusyError{Role: role, Workdir: workdir, PID: holder(lp)}
	case err != nil:
		return nil, fmt.Errorf("response slot %w", err)
	}
	return &Slot{l: l}, nil
}

// holder reads the pid the holder wrote into the lock file; 0 if none yet.
func holder(lp string) int {
	pid, err := strconv.Atoi(strings.TrimSpace(string(filelock.Holder(lp))))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// Path is the lock file.
func (s *Slot) Path() string { return s.l.Path() }

// Release frees the slot. Releasing twice is harmless.
func (s *Slot) Release() error {
	if s == nil {
		return nil
	}
	return s.l.Release()
}

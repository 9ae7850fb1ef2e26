// Package panelock keeps one dispatch per pane at a time, and remembers a
// dispatch that timed out while its agent still worked.
//
// A pane is shared state the response slot lock does not guard: two
// dispatches for two roles pasted into one pane land in one composer
// message. Lock takes an OS file lock (package filelock, the slot lock's
// mechanism) named for the pane — the terminal server and the pane id, so
// every way of naming the pane meets the same lock — in a per-user folder
// (Dir). It dies with its process. The holder's record (pid, role, since
// when) lets a refused dispatch, `status` and the board say who has the
// pane.
//
// A timed-out dispatch leaves its agent working: MarkTimedOut writes a
// small JSON marker beside the lock so that the next dispatch, `status`
// and the board can say "still working on the timed-out dispatch from …".
package panelock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/filelock"
)

// ErrPaneBusy is wrapped by Lock's error when another dispatch holds the
// pane.
var ErrPaneBusy = errors.New("pane busy")

// Holder is who holds a pane: the record a refused dispatch quotes.
type Holder struct {
	PID     int       `json:"pid"`
	Role    string    `json:"role"`
	Workdir string    `json:"workdir,omitempty"`
	Since   time.Time `json:"since"`
	// Pane names the pane for people (the lock is named by its key).
	Pane string `json:"pane"`
}

// String says who it is, for messages.
func (h Holder) String() string {
	who := fmt.Sprintf("the dispatch of pid %d", h.PID)
	if h.PID == os.Getpid() {
		who = fmt.Sprintf("another dispatch of this process (pid %d)", h.PID)
	}
	return fmt.Sprintf("%s for role %s, since %s (%v ago)", who, h.Role, h.Since.Format("15:04:05"),
		time.Since(h.Since).Round(time.Second))
}

// PaneBusyError says who holds a pane. Holder is the zero Holder when the
// holder has not written its record yet.
type PaneBusyError struct {
	Pane   string
	Holder Holder
}

func (e *PaneBusyError) Error() string {
	who := "another dispatch (not known yet)"
	if e.Holder.PID > 0 {
		who = e.Holder.String()
	}
	return fmt.Sprintf("%v: %s is held by %s; one dispatch per pane at a time (a second prompt would land in the same message): wait for it (--wait-slot) or use another pane",
		ErrPaneBusy, e.Pane, who)
}

// Is makes errors.Is(err, ErrPaneBusy) true.
func (e *PaneBusyError) Is(target error) bool { return target == ErrPaneBusy }

// Dir is the per-user folder of the pane locks and markers:
// $XDG_RUNTIME_DIR/handoff-fsm when that is set, else
// <temp dir>/handoff-fsm-<uid>. It is created mode 0700 and refused when it
// is a symlink, not this user's, or open to others.
func Dir() (string, error) {
	dir := filepath.Join(os.TempDir(), "handoff-fsm-"+strconv.Itoa(os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); rt != "" && filepath.IsAbs(rt) {
		dir = filepath.Join(rt, "handoff-fsm")
	}
	return dir, ensurePrivate(dir)
}

// ensurePrivate makes dir (0700) and checks nobody else can use it: a
// folder another user made first could be used to hold our locks.
func ensurePrivate(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return fmt.Errorf("pane lock folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("pane lock folder: %w", err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("pane lock folder %s is not a folder (a symlink?)", dir)
	case ok && int(st.Uid) != os.Getuid():
		return fmt.Errorf("pane lock folder %s belongs to uid %d, not to this user (%d)", dir, st.Uid, os.Getuid())
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("pane lock folder %s is open to others (mode %v); make it 0700", dir, fi.Mode().Perm())
	}
	return nil
}

// base is the file name stem of a pane's lock and marker: a hash of its key
// (socket paths can be long and hold any byte).
func base(dir string, id handoff.PaneIdentity) string {
	sum := sha256.Sum256([]byte(id.Key()))
	return filepath.Join(dir, "pane-"+hex.EncodeToString(sum[:12]))
}

// Lock is a held pane.
type Lock struct{ l *filelock.Lock }

// Acquire takes the pane id names, in the folder dir (Dir), for the
// dispatch h describes. When another dispatch holds it, it returns a
// *PaneBusyError (errors.Is ErrPaneBusy) at once, or with wait tries again
// until the pane is free or ctx ends.
func Acquire(ctx context.Context, dir string, id handoff.PaneIdentity, h Holder, wait bool) (*Lock, error) {
	if h.Pane == "" {
		h.Pane = id.String()
	}
	rec, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	path := base(dir, id) + ".lock"
	l, err := filelock.Acquire(ctx, path, 0o600, append(rec, '\n'), wait)
	switch {
	case errors.Is(err, filelock.ErrHeld):
		// The holder writes its record right after it locks: give it a
		// moment, so the refusal can say who it is.
		held, ok := HolderOf(dir, id)
		for i := 0; !ok && i < 10; i++ {
			time.Sleep(10 * time.Millisecond)
			held, ok = HolderOf(dir, id)
		}
		return nil, &PaneBusyError{Pane: id.String(), Holder: held}
	case err != nil:
		return nil, fmt.Errorf("pane %w", err)
	}
	return &Lock{l: l}, nil
}

// Release frees the pane. Releasing twice is harmless.
func (l *Lock) Release() error {
	if l == nil {
		return nil
	}
	return l.l.Release()
}

// HolderOf reads who holds the pane, for status displays; ok is false when
// nobody does (no record, or its process is gone).
func HolderOf(dir string, id handoff.PaneIdentity) (h Holder, ok bool) {
	b := filelock.Holder(base(dir, id) + ".lock")
	if b == nil || json.Unmarshal(b, &h) != nil || !filelock.Alive(h.PID) {
		return Holder{}, false
	}
	return h, true
}

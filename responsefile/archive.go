package responsefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// Archive keeps every response file the orchestrator takes away, under a
// per-run folder <workdir>/.tmp/run-<stamp>/, numbered in order:
// NNN-<role>.md for consumed responses, NNN-<role>.<kind>.md for stale or
// empty ones. Nothing an agent wrote is deleted, and no archived file is
// ever overwritten. It is safe for concurrent use.
type Archive struct {
	dir  string
	mu   sync.Mutex
	next int
}

// NewArchive returns the archive for a run started at now. The folder is
// created on first use.
func NewArchive(workdir string, now time.Time) *Archive {
	stamp := now.UTC().Format("20060102T150405.000Z")
	return &Archive{dir: filepath.Join(workdir, ".tmp", "run-"+stamp)}
}

// OpenArchive returns the archive in dir, numbering on after seq (the last
// number used), for a wait resumed in another process.
func OpenArchive(dir string, seq int) *Archive { return &Archive{dir: dir, next: seq} }

// Dir is the run's archive folder.
func (a *Archive) Dir() string { return a.dir }

// Seq is the last number used (0 before the first file).
func (a *Archive) Seq() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.next
}

// Archive kinds, the middle part of an archived file's name.
const (
	ArchiveConsumed = ""      // a response that was read and returned
	ArchiveStale    = "stale" // left over from an earlier dispatch
	ArchiveEmpty    = "empty" // empty or white space only, treated as absent
	// ArchiveMismatch: carries another dispatch's receipt, an answer to an
	// earlier prompt; never returned.
	ArchiveMismatch = "mismatch"
)

// Store moves the file at path into the archive as the next numbered entry
// for role, makes the move durable (the archive folder is synced), and
// returns where the file now is. kind is one of the Archive* kinds.
func (a *Archive) Store(path, role, kind string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return "", fmt.Errorf("create archive dir: %w (the file was left in place)", err)
	}
	failpoint("store: archive dir made")
	dst, err := a.place(path, role, kind)
	if err != nil {
		return "", fmt.Errorf("archive %s: %w (the file was left in place)", path, err)
	}
	return dst, nil
}

// rename gives an archived file (named by Store) the name of another kind,
// keeping its number; should that name be taken, it takes the next free one.
func (a *Archive) rename(archived, role, kind string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	base := filepath.Base(archived)
	num, _, ok := strings.Cut(base, "-")
	if ok && kind != "" {
		dst := filepath.Join(a.dir, fmt.Sprintf("%s-%s.%s.md", num, role, kind))
		if err := renameNoReplace(archived, dst); err == nil {
			failpoint("rename: renamed, dir not synced")
			return dst, syncDir(a.dir)
		} else if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return a.place(archived, role, kind)
}

// place moves src to the next free number; the caller holds a.mu.
func (a *Archive) place(src, role, kind string) (string, error) {
	for {
		a.next++
		name := fmt.Sprintf("%03d-%s.md", a.next, role)
		if kind != "" {
			name = fmt.Sprintf("%03d-%s.%s.md", a.next, role, kind)
		}
		dst := filepath.Join(a.dir, name)
		// Another run in the same millisecond could own this number: never
		// overwrite an archived file.
		switch err := renameNoReplace(src, dst); {
		case errors.Is(err, fs.ErrExist):
			continue
		case err != nil:
			return "", err
		}
		failpoint("place: renamed, dir not synced")
		if err := syncDir(a.dir); err != nil {
			return dst, fmt.Errorf("sync archive dir: %w (the file is in the archive as %s)", err, dst)
		}
		failpoint("place: dir synced")
		return dst, nil
	}
}

// renameNoReplace moves src to dst in one atomic step that fails with
// fs.ErrExist when dst exists, so a crash leaves the file in exactly one of
// the two places. Where the filesystem cannot do that, it checks first and
// renames (a race with another run could then replace a file; the numbers
// are per run, so only a run started in the same millisecond could).
func renameNoReplace(src, dst string) error {
	err := unix.Renameat2(unix.AT_FDCWD, src, unix.AT_FDCWD, dst, unix.RENAME_NOREPLACE)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, unix.EEXIST):
		return fs.ErrExist
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		if _, serr := os.Lstat(dst); serr == nil {
			return fs.ErrExist
		}
		return os.Rename(src, dst)
	}
	return &os.LinkError{Op: "rename", Old: src, New: dst, Err: err}
}

// failpoint marks a step of the consume path; tests that kill a process at
// each step set failpointHook (export_test.go). It is nil otherwise.
func failpoint(step string) {
	if failpointHook != nil {
		failpointHook(step)
	}
}

var failpointHook func(step string)

// syncDir makes the entries of dir (a rename into it) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// findConsumed returns the first response of role archived as consumed
// (NNN-role.md), empty (NNN-role.empty.md) or mismatched
// (NNN-role.mismatch.md) with a number after the last one used, with its
// kind, and moves the numbering on to it; ok is false when there is none.
// Stale files are not responses of this wait and are skipped.
func (a *Archive) findConsumed(role string) (path, kind string, ok bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	entries, err := os.ReadDir(a.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("read archive dir: %w", err)
	}
	best := 0
	for _, e := range entries {
		num, rest, found := strings.Cut(e.Name(), "-")
		n, nerr := strconv.Atoi(num)
		if !found || nerr != nil || n <= a.next || (best != 0 && n >= best) {
			continue
		}
		for _, k := range []string{ArchiveConsumed, ArchiveEmpty, ArchiveMismatch} {
			name := role + ".md"
			if k != ArchiveConsumed {
				name = role + "." + k + ".md"
			}
			if rest == name {
				best, path, kind = n, filepath.Join(a.dir, e.Name()), k
			}
		}
	}
	if best == 0 {
		return "", "", false, nil
	}
	a.next = best
	return path, kind, true, nil
}

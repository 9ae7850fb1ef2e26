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
	// move is how files are moved in; nil is the system's own no-replace
	// rename (osRename). The tests set the fallbacks to run them here.
	move renamer
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
	// ArchiveCancelled: left by a dispatch its owner cancelled (Abandon).
	ArchiveCancelled = "cancelled"
)

// Store moves the file at path into the archive as the next numbered entry
// for role, makes the move durable (the archive folder is synced), and
// returns where the file now is. kind is one of the Archive* kinds. Neither
// the file's folder nor the archive's is followed if it is a symlink
// (*FolderLinkError).
func (a *Archive) Store(path, role, kind string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	src, name, err := openFolderOf(path)
	if err != nil {
		return "", fmt.Errorf("archive %s: %w (the file was left in place)", path, err)
	}
	defer src.Close()
	dst, err := a.open(true)
	if err != nil {
		return "", fmt.Errorf("create archive dir: %w (the file was left in place)", err)
	}
	defer dst.Close()
	failpoint("store: archive dir made")
	archived, err := a.place(src, name, dst, role, kind)
	if err != nil {
		return "", fmt.Errorf("archive %s: %w (the file was left in place)", path, err)
	}
	return archived, nil
}

// open opens the archive folder, creating it with create.
func (a *Archive) open(create bool) (*folder, error) {
	root, rel := beneath(a.dir)
	return openFolder(root, rel, create)
}

// rename gives an archived file (named by Store) the name of another kind,
// keeping its number; should that name be taken, it takes the next free one.
func (a *Archive) rename(archived, role, kind string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.open(false)
	if err != nil {
		return "", err
	}
	defer d.Close()
	base := filepath.Base(archived)
	num, _, ok := strings.Cut(base, "-")
	if ok && kind != "" {
		name := fmt.Sprintf("%s-%s.%s.md", num, role, kind)
		if err := a.rename1(d, base, d, name); err == nil {
			failpoint("rename: renamed, dir not synced")
			return d.join(name), d.sync()
		} else if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
	return a.place(d, base, d, role, kind)
}

// place moves the entry name of src to the next free number in the archive
// folder dst; the caller holds a.mu.
func (a *Archive) place(src *folder, name string, dst *folder, role, kind string) (string, error) {
	for {
		a.next++
		to := fmt.Sprintf("%03d-%s.md", a.next, role)
		if kind != "" {
			to = fmt.Sprintf("%03d-%s.%s.md", a.next, role, kind)
		}
		// Another run in the same millisecond could own this number: never
		// overwrite an archived file.
		switch err := a.rename1(src, name, dst, to); {
		case errors.Is(err, fs.ErrExist):
			continue
		case err != nil:
			return "", err
		}
		failpoint("place: renamed, dir not synced")
		if err := dst.sync(); err != nil {
			return dst.join(to), fmt.Errorf("sync archive dir: %w (the file is in the archive as %s)", err, dst.join(to))
		}
		failpoint("place: dir synced")
		return dst.join(to), nil
	}
}

// rename1 moves the entry from of src to to in dst in one atomic step that
// fails with fs.ErrExist when to exists, so a crash leaves the file in
// exactly one of the two places (osRename says how each system does it).
func (a *Archive) rename1(src *folder, from string, dst *folder, to string) error {
	move := a.move
	if move == nil {
		move = osRename
	}
	err := move(src.fd(), from, dst.fd(), to)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	return &os.LinkError{Op: "rename", Old: src.join(from), New: dst.join(to), Err: err}
}

// failpoint marks a step of the consume path; tests that kill a process at
// each step set failpointHook (export_test.go). It is nil otherwise.
func failpoint(step string) {
	if failpointHook != nil {
		failpointHook(step)
	}
}

var failpointHook func(step string)

// findConsumed returns the first response of role archived as consumed
// (NNN-role.md), empty (NNN-role.empty.md) or mismatched
// (NNN-role.mismatch.md) with a number after the last one used, with its
// kind, and moves the numbering on to it; ok is false when there is none.
// Stale files are not responses of this wait and are skipped.
func (a *Archive) findConsumed(role string) (path, kind string, ok bool, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	d, err := a.open(false)
	if errors.Is(err, fs.ErrNotExist) {
		return "", "", false, nil
	}
	if err != nil {
		return "", "", false, fmt.Errorf("read archive dir: %w", err)
	}
	entries, err := d.f.ReadDir(-1)
	d.Close()
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
				best, path, kind = n, d.join(e.Name()), k
			}
		}
	}
	if best == 0 {
		return "", "", false, nil
	}
	a.next = best
	return path, kind, true, nil
}

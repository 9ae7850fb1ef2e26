package responsefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// ErrSymlinkedFolder is wrapped by the error for a response or archive
// folder that is a symlink or lies under one below the work folder (see
// FolderLinkError).
var ErrSymlinkedFolder = errors.New("symlinked folder refused")

// FolderLinkError says which folder below the work folder is a symlink, and
// where it points. Such a folder is never followed, so nothing outside the
// work folder is read, moved, locked or archived. It matches both
// ErrSymlinkedFolder and handoff.ErrResponseFile with errors.Is.
type FolderLinkError struct {
	Link    string // the symlink's path
	Target  string // what it points to
	Workdir string // the folder below which no symlink is followed
}

func (e *FolderLinkError) Error() string {
	return fmt.Sprintf("%v: %s is a symlink to %s; the response and archive folders must be real folders inside the work folder %s (remove the link)",
		ErrSymlinkedFolder, e.Link, e.Target, e.Workdir)
}

// Is makes errors.Is(err, ErrSymlinkedFolder) and errors.Is(err,
// handoff.ErrResponseFile) true.
func (e *FolderLinkError) Is(target error) bool {
	return target == ErrSymlinkedFolder || target == handoff.ErrResponseFile
}

// folder is one of the folders this package works in, open: the response
// folder <workdir>/.tmp/agent-responses or a run's archive
// <workdir>/.tmp/run-<stamp>. It was opened from the work folder down
// without following a symlink in any component below the work folder (the
// work folder itself may be reached through links: it is the user's
// choice). Every operation is on an entry of the open folder (openat,
// renameat, …), so it stays inside the folder that was checked even if a
// component is swapped for a link meanwhile.
type folder struct {
	f    *os.File
	path string
}

func (d *folder) fd() int { return int(d.f.Fd()) }

func (d *folder) Close() error { return d.f.Close() }

// join is the path of the entry name, for messages.
func (d *folder) join(name string) string { return filepath.Join(d.path, name) }

// beneath splits dir into the work folder and the components below it that
// must not be links: <workdir>/.tmp/<name> (the response folder, a run's
// archive) gives workdir and [.tmp, name]. Any other folder is one the
// caller chose (a hook folder, a test's archive): like the work folder, it
// is taken as given, and rel is empty.
func beneath(dir string) (root string, rel []string) {
	dir = filepath.Clean(dir)
	parent, name := filepath.Dir(dir), filepath.Base(dir)
	if filepath.Base(parent) == ".tmp" {
		return filepath.Dir(parent), []string{".tmp", name}
	}
	return dir, nil
}

// openFolderOf opens the folder holding the file at path.
func openFolderOf(path string) (*folder, string, error) {
	dir, name := filepath.Split(path)
	root, rel := beneath(dir)
	d, err := openFolder(root, rel, false)
	return d, name, err
}

// openFolder opens root/rel… without following a symlink in rel; with
// create it makes what is missing, root included (root is followed: it is
// the work folder, or a folder the caller chose). A missing folder is an
// error wrapping fs.ErrNotExist, a symlink a *FolderLinkError.
func openFolder(root string, rel []string, create bool) (*folder, error) {
	if create {
		if err := os.MkdirAll(root, 0o755); err != nil {
			return nil, err
		}
	}
	rootFd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: root, Err: err}
	}
	path := filepath.Join(append([]string{root}, rel...)...)
	if len(rel) == 0 {
		return &folder{f: os.NewFile(uintptr(rootFd), path), path: path}, nil
	}
	// One system call where the kernel resolves the whole path without
	// links (Linux 5.6+); otherwise, or when something is missing or in
	// the way, component by component, which creates and explains.
	if fd, err := openNoLinks(rootFd, strings.Join(rel, "/")); err == nil {
		unix.Close(rootFd)
		return &folder{f: os.NewFile(uintptr(fd), path), path: path}, nil
	}
	fd, err := walkFolder(rootFd, root, rel, create)
	if err != nil {
		return nil, err
	}
	return &folder{f: os.NewFile(uintptr(fd), path), path: path}, nil
}

// walkFolder opens root/rel… one component at a time from the open work
// folder dirFd (which it closes), each with O_NOFOLLOW|O_DIRECTORY, making
// missing ones with create. It works on every Unix.
func walkFolder(dirFd int, root string, rel []string, create bool) (int, error) {
	cur := dirFd
	at := root
	for _, name := range rel {
		if create {
			if err := unix.Mkdirat(cur, name, 0o755); err != nil && !errors.Is(err, unix.EEXIST) {
				unix.Close(cur)
				return -1, &fs.PathError{Op: "mkdir", Path: filepath.Join(at, name), Err: err}
			}
		}
		next, err := unix.Openat(cur, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			err = explain(cur, at, name, root, err)
			unix.Close(cur)
			return -1, err
		}
		unix.Close(cur)
		cur, at = next, filepath.Join(at, name)
	}
	return cur, nil
}

// explain turns the failure to open name in the folder dirFd (at path at)
// as a folder into a clear error: a symlink (each system reports it its own
// way: ELOOP, EMLINK on FreeBSD, ENOTDIR) is named with its target.
func explain(dirFd int, at, name, root string, err error) error {
	path := filepath.Join(at, name)
	var st unix.Stat_t
	if serr := unix.Fstatat(dirFd, name, &st, unix.AT_SYMLINK_NOFOLLOW); serr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		target := "?"
		buf := make([]byte, 4096)
		if n, rerr := unix.Readlinkat(dirFd, name, buf); rerr == nil {
			target = string(buf[:n])
		}
		return &FolderLinkError{Link: path, Target: target, Workdir: root}
	}
	return &fs.PathError{Op: "open", Path: path, Err: err}
}

// lstat looks at the entry name without following it; ok is false when there
// is none.
func (d *folder) lstat(name string) (st unix.Stat_t, ok bool, err error) {
	err = unix.Fstatat(d.fd(), name, &st, unix.AT_SYMLINK_NOFOLLOW)
	switch {
	case err == nil:
		return st, true, nil
	case errors.Is(err, unix.ENOENT):
		return st, false, nil
	}
	return st, false, &fs.PathError{Op: "lstat", Path: d.join(name), Err: err}
}

// open opens the entry name with flags (O_NOFOLLOW is the caller's to add).
func (d *folder) open(name string, flags int, perm uint32) (*os.File, error) {
	fd, err := unix.Openat(d.fd(), name, flags|unix.O_CLOEXEC, perm)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: d.join(name), Err: err}
	}
	return os.NewFile(uintptr(fd), d.join(name)), nil
}

// remove removes the entry name; none is not an error.
func (d *folder) remove(name string) error {
	if err := unix.Unlinkat(d.fd(), name, 0); err != nil && !errors.Is(err, unix.ENOENT) {
		return &fs.PathError{Op: "remove", Path: d.join(name), Err: err}
	}
	return nil
}

// sync makes the folder's entries (a rename into it) durable; on macOS
// (*os.File).Sync is F_FULLFSYNC, which reaches the disk, not just its
// cache.
func (d *folder) sync() error { return d.f.Sync() }

// notExist reports whether err says a folder or file is missing.
func notExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

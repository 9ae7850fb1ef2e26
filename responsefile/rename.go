package responsefile

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// A renamer moves the entry from in folder fromDir to to in folder toDir
// (descriptors; unix.AT_FDCWD for the current folder) without ever
// replacing an entry at to: it returns fs.ErrExist then, and the raw system
// error otherwise. Each system's best one is osRename (rename_<os>.go); the
// others are the fallbacks it uses, compiled on every Unix so that the
// tests run them all on Linux too.
type renamer func(fromDir int, from string, toDir int, to string) error

// linkRename moves with a hard link and an unlink, for systems without a
// no-replace rename (FreeBSD) or file systems that refuse it: link fails
// with EEXIST when to exists, so nothing is replaced. A crash between the two
// steps leaves the file under both names (one file, two names, nothing
// lost); Recover removes the name at the response path then. Where the file
// system has no hard links it falls back to checkRename.
func linkRename(fromDir int, from string, toDir int, to string) error {
	err := unix.Linkat(fromDir, from, toDir, to, 0) // 0: a symlink is linked, not followed
	switch {
	case errors.Is(err, unix.EEXIST):
		return fs.ErrExist
	case noHardLinks(err):
		return checkRename(fromDir, from, toDir, to)
	case err != nil:
		return err
	}
	failpoint("rename: linked, not unlinked")
	switch err := unix.Unlinkat(fromDir, from, 0); {
	case err == nil, errors.Is(err, unix.ENOENT):
		// Gone already (someone else moved it): the archive's name is its
		// only one now.
		return nil
	default:
		// The file is still at from: drop the second name, so it is in
		// one place.
		_ = unix.Unlinkat(toDir, to, 0)
		return err
	}
}

// noHardLinks reports whether link failed because the file system cannot
// make hard links (FAT, some network and FUSE file systems).
func noHardLinks(err error) bool {
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOTSUP) ||
		errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EMLINK) || errors.Is(err, unix.ENOSYS)
}

// checkRename is the last resort, where a file system has neither a
// no-replace rename nor hard links: look, then rename. A race with another
// run could then replace a file; archive numbers are per run, so only a
// run started in the same millisecond could.
func checkRename(fromDir int, from string, toDir int, to string) error {
	var st unix.Stat_t
	if err := unix.Fstatat(toDir, to, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil {
		return fs.ErrExist
	}
	return unix.Renameat(fromDir, from, toDir, to)
}

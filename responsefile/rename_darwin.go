package responsefile

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// osRename is renameatx_np with RENAME_EXCL (macOS 10.12+): one atomic step
// that fails with EEXIST when to exists. File systems that do not support
// it (ENOTSUP, EINVAL) get linkRename.
func osRename(fromDir int, from string, toDir int, to string) error {
	err := unix.RenameatxNp(fromDir, from, toDir, to, unix.RENAME_EXCL)
	switch {
	case errors.Is(err, unix.EEXIST):
		return fs.ErrExist
	case errors.Is(err, unix.ENOTSUP), errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return linkRename(fromDir, from, toDir, to)
	}
	return err
}

package responsefile

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// osRename is renameat2 with RENAME_NOREPLACE (Linux 3.15+): one atomic
// step that fails with EEXIST when to exists. File systems without it
// (EINVAL) and kernels without it (ENOSYS) get linkRename.
func osRename(fromDir int, from string, toDir int, to string) error {
	err := unix.Renameat2(fromDir, from, toDir, to, unix.RENAME_NOREPLACE)
	switch {
	case errors.Is(err, unix.EEXIST):
		return fs.ErrExist
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		return linkRename(fromDir, from, toDir, to)
	}
	return err
}

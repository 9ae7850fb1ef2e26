package dispatchstate

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at a and b in one atomic step: renameatx_np
// with RENAME_SWAP (macOS 10.12+). File systems without it (ENOTSUP,
// EINVAL) get errNoExchange.
func exchange(a, b string) error {
	err := unix.RenameatxNp(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_SWAP)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errNoExchange
	}
	return err
}

package dispatchstate

import (
	"errors"

	"golang.org/x/sys/unix"
)

// exchange swaps the files at a and b in one atomic step: renameat2 with
// RENAME_EXCHANGE (Linux 3.15+). File systems without it (EINVAL) and
// kernels without it (ENOSYS) get errNoExchange.
func exchange(a, b string) error {
	err := unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
	if errors.Is(err, unix.EINVAL) || errors.Is(err, unix.ENOSYS) {
		return errNoExchange
	}
	return err
}

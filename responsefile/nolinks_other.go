//go:build unix && !linux

package responsefile

import "golang.org/x/sys/unix"

// openNoLinks has no one-call form outside Linux: walkFolder opens the
// folder component by component with O_NOFOLLOW.
func openNoLinks(int, string) (int, error) { return -1, unix.ENOSYS }

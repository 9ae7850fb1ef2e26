package tmuxdriver

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// unreadInput is how many bytes the terminal at path holds that its
// foreground process has not read (TIOCINQ on the terminal); ok is false
// when it cannot be told (no such terminal, no permission).
func unreadInput(path string) (n int, ok bool) {
	if !strings.HasPrefix(path, "/dev/") {
		return 0, false
	}
	// O_NOCTTY: looking must not make the pane our controlling terminal.
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	n, err = unix.IoctlGetInt(int(f.Fd()), unix.TIOCINQ)
	return n, err == nil
}

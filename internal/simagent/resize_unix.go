//go:build unix

package simagent

import (
	"os"
	"syscall"
)

// resizeSignals are the signals that say the terminal changed size.
func resizeSignals() []os.Signal { return []os.Signal{syscall.SIGWINCH} }

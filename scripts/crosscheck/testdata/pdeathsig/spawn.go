// Package pdeathsig asks the kernel to kill a child with its parent: a
// field only Linux's SysProcAttr has, in a file without a build tag.
package pdeathsig

import (
	"os/exec"
	"syscall"
)

// Orphanless returns cmd set to die with this process.
func Orphanless(cmd *exec.Cmd) *exec.Cmd {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

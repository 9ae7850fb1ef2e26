//go:build unix

package tmuxcontrol

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the tmux client in its own process group, so a
// Ctrl-C meant for the orchestrator does not kill it before the
// orchestrator closes it in order.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

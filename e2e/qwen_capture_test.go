package e2e

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
)

// startQwen starts Qwen Code for a capture (see captureScript.in).
func startQwen(t *testing.T, c realcli.Common, ask bool, approval, root string) *rig {
	return newQwenRigAt(t, realqwen.Options{Common: c, Ask: ask, Approval: approval}, root)
}

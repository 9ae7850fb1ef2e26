package kimi_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/kimi"
)

// TestTranscript reads the user messages on real screens of Kimi Code
// 2.1.0 (testdata/submitted/manifest.json says what each must read): the
// prompt once (short, a few lines, long lines of wide, astral and
// zero-width characters), taken twice, a placeholder after it. Its
// history stays in tmux's scrollback: a prompt taller than the pane is
// read whole. Each of its ordinary screens tells.
func TestTranscript(t *testing.T) {
	testkit.CheckTranscript(t, kimi.Provider(), testkit.EveryScreenTells)
}

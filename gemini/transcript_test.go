package gemini_test

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/gemini"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// TestTranscript reads the user messages on real screens of Gemini CLI
// 0.61.0 (testdata/submitted/manifest.json says what each must read):
// the prompt once, taken twice, a placeholder after it. Its history
// stays in tmux's scrollback: a prompt taller than the pane is read
// whole. Of its ordinary screens, those drawn with NO_COLOR (a prompt at
// column 0 among rules, left alone) cannot tell.
func TestTranscript(t *testing.T) {
	testkit.CheckTranscript(t, gemini.Provider(), testkit.SomeScreensTell)
}

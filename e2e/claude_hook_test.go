package e2e

import (
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
)

// Claude Code's Stop hook (handoff-fsm hook --dir DIR) reports the turn
// over, and the wait decides on it, not on the screen: the poll is a
// minute, there is no file watch, and the wait still ends within seconds.
func TestRealClaudeStopHookEndsTheWait(t *testing.T) {
	parallel(t)
	realclaude.CLI.Require(t)
	bin := buildCommand(t)
	events := t.TempDir()
	r := newClaudeRig(t, realclaude.Options{Hooks: map[string]string{
		"Stop": handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)}})
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))

	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the Stop hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
}

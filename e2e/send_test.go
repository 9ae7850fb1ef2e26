package e2e

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// The shipped command on one pane of each CLI, as a user drives it:
// `send --provider NAME` twice, then `send --provider auto` twice (stderr
// says NAME recognises the pane), each a prompt of three lines that
// reaches the model whole and once, its line breaks as LF, and gets its
// own answer (exit 0), in a pane that sets TERM but not COLORTERM (tmux's
// own); then an API error in the same pane exits 4 with nothing on
// stdout. Each CLI starts as the conformance cases start it (its
// live.Subject), one row a CLI with what it shows of itself.
func TestRealSendByNameAndAutoTwiceEach(t *testing.T) {
	rows := []struct {
		provider  string
		apiErrors []fakemodel.Reply
	}{
		// Cline folds a paste of five lines or more and would pass a CR
		// on; its API error is the conformance case's.
		{"cline", nil},
		// The pane's command is node and its title unset: the footer
		// "◉ Continue CLI" under its box recognises it. No hook fires
		// (Continue has none that does): the screen and the response file
		// decide.
		{"continue", []fakemodel.Reply{invalidArgument}},
		// The pane's command is the binary, named copilot; its title and
		// footer are Copilot CLI's too.
		{"copilot", []fakemodel.Reply{invalidArgument}},
		// The pane's command is droid's binary.
		{"droid", []fakemodel.Reply{invalidArgument}},
		// The pane's command is kilo; OpenCode's rules never claim it.
		{"kilo", []fakemodel.Reply{invalidArgument}},
		// The pane's command is kimi-code, which names the provider.
		{"kimi", []fakemodel.Reply{invalidArgument}},
		// The pane's command is bun, which names no CLI: OMP recognises
		// its own title and screen.
		{"omp", []fakemodel.Reply{invalidArgument}},
	}
	for _, row := range rows {
		t.Run(row.provider, func(t *testing.T) {
			parallel(t)
			sub, ok := live.Find(row.provider)
			if !ok {
				t.Fatalf("no live.Subject for %s", row.provider)
			}
			r := subjectRig(t, sub, realcli.Common{Terminal: tmuxTerminal}, live.Setup{}, t.TempDir())
			sendByNameAndAuto(t, r, []string{row.provider, row.provider, "auto", "auto"}, row.apiErrors...)
		})
	}
}

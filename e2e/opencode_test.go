package e2e

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
)

// newOpenCodeRigAt starts a fake Chat Completions API (shell tool bash)
// and OpenCode in root's work folder and HOME; opts sets the rest.
// Everything ends in t.Cleanup. The side call (the session's title) is
// answered with a fixed title, so the pane title is stable.
func newOpenCodeRigAt(t *testing.T, opts realopencode.Options, root string) *rig {
	t.Helper()
	r := startRig(t, realopencode.CLI, fakemodel.ChatCompletions{ShellTool: realopencode.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realopencode.Start(ctx, opts) })
	r.model.SetSide(fakemodel.Answer("Handoff session"))
	return r
}

// openCodeBusy reports the hint line under the composer while a turn runs
// ("⬝⬝⬝■■■  esc interrupt").
func openCodeBusy(plain string) bool { return strings.Contains(plain, "esc interrupt") }

// openCodeTurnDone is the footer of a finished turn: "▣  Build · fake-model · 3.9s"
// ("Build auto" with --auto).
var openCodeTurnDone = regexp.MustCompile(`▣  Build[^·\n]* · [^\n]*· [0-9.]+m?s\s*\n`)

// openCodeFinished reports a turn that ended with last on the screen:
// nothing busy, the turn's footer with its duration.
func openCodeFinished(plain, last string) bool {
	return strings.Contains(plain, last) && !openCodeBusy(plain) && openCodeTurnDone.MatchString(plain)
}

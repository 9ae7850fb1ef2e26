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
// Everything ends in t.Cleanup.
func newOpenCodeRigAt(t *testing.T, opts realopencode.Options, root string) *rig {
	t.Helper()
	return openCodeShapedRig(t, realopencode.CLI, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realopencode.Start(ctx, opts) })
}

// openCodeShapedRig starts a CLI that speaks and draws as OpenCode does
// (OpenCode, Kilo Code) on a fake Chat Completions API whose shell tool is
// bash. The side call (the session's title) is answered with a fixed
// title, so the pane title is stable.
func openCodeShapedRig(t *testing.T, cli realcli.CLI, root string, common *realcli.Common, start func(context.Context) (*realcli.Session, error)) *rig {
	t.Helper()
	r := startRig(t, cli, fakemodel.ChatCompletions{ShellTool: realopencode.ShellTool}, root, common, start)
	r.model.SetSide(fakemodel.Answer("Handoff session"))
	return r
}

// openCodeBusy reports the hint line under the composer while a turn runs
// ("⬝⬝⬝■■■  esc interrupt").
func openCodeBusy(plain, _ string) bool { return strings.Contains(plain, "esc interrupt") }

// openCodeTurnDone is the footer of a finished turn: "▣  Build · fake-model · 3.9s",
// "· 1m 33s" for a long one ("Build auto" with --auto; Kilo Code's agent
// is "Code"). The duration ends the line, or is followed by a column of
// blanks: Kilo Code, 200 columns wide, draws its session sidebar
// ("0% used", "$0.00 spent") on the footer's line.
func openCodeTurnDone(agent string) *regexp.Regexp {
	return regexp.MustCompile(`▣  ` + agent + `[^·\n]* · [^\n]*· (?:\d+h ?)?(?:\d+m ?)?[0-9.]+m?s(?:\s*\n| {3})`)
}

// openCodeDone is OpenCode's own footer.
var openCodeDone = openCodeTurnDone("Build")

// openCodeFinished reports a turn that ended with last on the screen:
// nothing busy, the turn's footer with its duration.
func openCodeFinished(plain, _, last string) bool {
	return openCodeFinishedAs(openCodeDone, plain, last)
}

// openCodeFinishedAs is openCodeFinished for a screen whose footer is done's.
func openCodeFinishedAs(done *regexp.Regexp, plain, last string) bool {
	return strings.Contains(plain, last) && !openCodeBusy(plain, "") && done.MatchString(plain)
}

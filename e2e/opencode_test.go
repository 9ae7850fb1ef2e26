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

func needOpenCode(t *testing.T) string { return needCLI(t, "OpenCode", realopencode.CLI.Binary) }

// newOpenCodeRigAt starts a fake Chat Completions API (shell tool bash)
// and OpenCode in root's work folder and HOME; opts sets the rest.
// Everything ends in t.Cleanup. The side call (the session's title) is
// answered with a fixed title, so the pane title is stable.
func newOpenCodeRigAt(t *testing.T, opts realopencode.Options, root string) *rig {
	t.Helper()
	bin := needOpenCode(t)
	r := startRig(t, "opencode", fakemodel.ChatCompletions{ShellTool: realopencode.ShellTool}, root, func(ctx context.Context, url, workdir, home string) (*realcli.Session, error) {
		opts.Bin, opts.Workdir, opts.Home, opts.BaseURL = bin, workdir, home, url
		return realopencode.Start(ctx, opts)
	})
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

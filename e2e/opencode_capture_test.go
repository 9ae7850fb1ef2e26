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

// TestCaptureRealOpenCodeScreens drives the real OpenCode through every
// phase the classifier must read, in two pane sizes, and stores each
// screen (with and without colour), with its title and expected status, as
// a fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealOpenCodeScreens -v -timeout 30m
func TestCaptureRealOpenCodeScreens(t *testing.T) {
	openCodeCapture.capture(t)
}

var openCodeCapture = fromSubject(captureScript{
	provider:    "opencode",
	busy:        openCodeBusy,
	finished:    openCodeFinished,
	errorShown:  "invalid argument (fake)",
	dialogShown: "Permission required",
	noInterrupt: true,
	notes: map[string]string{
		"idle-fresh":                   "fresh start: the logo, the composer ('┃  Ask anything…', '┃  Build · fake-model Fake', '╹▀▀▀'), the folder and version at the bottom; title 'OpenCode'",
		"processing-first-byte":        "request sent, no byte back yet: the prompt box, '▣  Build · fake-model' without a duration, '⬝⬝⬝⬝■■■  esc interrupt' under the composer",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: the message five columns in, '▣  Build · fake-model · 9.1s'",
		"processing-streaming":         "answer streaming in, 'esc interrupt' under the composer",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "bash running: '┃  ⠏ sleep 6; echo slept', 'esc interrupt'",
		"completed-tool":               "after the tool: '┃  $ sleep 6; echo slept', '┃  slept', then the message",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: a red box '┃  Request contains an invalid argument (fake).' and the footer without a duration",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"waiting-confirmation":         "bash asks: '△ Permission required', '# Shell command', the command, 'Allow once   Allow always   Reject', 'enter confirm'",
		"completed-after-confirmation": "after allowing: the command ran, final message",
	},
})

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
// is "Code").
func openCodeTurnDone(agent string) *regexp.Regexp {
	return regexp.MustCompile(`▣  ` + agent + `[^·\n]* · [^\n]*· (?:\d+h ?)?(?:\d+m ?)?[0-9.]+m?s\s*\n`)
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

package e2e

import (
	"context"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
)

// TestCaptureRealDroidScreens drives the real droid through every phase
// the classifier must read, in two pane sizes, and stores each screen
// (with and without colour), with its title and expected status, as a
// fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealDroidScreens -v -timeout 30m
func TestCaptureRealDroidScreens(t *testing.T) {
	droidCapture.capture(t)
}

var droidCapture = fromSubject(captureScript{
	provider:    "droid",
	errorShown:  "BYOK Error: 400",
	dialogShown: "Enter select",
	pastedShown: " lines]",
	notes: map[string]string{
		"idle-fresh":                   "fresh start: the DROID logo, 'v0.225.2 - Airgap', a tip, the keys, 'Skills (…)  MCPs (0) ✗  AGENTS.md ✗', the mode line, the composer box with its placeholder 'Try \"…\"', '? for help'; title '⛬ Droid'",
		"processing-first-byte":        "request sent, no byte back yet: the prompt, the working line ('⠋ Thinking...'), 'Enter to steer · Ctrl+Enter to queue' in the composer",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: '⛬  ' and the message, the empty composer, '[⏱ Ns] ? for help'",
		"processing-streaming":         "answer streaming in, the working line ('Streaming...  (Press ESC to stop)') below it",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "Execute running: '   Execute sleep 6; echo slept', the working line 'Executing...'",
		"completed-tool":               "after the tool: '   Execute …', '    ↳ slept', then the message",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: '●  BYOK Error: 400 Request contains an invalid argument (fake).', 'Upstream error: …' and troubleshooting tips under it, newest above the composer",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"interrupted-streaming":        "Esc while the answer streamed: the partial answer stays, the turn is over: quiet (not error)",
		"completed-draft":              "an unsent draft in the composer after the interrupted reply",
		"completed-pasted-draft":       "a long paste not sent yet: the composer shows '[<its start>... 12 lines]'",
		"waiting-confirmation":         "the approval replaces the composer: 'Command to approve · medium risk', the command, 'Yes, allow', 'Yes, and always allow medium impact commands …', 'No, cancel', '↑↓ navigate   Enter select   Esc cancel'",
		"completed-after-confirmation": "after allowing: the command ran, final message",
	},
})

// newDroidRigAt starts a fake Chat Completions API (shell tool Execute,
// with the summary and risk level it requires) and droid in root's work
// folder and HOME; opts sets the rest. Everything ends in t.Cleanup.
func newDroidRigAt(t *testing.T, opts realdroid.Options, root string) *rig {
	t.Helper()
	return startRig(t, realdroid.CLI, fakemodel.ChatCompletions{ShellTool: realdroid.ShellTool, ShellArgs: realdroid.ShellArgs()}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realdroid.Start(ctx, opts) })
}

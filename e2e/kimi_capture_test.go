package e2e

import (
	"context"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
)

// TestCaptureRealKimiScreens drives the real Kimi Code through every phase
// the classifier must read, in two pane sizes, and stores each screen
// (with and without colour), with its title and expected status, as a
// fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealKimiScreens -v -timeout 30m
func TestCaptureRealKimiScreens(t *testing.T) { kimiCapture.capture(t) }

var kimiCapture = fromSubject(captureScript{
	provider:    "kimi",
	errorShown:  "Error: [provider.api_error] 400",
	dialogShown: "1/2/3/4 choose",
	pastedShown: "[paste #",
	notes: map[string]string{
		"idle-fresh":                   "fresh start, past the trust dialog: the welcome box ('Welcome to Kimi Code!', the folder, the model, 'Version: 2.1.0'), 'No session yet', the empty composer box '│ >', the footer (mode, model, folder, a hint; 'context: 0% (0/125k)'); no title",
		"processing-first-byte":        "request sent, no byte back yet: the prompt '✨ …', the working line '🌓 · Tip: …' (a moon phase) above the composer",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: '● ' and the message, the empty composer",
		"processing-streaming":         "answer streaming in, the working line '⠙ Working…' below it",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "Bash running: '● Running a command · $ sleep 6; echo slept', the working line",
		"completed-tool":               "after the tool: '● Ran a command · $ …', its output three columns in, then the message",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: under the prompt, three columns in, 'Error: [provider.api_error] 400 Request contains an invalid argument (fake).' and 'If this persists, run `/export-debug-zip` …'",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"interrupted-streaming":        "Esc while the answer streamed: the partial answer stays, the turn is over: quiet (not error)",
		"completed-draft":              "an unsent draft in the composer after the interrupted reply",
		"completed-pasted-draft":       "a long paste not sent yet: the composer shows '[paste #1 +12 lines]'",
		"waiting-confirmation":         "the default mode asks before the command: between two rules '● Running a command · $ …', '▶ Run this command?', the folder and command, '▶ 1. Approve once', '2. Approve for this session', '3. Reject', '4. Reject with feedback', '↑/↓ select · 1/2/3/4 choose · ↵ confirm'",
		"completed-after-confirmation": "after approving once: the command ran ('Approved: Running: …'), final message",
	},
})

// newKimiRigAt starts a fake Chat Completions API (shell tool Bash) and
// Kimi Code in root's work folder and HOME; opts sets the rest.
// Everything ends in t.Cleanup.
func newKimiRigAt(t *testing.T, opts realkimi.Options, root string) *rig {
	t.Helper()
	return startRig(t, realkimi.CLI, fakemodel.ChatCompletions{ShellTool: realkimi.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realkimi.Start(ctx, opts) })
}

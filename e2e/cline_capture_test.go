package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcline"
)

// TestCaptureRealClineScreens drives the real Cline through every phase
// the classifier must read, in two pane sizes, and stores each screen
// (with and without colour), with its title and expected status, as a
// fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealClineScreens -v -timeout 30m
func TestCaptureRealClineScreens(t *testing.T) {
	clineCapture.capture(t)
}

var clineCapture = fromSubject(captureScript{
	provider:    "cline",
	errorShown:  "* Error: ",
	dialogShown: "[y] Approve",
	pastedShown: "Pasted +12 lines]",
	more:        captureClineNotice,
	notes: map[string]string{
		"idle-fresh":                   "fresh start: the logo, 'What can I do for you?', 'Use / for slash commands, @ for file mentions, Ctrl+P for menu', the composer '❯ What can I do for you?' between two rules, the footer 'fake-model (0) $0.00 … ○ Plan ● Act (Tab)', the folder, '⏵⏵ Auto-approve all enabled (Shift+Tab)'; title 'Cline'",
		"processing-first-byte":        "request sent, no byte back yet: ' ❯ Say hello, slowly', then '⠋ Thinking... (esc to cancel)' above the composer '❯ Ask anything...'; title '> Say hello, slowly'",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: ' * Hello after a slow start.' under the prompt",
		"processing-streaming":         "answer streaming in: the '* Streaming…' cell grows, the busy line below it",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "run_commands running: the busy line is the tool, '⠼ run_commands(sleep 6; echo slept)'",
		"completed-tool":               "after the tool: '* run_commands(sleep 6; echo slept)', '⎿ slept', then '* The command finished.'",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending (busy line)",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: '* Error: Request contains an invalid argument (fake).' in red, the newest cell after the prompt",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"interrupted-streaming":        "Esc while the answer streamed: the partial answer stays: quiet (not error)",
		"completed-draft":              "an unsent draft in the composer after the interrupted reply",
		"completed-pasted-draft":       "a long paste not sent yet: the composer shows '[A long pasted prompt line. … Pasted +12 lines]'",
		"waiting-confirmation":         "auto-approve off (--auto-approve false): the dialog replaces the composer: 'Cline needs permission', 'Approve tool call?', 'run_commands', '$ echo hi > …', '[y] Approve   [n] Deny'; the busy line above it",
		"completed-after-confirmation": "after allowing: the command ran, final message",
	},
})

// captureClineNotice takes the promotion Cline may show at its start (in
// a fresh home, with the notice allowed): a dialog over the composer.
func captureClineNotice(t *testing.T, c *screenCapturer, _ *rig) {
	var w, h int
	if _, err := fmt.Sscanf(c.size, "%dx%d", &w, &h); err != nil {
		t.Fatal(err)
	}
	n := newClineRigAt(t, realcline.Options{Common: realcli.Common{Width: w, Height: h}, Notice: true}, fixedRootUnder(t, "/tmp/handoff-e2e-cline", "notice"))
	if !n.shows(10*time.Second, func(p, _ string) bool { return has(p, realcline.Notice) }) {
		t.Logf("Cline showed no notice at its start: none taken")
		return
	}
	c.shot(n, "waiting-notice", handoff.StatusWaitingUserAnswer,
		"a promotion at the start ('Try ClinePass' or 'Get Cline Desktop'), drawn over the composer, ending 'Press Enter to open, any other key to close': Esc closes it")
}

// newClineRigAt starts a fake Chat Completions API (shell tool
// run_commands, which takes a list) and Cline in root's work folder and
// HOME; opts sets the rest. Everything ends in t.Cleanup, Cline's hub
// daemon too.
func newClineRigAt(t *testing.T, opts realcline.Options, root string) *rig {
	t.Helper()
	return startRig(t, realcline.CLI, fakemodel.ChatCompletions{ShellTool: realcline.ShellTool, Commands: true}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realcline.Start(ctx, opts) })
}

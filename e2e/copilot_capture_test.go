package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
)

// TestCaptureRealCopilotScreens drives the real Copilot CLI through every
// phase the classifier must read, in two pane sizes, and stores each
// screen (with and without colour), with its title and expected status, as
// a fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealCopilotScreens -v -timeout 30m
func TestCaptureRealCopilotScreens(t *testing.T) {
	copilotCapture.capture(t)
}

var copilotCapture = fromSubject(captureScript{
	provider:    "copilot",
	busy:        copilotBusy,
	finished:    copilotFinished,
	errorShown:  "invalid argument (fake)",
	dialogShown: "Do you want to run this command?",
	pastedShown: "[Paste #1 - 12 lines]",
	more:        copilotMore,
	notes:       copilotNotes,
})

// copilotNotes say what each captured screen shows.
var copilotNotes = map[string]string{
	"idle-fresh":                   "fresh start: the folder line, the composer '❯' between two rules, the footer '← open sidebar · Interactive · Manual Approval · / commands · ? help …'; title 'GitHub Copilot'",
	"processing-first-byte":        "request sent, no byte back yet: the prompt '❯ Say hello, slowly   14:03' in the history, the footer '● Working esc esc edit prompt'",
	"processing-waiting":           "still waiting for the first byte a few seconds later",
	"completed-answer":             "plain answer finished: '● Hello after a slow start.' under the prompt, the idle footer",
	"processing-streaming":         "answer streaming in, the footer '○ Working · 1 KB esc esc interrupt'",
	"completed-streamed":           "long streamed answer finished",
	"processing-tool":              "the shell tool running: '$ Shell Wait a while', the command under it, the footer 'Working'",
	"completed-tool":               "after the tool: '$ Shell Wait a while 1 line…', then '● The command finished.'",
	"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
	"completed-after-file":         "file written and the turn finished with a final message",
	"error-api-400":                "HTTP 400: '✗ 400 Request contains an invalid argument (fake).' under the prompt, the idle footer",
	"completed-after-error":        "a finished turn below an earlier API error: the error is history",
	"interrupted-streaming":        "a streamed answer interrupted with Esc: the partial answer stays, the idle footer",
	"completed-draft":              "an unsent draft in the composer ('❯ a draft that is not sent yet') after a finished turn",
	"completed-pasted-draft":       "a long paste folded in the composer ('[Paste #1 - 12 lines]') after a finished turn",
	"waiting-folder-trust":         "the folder-trust dialog a new folder gets first: a box 'Confirm folder trust', '❯ 1. Yes', '2. Yes, and remember this folder …', '3. No (Esc)'; no composer",
	"idle-shell-mode":              "a typed '!' switched the composer to shell mode: '! Execute shell command', footer '… Shell · Manual Approval … esc exit shell mode'; nothing was asked yet",
	"waiting-confirmation":         "the shell tool asks: a box 'Write a marker file', the command in a box, 'Do you want to run this command?', '❯ 1. Yes', '2. Yes, and don't ask again …', '3. No, and tell Copilot …'",
	"completed-after-confirmation": "after allowing: the command ran, final message",
}

// copilotMore takes the folder-trust dialog of a fresh start in a folder
// not trusted yet, and the composer in shell mode.
func copilotMore(t *testing.T, c *screenCapturer, r *rig) {
	const short = 45 * time.Second
	var w, h int
	if _, err := fmt.Sscanf(c.size, "%dx%d", &w, &h); err != nil {
		t.Fatal(err)
	}
	u := newCopilotRigAt(t, realcopilot.Options{Common: realcli.Common{Width: w, Height: h}, Untrusted: true},
		fixedRootUnder(t, "/tmp/handoff-e2e-copilot", "untrusted"))
	c.shot(u, "waiting-folder-trust", handoff.StatusWaitingUserAnswer, copilotNotes["waiting-folder-trust"])
	if err := r.cli.Keys(context.Background(), "!"); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(short, "shell mode", func(p, _ string) bool { return has(p, "Execute shell command") })
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "idle-shell-mode", handoff.StatusCompleted, copilotNotes["idle-shell-mode"])
	r.keys("Escape")
	r.waitScreen(short, "shell mode left", func(p, _ string) bool { return !has(p, "Execute shell command") })
}

// newCopilotRigAt starts a fake Chat Completions API (shell tool bash) and
// Copilot CLI in root's work folder and HOME; opts sets the rest.
// Everything ends in t.Cleanup.
func newCopilotRigAt(t *testing.T, opts realcopilot.Options, root string) *rig {
	t.Helper()
	return startRig(t, realcopilot.CLI, fakemodel.ChatCompletions{ShellTool: realcopilot.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realcopilot.Start(ctx, opts) })
}

// copilotBusy reports the footer of a running turn ("● Working esc esc
// edit prompt", "○ Working · 60 B esc esc interrupt").
func copilotBusy(plain, _ string) bool {
	for _, l := range lastLines(plain, 4) {
		if strings.Contains(l, " Working") || strings.Contains(l, "esc esc interrupt") {
			return true
		}
	}
	return false
}

// copilotFinished reports a turn that ended with last on the screen: the
// idle footer back.
func copilotFinished(plain, _, last string) bool {
	return strings.Contains(plain, last) && !copilotBusy(plain, "") && strings.Contains(plain, realcopilot.IdleFooter)
}

// lastLines are the last n non-blank lines of plain.
func lastLines(plain string, n int) []string {
	var out []string
	lines := strings.Split(plain, "\n")
	for i := len(lines) - 1; i >= 0 && len(out) < n; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			out = append(out, lines[i])
		}
	}
	return out
}

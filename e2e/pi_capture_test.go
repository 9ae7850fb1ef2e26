package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realpi"
	"github.com/handoff-fsm/handoff-fsm/pi"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// TestCaptureRealPiScreens drives the real pi through every phase the
// classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealPiScreens -v -timeout 30m
func TestCaptureRealPiScreens(t *testing.T) { piCapture.capture(t, "pi "+realpi.CLI.Version) }

var piCapture = captureScript{
	provider: "pi", version: realpi.CLI.Version,
	start: func(t *testing.T, w, h int, ask bool, root string) *rig {
		return newPiRigAt(t, realpi.Options{Common: realcli.Common{Width: w, Height: h}, Ask: ask}, root)
	},
	busy:        func(p, _ string) bool { return piBusy(p) },
	quiet:       func(p, _ string) bool { return !piBusy(p) },
	finished:    func(p, _, last string) bool { return piFinished(p, last) },
	slowShell:   "sleep 6; echo slept",
	apiError:    fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."),
	errorShown:  "Error: 400",
	errorDetail: "Error: 400 Request contains an invalid argument (fake).",
	dialogShown: "enter select",
	approve:     "Enter",
	pastedShown: "[paste #1",
	notes: map[string]string{
		"idle-fresh":                   "fresh start: 'pi v0.73.1', the keys, 'Pi can explain its own features …', the empty editor between two rules, the folder and '0.0%/128k (auto) … fake-model' under them; title 'π - work'",
		"processing-first-byte":        "request sent, no byte back yet: the prompt, then '⠋ Working...' above the editor",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: the message one column in, two blank lines below the prompt",
		"processing-streaming":         "answer streaming in, the working line below it",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "bash running: '$ sleep 6; echo slept', 'Elapsed 2.0s', the working line",
		"completed-tool":               "after the tool: '$ sleep 6; echo slept', 'slept', 'Took 6.0s', then the message",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: 'Error: 400 Request contains an invalid argument (fake).' in red, newest above the editor",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"interrupted-streaming":        "Esc while the answer streamed: the partial answer stays, then 'Operation aborted': quiet (not error)",
		"completed-draft":              "an unsent draft in the editor after the interrupted reply",
		"completed-pasted-draft":       "a long paste not sent yet: the editor shows '[paste #1 +12 lines]'",
		"waiting-confirmation":         "the asking extension's dialog replaces the editor: 'Run this command?', the command, '→ Allow', 'Block', '↑↓ navigate  enter select  escape/ctrl+c cancel'; the working line above",
		"completed-after-confirmation": "after allowing: the command ran, final message",
	},
}

// newPiRigAt starts a fake Chat Completions API (shell tool bash) and pi
// in root's work folder and HOME; opts sets the rest. Everything ends in
// t.Cleanup.
func newPiRigAt(t *testing.T, opts realpi.Options, root string) *rig {
	t.Helper()
	return startRig(t, realpi.CLI, fakemodel.ChatCompletions{ShellTool: realpi.ShellTool}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realpi.Start(ctx, opts) })
}

// piSignals reads a plain screen with pi's classifier.
func piSignals(plain string) pi.Signals {
	s, _ := pi.Provider().Classify(plain, "").Signals.(pi.Signals)
	return s
}

// piBusy reports the working line above the editor ("⠴ Working...").
func piBusy(plain string) bool { return piSignals(plain).BusyLine != 0 }

// piFinished reports a turn that ended with last on the screen: nothing
// busy, an empty editor, last in the newest block.
func piFinished(plain, last string) bool {
	s := piSignals(plain)
	return s.BusyLine == 0 && s.Chrome == screen.ChromeComposer && strings.Contains(plain, last)
}

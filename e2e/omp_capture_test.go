package e2e

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
	"github.com/handoff-fsm/handoff-fsm/omp"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// TestCaptureRealOmpScreens drives the real OMP through every phase the
// classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealOmpScreens -v -timeout 30m
func TestCaptureRealOmpScreens(t *testing.T) { ompCapture.capture(t, "omp "+realomp.CLI.Version) }

var ompCapture = captureScript{
	provider: "omp", version: realomp.CLI.Version,
	start: func(t *testing.T, w, h int, ask bool, root string) *rig {
		return newOmpRigAt(t, realomp.Options{Common: realcli.Common{Width: w, Height: h}, Ask: ask}, root)
	},
	busy:        func(p, _ string) bool { return ompSignals(p).BusyLine != 0 },
	quiet:       func(p, _ string) bool { return ompSignals(p).BusyLine == 0 },
	finished:    func(p, _, last string) bool { return ompFinished(p, last) },
	slowShell:   "sleep 6; echo slept",
	apiError:    fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."),
	errorShown:  "✘ 400",
	errorDetail: "400 Request contains an invalid argument (fake).",
	dialogShown: "enter select",
	approve:     "Enter",
	pastedShown: "📄 #",
	notes: map[string]string{
		"idle-fresh":                   "fresh start: the welcome box ('╭─── omp v18.2.3 ───'), a tip, the status line ' π > ⬢ Fake > … ▶─…', the empty editor '╰─'; title 'π > work'",
		"processing-first-byte":        "request sent, no byte back yet: the prompt, '⎋ Working…', a spinner and the seconds in the status line",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: the message one column in, two blank lines below the prompt",
		"processing-streaming":         "answer streaming in, the working line below it",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "bash running: a box '│ $ sleep 6; echo slept', the working line",
		"completed-tool":               "after the tool: the box with its 'Output' ('slept', '⟦Wall: …⟧'), then the message",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: between two red rules '✘ 400 Request contains an invalid argument (fake).', its type, the request's log, 'Dismissed when you send your next message.'",
		"completed-after-error":        "a finished turn after an API error: the error box was dismissed",
		"interrupted-streaming":        "Esc while the answer streamed: the partial answer stays, the turn is over: quiet (not error)",
		"completed-draft":              "an unsent draft in the editor after the interrupted reply",
		"completed-pasted-draft":       "a long paste not sent yet: the editor shows a chip ('📄 #2': the session counts its pastes), its card above the status line ('╰ +13 lines ─╯')",
		"waiting-confirmation":         "the always-ask approval replaces the editor and the status line: '╭─ Allow tool: bash ─', 'Command: …', '❯ Approve', 'Deny', 'up/down navigate  enter select  esc cancel'",
		"completed-after-confirmation": "after approving: the command ran, final message",
	},
}

// ompSignals reads a plain screen with OMP's classifier.
func ompSignals(plain string) omp.Signals {
	s, _ := omp.Provider().Classify(plain, "").Signals.(omp.Signals)
	return s
}

// ompFinished reports a turn that ended with last on the screen: nothing
// busy, the editor ready, last in the newest block.
func ompFinished(plain, last string) bool {
	s := ompSignals(plain)
	return s.BusyLine == 0 && s.Chrome == screen.ChromeComposer && strings.Contains(plain, last)
}

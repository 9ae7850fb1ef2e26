package e2e

import "testing"

// TestCaptureRealOmpScreens drives the real OMP through every phase the
// classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealOmpScreens -v -timeout 30m
func TestCaptureRealOmpScreens(t *testing.T) { ompCapture.capture(t) }

var ompCapture = fromSubject(captureScript{
	provider:    "omp",
	errorShown:  "✘ 400",
	dialogShown: "enter select",
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
})

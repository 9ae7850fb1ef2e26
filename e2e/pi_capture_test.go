package e2e

import "testing"

// TestCaptureRealPiScreens drives the real pi through every phase the
// classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealPiScreens -v -timeout 30m
func TestCaptureRealPiScreens(t *testing.T) { piCapture.capture(t) }

var piCapture = fromSubject(captureScript{
	provider:    "pi",
	errorShown:  "Error: 400",
	dialogShown: "enter select",
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
})

package e2e

import (
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
)

// TestCaptureRealGeminiScreens drives the real Gemini CLI through every
// phase the classifier must read, in two pane sizes, and stores each screen
// (with and without colour), with its title and expected status, as a
// fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealGeminiScreens -v -timeout 30m
func TestCaptureRealGeminiScreens(t *testing.T) { geminiScript.capture(t) }

// TestCaptureRealGeminiTerminals takes the same screens in the terminals
// of captureTerminals, each into its own folder (real-0.61.0/<name>/, with
// its manifest); a name after the slash picks one:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run 'TestCaptureRealGeminiTerminals/xterm-256color-default$' -v -timeout 30m
func TestCaptureRealGeminiTerminals(t *testing.T) { geminiScript.inTerminals(t) }

// startGemini starts Gemini CLI for a capture (see captureScript.in).
func startGemini(t *testing.T, c realcli.Common, ask bool, approval, root string) *rig {
	return newGeminiRigAt(t, realgemini.Options{Common: c, Ask: ask, Approval: approval}, root)
}

var geminiScript = fromSubject(captureScript{
	provider: "gemini", startIn: startGemini, autoEdit: "auto_edit",
	busy:        geminiBusy,
	quiet:       geminiQuiet,
	finished:    geminiFinished,
	errorShown:  "API Error",
	errorDetail: "[API Error:",
	dialogShown: "Allow execution",
	pastedShown: "[Pasted Text:",
	more:        captureGeminiRetry,
	notes: map[string]string{
		"idle-fresh":                   "fresh start: logo, 'Authenticated with gemini-api-key', tips, the composer '*   Type your message or @path/to/file' between half-block rules, the footer (workspace, sandbox, model); title '◇  Ready (work)'",
		"processing-first-byte":        "request sent, no byte back yet: ' > Say hello, slowly', then '⠋ Thinking... (esc to cancel, 0s)'; title '✦  Working… (work)'",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: '✦ Hello after a slow start.'; title '◇  Ready (work)'",
		"processing-streaming":         "answer streaming in: '✦ Streaming…' grows, the busy line below it, title Working",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "run_shell_command running: a box '│ ⊷  Shell sleep 6; echo slept │' (the glyph spins), the busy line, title Working",
		"completed-tool":               "after the tool: the box with '✓  Shell …' and its output, '✦ The command finished.'",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending (busy line, title Working)",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400 INVALID_ARGUMENT: '✕ [API Error: {\"error\":{\"code\":400,…}}]' and 'ℹ This request failed. Press F12 for diagnostics…'",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"completed-draft":              "an unsent draft in the composer after the interrupted reply",
		"completed-pasted-draft":       "a long paste not sent yet: the composer shows '[Pasted Text: 12 lines]'",
		"interrupted-streaming":        "Esc while the answer streamed: the partial '✦ A partial answer…' stays, then the cancel note: quiet (not error)",
		"waiting-confirmation":         "default approval mode: a box '? Shell echo hi > …', 'Allow execution of [Shell]?', '● 1. Allow once' …; title '✋  Action Required (work)'",
		"completed-after-confirmation": "after allowing: the command ran, final message",
	},
})

// geminiQuiet: no busy line, the title back to ready.
func geminiQuiet(p, title string) bool {
	return !geminiBusy(p, title) && strings.HasPrefix(title, "◇")
}

// captureGeminiRetry takes Gemini CLI's own screens: a 500 it retries for
// a long time, interrupted.
func captureGeminiRetry(t *testing.T, c *screenCapturer, r *rig) {
	const short = 45 * time.Second
	// HTTP 500 is retried for a long time while the busy line runs.
	r.model.Script(fakemodel.Times(20, fakemodel.ServerError())...)
	r.submit("This request fails: http-500")
	r.waitScreen(short, "busy", geminiBusy)
	time.Sleep(4 * time.Second)
	c.shot(r, "processing-retrying-500", handoff.StatusProcessing,
		"HTTP 500, retried by the CLI: the busy line keeps running (a retry note may show)")
	r.keys("Escape")
	r.waitScreen(short, "interrupted", geminiQuiet)
	r.model.Clear()
	time.Sleep(time.Second)
	c.shot(r, "interrupted-retrying", handoff.StatusIdle,
		"Esc while the CLI retried: 'ℹ Request cancelled.' under the prompt, no reply after it: quiet (idle)")
}

package e2e

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// TestCaptureRealQwenScreens drives the real Qwen Code through every phase
// the classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealQwenScreens -v -timeout 30m
func TestCaptureRealQwenScreens(t *testing.T) { qwenScript.capture(t) }

// TestCaptureRealQwenTerminals takes the same screens in the terminals of
// captureTerminals, each into its own folder (real-0.24.4/<name>/, with its
// manifest); a name after the slash picks one:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run 'TestCaptureRealQwenTerminals/xterm-256color-default$' -v -timeout 30m
func TestCaptureRealQwenTerminals(t *testing.T) { qwenScript.inTerminals(t) }

// startQwen starts Qwen Code for a capture (see captureScript.in).
func startQwen(t *testing.T, c realcli.Common, ask bool, approval, root string) *rig {
	return newQwenRigAt(t, realqwen.Options{Common: c, Ask: ask, Approval: approval}, root)
}

var qwenScript = fromSubject(captureScript{
	provider: "qwen", startIn: startQwen, autoEdit: "auto-edit",
	// The busy line wraps in a narrow pane; the title spins all the same.
	busy:     func(p, title string) bool { return qwenBusy(p) || qwen.TitleSpinning(title) },
	finished: qwenFinished,
	// Qwen Code refuses a command that starts with sleep ("Blocked: sleep
	// 6 followed by …"): perl waits instead.
	slowShell:   "perl -e 'select(undef,undef,undef,6)'; echo slept",
	errorShown:  "API Error",
	errorDetail: "[API Error: 400",
	dialogShown: "Allow execution",
	notes: map[string]string{
		"idle-fresh":                   "fresh start: logo and the '>_ Qwen Code (v0.24.4)' box, tips, the composer '*   Type your message or @path/to/file' between rules, the footer; title 'Qwen - work'",
		"processing-first-byte":        "request sent, no byte back yet: '> Say hello, slowly', then '⠋ <phrase>... (0s · esc to cancel)'; title '◐︎ Qwen - work'",
		"processing-waiting":           "still waiting for the first byte a few seconds later",
		"completed-answer":             "plain answer finished: '◆︎ Hello after a slow start.'; title 'Qwen - work'",
		"processing-streaming":         "answer streaming in, the busy line below it, title spinning",
		"completed-streamed":           "long streamed answer finished",
		"processing-tool":              "run_shell_command running: '⊶ Shell perl …; echo slept', the busy line, title spinning",
		"completed-tool":               "after the tool: '✓ Shell …', '◆︎ The command finished.'",
		"processing-after-file":        "the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending",
		"completed-after-file":         "file written and the turn finished with a final message",
		"error-api-400":                "HTTP 400: '✕ [API Error: 400 Request contains an invalid argument (fake).] (Press Ctrl+Y to retry)'",
		"completed-after-error":        "a finished turn below an earlier API error: the error is history",
		"interrupted-streaming":        "Esc while the answer streamed: the partial answer stays, then '●︎ Request cancelled.'; the prompt is put back in the composer as a draft: quiet (not error)",
		"waiting-confirmation":         "default approval mode: '? Shell echo hi > …', 'Allow execution of: 'echo'?', '› 1. Yes, allow once' …, 'Waiting for user confirmation...'",
		"completed-after-confirmation": "after allowing: the command ran, final message",
	},
})

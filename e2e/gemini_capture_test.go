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

// startGemini starts Gemini CLI for a capture (see captureScript.in).
func startGemini(t *testing.T, c realcli.Common, ask bool, approval, root string) *rig {
	return newGeminiRigAt(t, realgemini.Options{Common: c, Ask: ask, Approval: approval}, root)
}

// geminiQuiet: no busy line, the title back to ready.
func geminiQuiet(p, title string) bool {
	return !geminiBusy(p, title) && strings.HasPrefix(title, "◇")
}

// captureGeminiRetry takes Gemini CLI's own screens: a 500 it retries for
// a long time, interrupted.
func captureGeminiRetry(t *testing.T, _ captureScript, c *screenCapturer, r *rig) {
	play(c, r, 45*time.Second,
		// HTTP 500 is retried for a long time while the busy line runs.
		captureStep{replies: fakemodel.Times(20, fakemodel.ServerError()), prompt: "This request fails: http-500", what: "busy", until: geminiBusy,
			settle: 4 * time.Second, shot: "processing-retrying-500", status: handoff.StatusProcessing,
			note: "HTTP 500, retried by the CLI: the busy line keeps running (a retry note may show)"},
		captureStep{keys: []string{"Escape"}, what: "interrupted", until: geminiQuiet, clear: true, settle: time.Second,
			shot: "interrupted-retrying", status: handoff.StatusIdle,
			note: "Esc while the CLI retried: 'ℹ Request cancelled.' under the prompt, no reply after it: quiet (idle)"})
}

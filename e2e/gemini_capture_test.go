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

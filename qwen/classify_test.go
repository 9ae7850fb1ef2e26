package qwen

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// bare is chrome without the rules around the composer: decoration a
// terminal may leave out.
func bare(status, composer string) []string {
	var out []string
	for _, l := range chrome(status, composer) {
		if l != ruleLine {
			out = append(out, l)
		}
	}
	return out
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name, capture, title string
		want                 handoff.Status
		reason               string
	}{
		{"reply", conformance.Capture(promptLines("hi"), ls("  ◆︎ Hello"), chrome("", placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"busy", conformance.Capture(promptLines("hi"), chrome(busy, placeholder)), ready, handoff.StatusProcessing, ReasonBusy},
		{"error", conformance.Capture(promptLines("hi"), ls("  ✕ [API Error: 400 bad request]"), chrome("", placeholder)), ready, handoff.StatusError, screen.ReasonError},
		{"a draft", conformance.Capture(promptLines("hi"), ls("  ◆︎ Hello"), chrome("", "> a draft")), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"no rules: reply", conformance.Capture(promptLines("hi"), ls("  ◆︎ Hello"), bare("", placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"no rules: busy", conformance.Capture(promptLines("hi"), bare(busy, placeholder)), ready, handoff.StatusProcessing, ReasonBusy},
		{"no rules: error", conformance.Capture(promptLines("hi"), ls("  ✕ [API Error: 400 bad request]"), bare("", placeholder)), ready, handoff.StatusError, screen.ReasonError},
		{"no rules: nothing after the prompt", conformance.Capture(promptLines("hi"), ls("  ●︎ Request cancelled."), bare("", placeholder)), ready, handoff.StatusIdle, screen.ReasonIdle},
		{"a prompt at the bottom is no composer", conformance.Capture(ls("  ◆︎ old"), promptLines("hi"), ls("  ➜ work · fake-model")), ready, handoff.StatusIdle, screen.ReasonNoComposer},
		{"dialog", conformance.Capture(promptLines("hi"), ls("  ? Shell echo hi", "   Allow execution of: 'echo'?", "   › 1. Yes, allow once", "  ⠏ Waiting for user confirmation...")), spinning, handoff.StatusWaitingUserAnswer, ReasonDialog},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conformance.CheckStatus(t, Provider(), tc.capture, tc.title, tc.want, tc.reason)
		})
	}
}

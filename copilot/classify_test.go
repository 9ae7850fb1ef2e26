package copilot

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name, capture, title string
		want                 handoff.Status
		reason               string
	}{
		{"reply", conformance.Capture(promptLines("hi"), ls(" ● Hello"), chrome(idleFooter, "❯")), named, handoff.StatusCompleted, screen.ReasonCompleted},
		{"busy", conformance.Capture(promptLines("hi"), chrome(busy, "❯")), named, handoff.StatusProcessing, ReasonBusy},
		{"busy, the hint cut", conformance.Capture(promptLines("hi"), chrome(" ◉ Working", "❯")), named, handoff.StatusProcessing, ReasonBusy},
		{"error", conformance.Capture(promptLines("hi"), ls(" ✗ 400 Request contains an invalid argument (fake)."), chrome(idleFooter, "❯")), named, handoff.StatusError, screen.ReasonError},
		{"a failed tool is no API error", conformance.Capture(promptLines("hi"), ls(" ✗ Shell exit 1", "   false", "", " ● It failed."), chrome(idleFooter, "❯")), named, handoff.StatusCompleted, screen.ReasonCompleted},
		{"a draft", conformance.Capture(promptLines("hi"), ls(" ● Hello"), chrome(" Interactive · Manual Approval · @ files · # issues", "❯ a draft")), named, handoff.StatusCompleted, screen.ReasonCompleted},
		{"shell mode, nothing asked yet", conformance.Capture(chrome(" Shell · Manual Approval", "! Execute shell command")), ready, handoff.StatusIdle, screen.ReasonIdleNoTurns},
		{"nothing after the prompt", conformance.Capture(promptLines("hi"), chrome(idleFooter, "❯")), named, handoff.StatusIdle, screen.ReasonIdle},
		{"a scrollbar in the last column", conformance.Capture(ls(" ❯ hi       14:03 ┃", "                  ┃", " ● Hello          ┃"), chrome(idleFooter, "❯")), named, handoff.StatusCompleted, screen.ReasonCompleted},
		{"the scrollbar's thumb without colour", conformance.Capture(ls(" ❯ hi       14:03 █", "                  █", " ● Hello          █"), chrome(idleFooter, "❯")), named, handoff.StatusCompleted, screen.ReasonCompleted},
		{"a prompt at the bottom is no composer", conformance.Capture(ls(" ● old"), promptLines("hi")), named, handoff.StatusIdle, screen.ReasonNoComposer},
		{"dialog", conformance.Capture(promptLines("hi"), ls(" $ Shell Write a marker file", "   echo hi > x"), dialog()), named, handoff.StatusWaitingUserAnswer, ReasonDialog},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conformance.CheckStatus(t, Provider(), tc.capture, tc.title, tc.want, tc.reason)
		})
	}
}

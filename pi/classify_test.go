package pi

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

func TestClassifySyntheticScreens(t *testing.T) {
	conformance.CheckSynthetic(t, Provider(), "π - work", []conformance.Synthetic{
		{Name: "fresh start", Capture: conformance.Capture(block(header...), chrome(false, "")), Status: handoff.StatusIdle},
		{Name: "a prompt sent, no byte back", Capture: conformance.Capture(block(header...), block(" Say hello"), chrome(true, "")), Status: handoff.StatusProcessing},
		{Name: "answered", Capture: conformance.Capture(block(header...), block(" Say hello"), []string{" Hello.", "", " Second paragraph."}, chrome(false, "")), Status: handoff.StatusCompleted, Message: "Hello.\n\nSecond paragraph."},
		{Name: "a draft below an answer", Capture: conformance.Capture(block(" Say hello"), []string{" Hello."}, chrome(false, "a draft")), Status: handoff.StatusCompleted, Message: "Hello."},
		{Name: "an API error", Capture: conformance.Capture(block(" Fail"), []string{" Error: 400 Request contains an invalid argument", " (fake)."}, chrome(false, "")), Status: handoff.StatusError, Detail: "Error: 400 Request contains an invalid argument (fake)."},
		{Name: "interrupted", Capture: conformance.Capture(block(" Go"), []string{" A partial answer", "", " Operation aborted"}, chrome(false, "")), Status: handoff.StatusCompleted, Message: "A partial answer"},
		{Name: "a dialog", Capture: conformance.Capture(block(" Go"), block(" $ echo hi > x"), []string{"", working, "", rule, " Run this command?", "", "   echo hi > x", "", " → Allow", "   Block", "", " ↑↓ navigate  enter select  escape/ctrl+c cancel", rule, footerDir, footerStats}), Status: handoff.StatusWaitingUserAnswer},
		{Name: "no chrome", Capture: "some shell output\n$ \n", Status: handoff.StatusIdle},
		{Name: "blank", Capture: "\n\n\n", Status: handoff.StatusError},
	})
}

func TestRecognize(t *testing.T) {
	fresh := conformance.Capture(block(header...), chrome(false, ""))
	for _, tc := range []struct {
		title, capture string
		want           bool
	}{
		{"π - work", "", true},
		{"", fresh, true},
		{"bash", "$ ls\n", false},
		{"", conformance.Capture([]string{"  > hi"}, []string{rule, "> ", rule}), false},
	} {
		if got := recognize(tc.title, tc.capture); got != tc.want {
			t.Errorf("recognize(%q, …) = %v, want %v", tc.title, got, tc.want)
		}
	}
}

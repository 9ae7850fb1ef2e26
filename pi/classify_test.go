package pi

import (
	"errors"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

func TestClassifySyntheticScreens(t *testing.T) {
	for _, tc := range []struct {
		name    string
		capture string
		status  handoff.Status
		msg     string // "" : screen.ErrNoAssistantMessage
	}{
		{"fresh start", conformance.Capture(block(header...), chrome(false, "")), handoff.StatusIdle, ""},
		{"a prompt sent, no byte back", conformance.Capture(block(header...), block(" Say hello"), chrome(true, "")), handoff.StatusProcessing, ""},
		{"answered", conformance.Capture(block(header...), block(" Say hello"), []string{" Hello.", "", " Second paragraph."}, chrome(false, "")), handoff.StatusCompleted, "Hello.\n\nSecond paragraph."},
		{"a draft below an answer", conformance.Capture(block(" Say hello"), []string{" Hello."}, chrome(false, "a draft")), handoff.StatusCompleted, "Hello."},
		{"an API error", conformance.Capture(block(" Fail"), []string{" Error: 400 Request contains an invalid argument", " (fake)."}, chrome(false, "")), handoff.StatusError, ""},
		{"interrupted", conformance.Capture(block(" Go"), []string{" A partial answer", "", " Operation aborted"}, chrome(false, "")), handoff.StatusCompleted, "A partial answer"},
		{"a dialog", conformance.Capture(block(" Go"), block(" $ echo hi > x"), []string{"", working, "", rule, " Run this command?", "", "   echo hi > x", "", " → Allow", "   Block", "", " ↑↓ navigate  enter select  escape/ctrl+c cancel", rule, footerDir, footerStats}), handoff.StatusWaitingUserAnswer, ""},
		{"no chrome", "some shell output\n$ \n", handoff.StatusIdle, ""},
		{"blank", "\n\n\n", handoff.StatusError, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Provider().Classify(tc.capture, "π - work")
			if got.Status != tc.status {
				t.Fatalf("status %s (%s), want %s\n%s", got.Status, got.Reason, tc.status, tc.capture)
			}
			if tc.status == handoff.StatusError && tc.name == "an API error" && got.Detail != "Error: 400 Request contains an invalid argument (fake)." {
				t.Fatalf("detail %q", got.Detail)
			}
			msg, err := lastMessage(tc.capture)
			if tc.msg == "" && !errors.Is(err, screen.ErrNoAssistantMessage) {
				t.Fatalf("message %q, %v; want none", msg, err)
			}
			if tc.msg != "" && (err != nil || msg != tc.msg) {
				t.Fatalf("message %q, %v; want %q", msg, err, tc.msg)
			}
		})
	}
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

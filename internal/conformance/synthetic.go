package conformance

import (
	"errors"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Synthetic is a screen a provider's test builds (Capture), what it must
// read as, and what the fallback must find on it.
type Synthetic struct {
	Name, Capture string
	Status        handoff.Status
	// Message is the last message; "" means none (ErrNoAssistantMessage).
	Message string
	// Detail, when set, is what an error screen must quote.
	Detail string
}

// CheckSynthetic classifies each screen with c under the pane title title
// and reads its last message: both must be the ones the case gives.
func CheckSynthetic(t *testing.T, c handoff.Classifier, title string, cases []Synthetic) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			got := c.Classify(tc.Capture, title)
			if got.Status != tc.Status {
				t.Fatalf("status %s (%s), want %s\n%s", got.Status, got.Reason, tc.Status, tc.Capture)
			}
			if tc.Detail != "" && got.Detail != tc.Detail {
				t.Fatalf("detail %q, want %q", got.Detail, tc.Detail)
			}
			msg, err := c.LastMessage(tc.Capture)
			if tc.Message == "" && !errors.Is(err, screen.ErrNoAssistantMessage) {
				t.Fatalf("message %q, %v; want none", msg, err)
			}
			if tc.Message != "" && (err != nil || msg != tc.Message) {
				t.Fatalf("message %q, %v; want %q", msg, err, tc.Message)
			}
		})
	}
}

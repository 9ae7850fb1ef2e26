package gemini

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"os"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Gemini CLI.
var realDir = filepath.Join("testdata", "real-0.61.0")

// TestRealGemini0_61Screens runs the classifier over every screen captured
// from the real Gemini CLI, with its pane title, against the status the
// manifest says it shows (internal/conformance): in two pane sizes, each
// with and without colour.
func TestRealGemini0_61Screens(t *testing.T) {
	conformance.CheckScreens(t, realDir, New(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealGemini0_61LastMessage: the fallback text read off the real
// screens the manifest gives no message for.
func TestRealGemini0_61LastMessage(t *testing.T) {
	none := func(msg string, err error) bool { return errors.Is(err, ErrNoAssistantMessage) }
	prefix := func(p string) func(string, error) bool {
		return func(msg string, err error) bool {
			return err == nil && strings.HasPrefix(msg, p) && !strings.Contains(msg, "Request cancelled") && !strings.Contains(msg, "esc to cancel")
		}
	}
	tests := []struct {
		file string
		ok   func(string, error) bool
		want string
	}{
		{"idle-fresh", none, "ErrNoAssistantMessage: no prompt yet"},
		{"processing-first-byte", none, "ErrNoAssistantMessage: nothing answered yet"},
		{"processing-after-file", none, "ErrNoAssistantMessage: only the tool box so far"},
		{"processing-streaming", prefix("Streaming a long answer, chunk by chunk"), "the partial streamed answer"},
		{"interrupted-streaming", prefix("A partial answer that is cut short."), "the partial answer, without the cancel note"},
		{"completed-draft", prefix("A partial answer that is cut short."), "the partial answer, not the draft"},
		{"error-api-400", none, "ErrNoAssistantMessage: an API error is no answer"},
		{"interrupted-retrying", none, "ErrNoAssistantMessage: cancelled before any answer"},
		{"waiting-confirmation", none, "ErrNoAssistantMessage: a dialog"},
	}
	for _, size := range []string{"80x24", "200x50"} {
		for _, tc := range tests {
			for _, suffix := range []string{".txt", ".plain.txt"} {
				file := filepath.Join(size, tc.file+suffix)
				t.Run(file, func(t *testing.T) {
					b, err := os.ReadFile(filepath.Join(realDir, file))
					if err != nil {
						t.Fatal(err)
					}
					if got, err := ExtractLastMessage(string(b)); !tc.ok(got, err) {
						t.Fatalf("got %q, %v; want %s", got, err, tc.want)
					}
				})
			}
		}
	}
}

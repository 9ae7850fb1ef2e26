package codex

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real Codex 0.169.
var realDir = filepath.Join("testdata", "real-0.169")

// TestRealCodex0169Screens runs the classifier over every screen captured
// from the real Codex 0.169 CLI, with its pane title, against the status
// the manifest says it shows (internal/conformance).
func TestRealCodex0169Screens(t *testing.T) {
	conformance.CheckScreens(t, realDir, New(), conformance.Want{Titles: true})
}

// TestRealCodex0169LastMessage: the fallback text read off the real screens
// that the manifest gives no message for. Partial answers depend on when
// the capture was taken, so those are checked by their ends.
func TestRealCodex0169LastMessage(t *testing.T) {
	dir := realDir
	none := func(msg string, err error) bool { return errors.Is(err, ErrNoAssistantMessage) }
	startsWith := func(prefix, suffix string) func(string, error) bool {
		return func(msg string, err error) bool {
			return err == nil && strings.HasPrefix(msg, prefix) && strings.HasSuffix(msg, suffix) &&
				!strings.Contains(msg, "Conversation interrupted") && !strings.Contains(msg, "Worked for")
		}
	}
	tests := []struct {
		file string
		ok   func(string, error) bool
		want string
	}{
		{"completed-streamed.txt", startsWith("Streaming a long answer, chunk by chunk", "while it grows."), "the whole streamed answer"},
		{"interrupted-streaming.txt", startsWith("A partial answer", ""), "the partial answer"},
		{"completed-draft.txt", startsWith("A partial answer", ""), "the partial answer, not the draft"},
		{"completed-tool-only.txt", none, "ErrNoAssistantMessage: the turn's only output is a tool cell"},
		{"idle-fresh.txt", none, "ErrNoAssistantMessage"},
		{"processing-after-file.txt", none, "ErrNoAssistantMessage: only a tool cell so far"},
		{"approval-command.txt", none, "ErrNoAssistantMessage: a pending command and its approval menu"},
		{"error-stream-failed.txt", none, "ErrNoAssistantMessage"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := ExtractLastMessage(string(b)); !tc.ok(got, err) {
				t.Fatalf("got %q, %v; want %s", got, err, tc.want)
			}
		})
	}
}

package codex

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
)

// realCase is one entry of testdata/real-0.169/manifest.json: a screen
// captured from the real Codex 0.169 CLI (capture-pane -e -p -J) with the
// pane title at that moment and the status it shows.
type realCase struct {
	File   string         `json:"file"`
	Title  string         `json:"title"`
	Status handoff.Status `json:"status"`
	Note   string         `json:"note"`
	// Message, when set, is the last assistant message on the screen.
	Message string `json:"message"`
}

func loadRealCases(t *testing.T, dir string) []realCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatalf("the real Codex screens must be in the repository: %v", err)
	}
	var cases []realCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("manifest.json: %v", err)
	}
	if len(cases) == 0 {
		t.Fatal("manifest.json lists no screens")
	}
	return cases
}

// TestRealCodex0169Screens runs the classifier over every screen captured
// from the real Codex 0.169 CLI, with its pane title, against the status
// the manifest says it shows.
func TestRealCodex0169Screens(t *testing.T) {
	dir := filepath.Join("testdata", "real-0.169")
	for _, rc := range loadRealCases(t, dir) {
		t.Run(rc.File, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, rc.File))
			if err != nil {
				t.Fatal(err)
			}
			got := New().Classify(string(b), rc.Title)
			if got.Status != rc.Status {
				sig, _ := json.Marshal(got.Signals)
				t.Errorf("status %q (%s), want %q — %s\nsignals: %s", got.Status, got.Reason, rc.Status, rc.Note, sig)
			}
			if rc.Message != "" {
				if msg, err := ExtractLastMessage(string(b)); err != nil || msg != rc.Message {
					t.Errorf("last message %q, %v; want %q", msg, err, rc.Message)
				}
			}
		})
	}
}

// TestRealCodex0169LastMessage: the fallback text read off the real screens
// that the manifest gives no message for. Partial answers depend on when
// the capture was taken, so those are checked by their ends.
func TestRealCodex0169LastMessage(t *testing.T) {
	dir := filepath.Join("testdata", "real-0.169")
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

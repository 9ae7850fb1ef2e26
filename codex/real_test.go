package codex

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
		})
	}
}

// TestRealCodex0169LastMessage: the fallback text read off the real screens.
func TestRealCodex0169LastMessage(t *testing.T) {
	dir := filepath.Join("testdata", "real-0.169")
	tests := []struct {
		file string
		want string // "" means ErrNoAssistantMessage
	}{
		{"completed-answer.txt", "Hello after a slow start."},
		{"completed-after-file.txt", "I wrote the response file."},
		{"completed-approved.txt", "Created the marker file."},
		{"interrupted-streaming.txt", "A partial answer that is cut short. A pa"},
		{"completed-draft.txt", "A partial answer that is cut short. A pa"},
		{"completed-streamed.txt", "Streaming a long answer, chunk by chunk, so the screen can be read while it grows. Streaming a long answer, chunk by\n" +
			"chunk, so the screen can be read while it grows. Streaming a long answer, chunk by chunk, so the screen can be read\n" +
			"while it grows. Streaming a long answer, chunk by chunk, so the screen can be read while it grows."},
		{"completed-tool-only.txt", ""},
		{"idle-fresh.txt", ""},
		{"processing-after-file.txt", ""},
		{"approval-command.txt", ""},
		{"error-stream-failed.txt", ""},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, tc.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := ExtractLastMessage(string(b))
			if tc.want == "" {
				if !errors.Is(err, ErrNoAssistantMessage) {
					t.Fatalf("got %q, %v; want ErrNoAssistantMessage", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

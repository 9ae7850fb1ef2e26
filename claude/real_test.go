package claude

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
)

// realDir holds the screens captured from the real Claude Code.
var realDir = filepath.Join("testdata", "real-2.1.330")

// realCase is one entry of testdata/real-2.1.330/manifest.json: a screen
// captured from the real Claude Code 2.1.330 in tmux, with the pane title
// at that moment and the status it shows.
type realCase struct {
	File    string         `json:"file"`
	Title   string         `json:"title"`
	Status  handoff.Status `json:"status"`
	Note    string         `json:"note"`
	Size    string         `json:"size"`
	Capture string         `json:"capture"`
	// Message, when set, is the last assistant message as the model sent
	// it (the screen may wrap it: compared word by word).
	Message string `json:"message"`
	// Detail, when set, starts the error line Classification.Detail quotes.
	Detail string `json:"detail"`
}

func loadRealCases(t testing.TB) []realCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, "manifest.json"))
	if err != nil {
		t.Fatalf("the real Claude Code screens must be in the repository: %v", err)
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

func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestRealClaude2_1_330Screens runs the classifier over every screen
// captured from the real Claude Code, with its pane title, against the
// status the manifest says it shows; on error screens Detail must quote the
// error, and where the manifest gives the last message, the extraction must
// find it.
func TestRealClaude2_1_330Screens(t *testing.T) {
	seen := map[handoff.Status]int{}
	sizes := map[string]bool{}
	for _, rc := range loadRealCases(t) {
		seen[rc.Status]++
		sizes[rc.Size] = true
		t.Run(rc.File, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(realDir, rc.File))
			if err != nil {
				t.Fatal(err)
			}
			got := New().Classify(string(b), rc.Title)
			if got.Status != rc.Status {
				sig, _ := json.Marshal(got.Signals)
				t.Errorf("status %q (%s), want %q — %s\nsignals: %s", got.Status, got.Reason, rc.Status, rc.Note, sig)
			}
			if rc.Status == handoff.StatusError && !strings.HasPrefix(got.Detail, rc.Detail) {
				t.Errorf("detail %q, want it to start with %q", got.Detail, rc.Detail)
			}
			if rc.Status != handoff.StatusError && got.Detail != "" {
				t.Errorf("detail %q on a %s screen", got.Detail, got.Status)
			}
			if rc.Message != "" {
				msg, err := ExtractLastMessage(string(b))
				if err != nil || words(msg) != words(rc.Message) {
					t.Errorf("last message %q, %v; want %q", msg, err, rc.Message)
				}
			}
		})
	}
	for _, st := range []handoff.Status{handoff.StatusIdle, handoff.StatusProcessing, handoff.StatusCompleted, handoff.StatusWaitingUserAnswer, handoff.StatusError} {
		if seen[st] == 0 {
			t.Errorf("no real screen shows %s", st)
		}
	}
	if len(sizes) < 2 {
		t.Errorf("screens of %d pane size(s), want at least two", len(sizes))
	}
}

// TestRealClaude2_1_330LastMessage: the fallback text read off the real
// screens the manifest gives no message for.
func TestRealClaude2_1_330LastMessage(t *testing.T) {
	none := func(msg string, err error) bool { return errors.Is(err, ErrNoAssistantMessage) }
	prefix := func(p string) func(string, error) bool {
		return func(msg string, err error) bool {
			return err == nil && strings.HasPrefix(msg, p) && !strings.Contains(msg, "Interrupted") && !strings.Contains(msg, "✻")
		}
	}
	tests := []struct {
		file string
		ok   func(string, error) bool
		want string
	}{
		{"idle-fresh", none, "ErrNoAssistantMessage: no prompt yet"},
		{"processing-first-byte", none, "ErrNoAssistantMessage: nothing answered yet"},
		{"processing-after-file", none, "ErrNoAssistantMessage: only the tool call so far"},
		{"processing-streaming", prefix("Streaming a long answer, chunk by chunk"), "the partial streamed answer"},
		{"interrupted-streaming", prefix("A partial answer that is cut short."), "the partial answer, without the Interrupted note"},
		{"completed-draft", prefix("A partial answer that is cut short."), "the partial answer, not the draft"},
		{"error-api-500", none, "ErrNoAssistantMessage: an API error is no answer"},
		{"waiting-permission", none, "ErrNoAssistantMessage: a dialog"},
		{"waiting-question", none, "ErrNoAssistantMessage: a dialog"},
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

package provider_test

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// Each composer's draft is read off real screens (handoff.DraftReader;
// the tmux driver pastes onto no draft, handoff.Held): a draft not sent,
// the prompt Claude Code and Qwen Code put back into the composer when a
// turn is interrupted (Qwen Code's in every terminal and mode it was taken
// in), a short paste, a fold; nothing for an empty composer or its
// placeholder (Claude Code's after a failed request, OpenCode's hint with
// a rotating example; Kilo Code's, as OpenCode's). Paths are under each
// provider's package.
func TestComposersReadTheirDrafts(t *testing.T) {
	for name, want := range map[string]map[string]string{
		"claude": {
			"testdata/real-2.1.330/*/completed-draft*.txt":     "a draft that is not sent yet",
			"testdata/real-2.1.330/*/interrupted-waiting*.txt": "This turn gets interrupted while waiting",
			"testdata/composer/plain-text.txt":                 "plain text",
			"testdata/real-2.1.330/*/idle-fresh*.txt":          "",
			"testdata/real-2.1.330/*/error-api-500*.txt":       "",
		},
		"qwen": {
			"testdata/real-0.24.4/*/interrupted-streaming*.txt":   "This turn gets interrupted while streaming",
			"testdata/real-0.24.4/*/*/interrupted-streaming*.txt": "This turn gets interrupted while streaming",
			"testdata/paste/short-whole.txt":                      "Analyse the project briefly, please.",
			"testdata/real-0.24.4/*/idle-fresh*.txt":              "",
			"testdata/real-0.24.4/*/*/completed-answer*.txt":      "",
		},
		"opencode": {
			"testdata/paste/short-whole.txt":              "Analyse the project briefly, please.",
			"testdata/paste/three-lines-whole.txt":        "[Pasted ~3 lines]",
			"testdata/real-1.18.33/*/idle-fresh*.txt":     "",
			"testdata/real-1.18.33/*/*/idle-fresh*.txt":   "",
			"testdata/real-1.18.33/*/completed-tool*.txt": "",
		},
		"kilo": {
			"testdata/real-7.7.7/*/completed-draft*.txt":        "a draft that is not sent yet",
			"testdata/real-7.7.7/*/completed-pasted-draft*.txt": "[Pasted ~12 lines]",
			"testdata/real-7.7.7/*/idle-fresh*.txt":             "",
		},
	} {
		t.Run(name, func(t *testing.T) {
			p, ok := provider.Find(name)
			if !ok {
				t.Fatalf("no provider %s", name)
			}
			under := map[string]string{}
			for glob, draft := range want {
				under[filepath.Join("..", name, glob)] = draft
			}
			testkit.CheckDrafts(t, p, under)
		})
	}
}

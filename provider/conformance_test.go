package provider_test

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// leaders are the characters that, first in a message, open another mode
// of each CLI's composer, as tried on the real CLIs (see each provider's
// Composer): the lead line must guard every one of them.
var leaders = map[string]string{"claude": "!/#", "codex": "!/", "gemini": "!/?", "opencode": "!/", "pi": "!/", "qwen": "!/?"}

// Every provider's composer rules read its real screens after a paste as
// they are (a shell mode, or a plain message; its testdata/composer), and
// every mode character at the start of a prompt gets the lead line.
func TestEveryComposerKeepsAPromptAMessage(t *testing.T) {
	for _, p := range provider.All() {
		t.Run(p.Name, func(t *testing.T) {
			want, ok := leaders[p.Name]
			if !ok {
				t.Fatalf("no leaders known for %s: say which characters open another mode of its composer", p.Name)
			}
			conformance.CheckComposer(t, p, filepath.Join("..", p.Name, "testdata", "composer"), want)
		})
	}
}

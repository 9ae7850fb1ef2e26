package codex

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version is the Codex CLI release whose real screens (testdata/real-0.169)
// and end-to-end runs prove this package; the real-CLI harness pins it.
const Version = "0.169.0"

// Provider is Codex CLI (npm @openai/codex) as the registry lists it. A turn's
// end is reported by its notify program (agent-turn-complete).
func Provider() screen.Provider {
	return screen.Provider{Name: "codex", CLI: "@openai/codex", Version: Version, Hook: "notify (agent-turn-complete)",
		Composer: composerRules(), Read: classify, Last: lastMessage, Recognize: recognize}
}

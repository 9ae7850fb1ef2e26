package pi

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version is the pi coding agent release whose screens are in testdata; the
// harness in internal/realpi runs this one.
const Version = "0.73.1"

// Provider is pi, the coding agent (@mariozechner/pi-coding-agent). It has
// extensions, not hooks (docs/providers.md): no turn-end hook.
func Provider() screen.Provider {
	return screen.Provider{Name: "pi", CLI: "@mariozechner/pi-coding-agent", Version: Version,
		Composer: composerRules(), Read: classify, Last: lastMessage, Recognize: recognize}
}

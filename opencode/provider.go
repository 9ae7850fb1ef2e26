package opencode

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version: the OpenCode release (npm opencode-ai) these rules were written
// against; internal/realopencode installs it for the e2e tests.
const Version = "1.18.33"

// Provider is OpenCode. No hook is registered: OpenCode's would be a plugin
// rather than a command, so only its screen says a turn ended.
func Provider() screen.Provider {
	return screen.Provider{Name: "opencode", CLI: "opencode-ai", Version: Version,
		Composer: composerRules(), Read: classify, Last: lastMessage, Recognize: recognize}
}

package claude

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version is the Claude Code release its captured screens and the
// end-to-end tests were taken from; realclaude installs this one.
const Version = "2.1.330"

// Provider is Anthropic's Claude Code (@anthropic-ai/claude-code). Its Stop
// hook, run when a reply is done, reports the end of a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "claude", CLI: "@anthropic-ai/claude-code", Version: Version, Hook: "Stop",
		Composer: composerRules(), Read: classify, Last: lastMessage, Recognize: recognize}
}

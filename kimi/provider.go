package kimi

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the Kimi Code release whose screens are in testdata; the
// harness in internal/realkimi runs this one.
const Version = "2.1.0"

// Provider is Kimi Code (@moonshot-ai/kimi-code, run by Node 22). Its Stop
// hook ([[hooks]] in config.toml) reports the end of a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "kimi", CLI: "@moonshot-ai/kimi-code", Version: Version, Window: screen.Window{Oldest: Version, Newest: Version}, Hook: "Stop", Read: screen.Reader(read), Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		// Kimi Code 2.1.0's composer, tried on the real CLI: '!' first,
		// typed or pasted, is shell mode at once ("╭ ! shell mode ─", "│
		// !" in place of "│ >"; Enter runs the text in a shell); '/'
		// opens the command menu and Enter runs the command. '?', '@',
		// '#', '$', '&', '>', ':', '*' pasted or typed first stay text.
		Composer: screen.Composer{Leaders: "!/", Read: composerMode, ClearFor: clearKeys, ReadDraft: pasteForm().Draft, ReadPaste: pasteForm().Read},
		Launch:   screen.Launch{Hook: hook, Via: "KIMI_CODE_HOME (a copy of config.toml with a Stop hook)", Resume: []string{"--continue"}}}
}

package cont

import (
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the Continue CLI release whose screens are in testdata; the
// harness in internal/realcontinue runs this one.
const Version = "1.5.47"

// Provider is Continue's CLI (@continuedev/cli, the command cn, run by
// Node). It has no turn-end hook that fires: 1.5.47 reads Claude
// Code-style hooks from its settings files, but nothing in it fires them
// (docs/providers.md), so its screen decides, as OpenCode's does.
func Provider() screen.Provider {
	return screen.Provider{Name: "continue", CLI: "@continuedev/cli", Version: Version, Window: screen.Window{Oldest: Version, Newest: Version}, Read: screen.Reader(read), Last: lastMessage, Recognize: recognize,
		// Continue 1.5.47's composer, tried on the real CLI: '!' first,
		// typed or pasted, is shell mode at once ("│ $ !text"; Enter runs
		// it in a shell); '/' first makes the message a slash command
		// ("/help me" pasted and Enter showed the help). '@' opens a file
		// menu while a word is typed, but "@abc please" pasted and Enter
		// reached the model as text.
		Composer: screen.Composer{Leaders: "!/", ClearFor: clearKeys, Read: composerMode, ReadDraft: pasteForm().Draft, ReadPaste: readPaste},
		// No hook to wire; --resume goes on with the newest session of
		// the global folder, which own makes the agent's.
		Launch: screen.Launch{Own: own, Resume: []string{"--resume"}},
	}
}

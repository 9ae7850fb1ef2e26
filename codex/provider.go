package codex

import (
	"encoding/json"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the Codex CLI release whose real screens (testdata/real-0.169)
// and end-to-end runs prove this package; the real-CLI harness pins it.
const Version = "0.169.0"

// Provider is Codex CLI (npm @openai/codex) as the registry lists it. A turn's
// end is reported by its notify program (agent-turn-complete).
func Provider() screen.Provider {
	return screen.Provider{Name: "codex", CLI: "@openai/codex", Version: Version,
		// The releases proven to read right (docs/versions.md, scripts/versions.sh).
		Window: screen.Window{Oldest: "0.150.0", Newest: "0.171.0"},
		Hook:   "notify (agent-turn-complete)", Read: classify, Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		// Codex 0.169's composer, tried on the real CLI with pasted text:
		//   - '!' as the message's first character switches it to shell mode (the
		//     prompt becomes "!", "Shell mode" shows at the right under it), and
		//     Enter runs the message as a shell command: the model is never asked.
		//     After a leading blank or line break it stays a message.
		//   - '/' first makes the message a slash command when submitted ("/new",
		//     "/quit"); the paste itself opens no menu.
		//   - '@', '#', '$' and '?' first stay plain text when pasted.
		//   - Ctrl-C empties a composer that holds text and leaves shell mode (on
		//     an empty one it would offer to quit, so an empty shell-mode composer
		//     gets Backspace instead).
		Composer: screen.Composer{Leaders: "!/", ClearFor: clearKeys, Read: composerMode, ReadDraft: draft, ReadPaste: pasteForm().Read},
		// Codex runs its notify program with each finished turn's JSON as
		// its last argument; -c overrides config.toml for this process.
		Launch: screen.Launch{Hook: func(_ string, cmd []string) screen.Wiring {
			return screen.Wiring{Args: []string{"-c", "notify=" + tomlArray(cmd)}}
		}, Via: "-c notify=[…]", Resume: []string{"resume", "--last"}}}
}

// tomlArray is argv as a TOML array of strings: a JSON string is a valid
// TOML basic string (both escape quotes, backslashes and control
// characters the same way, \uXXXX included).
func tomlArray(argv []string) string {
	b, _ := json.Marshal(argv)
	return string(b)
}

package claude

import (
	"path/filepath"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the Claude Code release its captured screens and the
// end-to-end tests were taken from; realclaude installs this one.
const Version = "2.1.330"

// Provider is Anthropic's Claude Code (@anthropic-ai/claude-code). Its Stop
// hook, run when a reply is done, reports the end of a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "claude", CLI: "@anthropic-ai/claude-code", Version: Version,
		// The releases proven to read right (docs/versions.md, scripts/versions.sh).
		Window: screen.Window{Oldest: "2.1.300", Newest: "2.1.332"},
		Hook:   "Stop", Read: screen.Reader(read), Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		// Claude Code 2.1.330's composer, tried on the real CLI with pasted text:
		//   - '!' as the message's first character switches it to bash mode (the
		//     prompt becomes "!", the hint below it "! for shell mode"), and Enter
		//     then runs the whole message in a shell; after a leading blank or
		//     line break it stays a message.
		//   - '/' first makes the message a slash command when it is submitted
		//     (the paste opens no menu): "/clear" would clear the session.
		//   - '#', '@', '&' and '?' first stay plain text when pasted ('@path'
		//     attaches a file that exists, wherever it stands).
		//   - Esc Esc empties the composer but stays in bash mode; Backspace on
		//     the empty composer leaves it (on a loaded machine the Backspace can
		//     come before the Esc Esc is done: the driver looks and presses again).
		Composer: screen.Composer{Leaders: "!/#", ClearFor: clearKeys, Read: composerMode, ReadDraft: pasteForm().Draft, ReadPaste: pasteForm().Read},
		// Claude Code reads more settings from --settings FILE, merged with
		// the user's; its Stop hook gets the event's JSON on stdin.
		Launch: screen.Launch{Hook: func(files string, cmd []string) screen.Wiring {
			f := filepath.Join(files, "claude-settings.json")
			return screen.Wiring{Args: []string{"--settings", f}, Files: map[string][]byte{f: screen.HooksJSON("Stop", cmd)}}
		}, Via: "--settings FILE (a Stop hook)", Resume: []string{"--continue"}}}
}

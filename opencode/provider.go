package opencode

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version: the OpenCode release (npm opencode-ai) these rules were written
// against; internal/realopencode installs it for the e2e tests.
const Version = "1.18.33"

// Provider is OpenCode. No hook is registered: OpenCode's would be a plugin
// rather than a command, so only its screen says a turn ended.
func Provider() screen.Provider {
	return screen.Provider{Name: "opencode", CLI: "opencode-ai", Version: Version,
		// The releases proven to read right (docs/versions.md, scripts/versions.sh).
		Window: screen.Window{Oldest: "1.18.25", Newest: "1.18.33"},
		Read:   classify, Last: lastMessage, Recognize: recognize,
		// OpenCode 1.18.33's composer, tried on the real CLI:
		//   - A pasted '!' stays text; a typed '!' on the empty composer switches
		//     it to shell mode (its agent label reads "Shell", the footer "esc exit
		//     shell mode"), where Enter runs the message in a shell.
		//   - '/' first is a command when submitted; a typed one opens the command
		//     menu ("/review  review changes …") above the composer.
		//   - Esc leaves shell mode or the menu, Ctrl-U empties the composer line
		//     by line.
		Composer: screen.Composer{Leaders: "!/", Clear: clearKeys(), Read: composerMode, ReadPaste: pasteForm().Read},
		// Plug-ins, no command hook: its screen and the response file decide.
		Launch: screen.Launch{Resume: []string{"--continue"}}}
}

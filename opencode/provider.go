package opencode

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version: the OpenCode release (npm opencode-ai) these rules were written
// against; internal/realopencode installs it for the e2e tests.
const Version = "1.18.33"

// Provider is OpenCode. No hook is registered: OpenCode's would be a plugin
// rather than a command, so only its screen says a turn ended.
func Provider() screen.Provider {
	p := Rules()
	p.Name, p.CLI, p.Version = "opencode", "opencode-ai", Version
	// The releases proven to read right (docs/versions.md, scripts/versions.sh).
	p.Window = screen.Window{Oldest: "1.18.25", Newest: "1.18.33"}
	p.Recognize = recognize
	// Plug-ins, no command hook: its screen and the response file decide.
	p.Launch = screen.Launch{Resume: []string{"--continue"}}
	return p
}

// Rules are OpenCode's rules that read its screen and its composer, without
// its name, version, recogniser or launch: a CLI that draws OpenCode's
// screen (Kilo Code, a fork) takes them whole and adds its own. Nothing in
// them names the agent ("Build", Kilo's "Code").
func Rules() screen.Provider {
	return screen.Provider{Read: screen.Reader(read), Last: lastMessage,
		// OpenCode redraws a full screen (its history scrolls inside it and
		// blanks between frames): the check at the end cannot tell.
		Transcript: screen.Transcript{Cannot: "OpenCode redraws a full screen"},
		// OpenCode 1.18.33's composer, tried on the real CLI:
		//   - A pasted '!' stays text; a typed '!' on the empty composer
		//     switches it to shell mode (its agent label reads "Shell", the
		//     footer "esc exit shell mode"), where Enter runs the message in
		//     a shell.
		//   - '/' first is a command when submitted; a typed one opens the
		//     command menu ("/review  review changes …") above the composer.
		//   - Esc leaves shell mode or the menu, Ctrl-U empties the composer
		//     line by line.
		Composer: screen.Composer{Leaders: "!/", Clear: clearKeys(), Read: composerMode, ReadDraft: pasteForm().Draft, ReadPaste: pasteForm().Read}}
}

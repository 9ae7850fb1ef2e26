package pi

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version is the pi coding agent release whose screens are in testdata; the
// harness in internal/realpi runs this one.
const Version = "0.73.1"

// Provider is pi, the coding agent (@mariozechner/pi-coding-agent). It has
// extensions, not hooks (docs/providers.md): no turn-end hook.
func Provider() screen.Provider {
	return screen.Provider{Name: "pi", CLI: "@mariozechner/pi-coding-agent", Version: Version,
		// The releases proven to read right (docs/versions.md, scripts/versions.sh).
		Window: screen.Window{Oldest: "0.70.5", Newest: "0.73.1"},
		Read:   screen.Reader(read), Last: lastMessage, Recognize: recognize,
		// pi 0.73.1 draws a user message and a reply alike in plain text, one
		// column in, a user message told apart only by its background colour
		// (e2e TestEndCheckProbe's screens): the check at the end cannot tell.
		Transcript: screen.Transcript{Cannot: "pi marks its user messages by colour only"},
		// pi 0.73.1's editor, tried on the real CLI: a message that starts with
		// '!' runs as a bash command when submitted ("!!" too, kept out of the
		// context), and '/' first is a command; the editor drops leading empty
		// lines of a paste, so a line break is no guard. Its bash mode shows only
		// as the editor's border colour, which a plain capture cannot see: the
		// lead line is the guard, and Mode reads nothing.
		// Ctrl-C empties its composer (pressed twice on an empty one, it quits).
		Composer: screen.Composer{Leaders: "!/", Clear: []string{"C-c"}, ReadDraft: pasteForm().Draft, ReadPaste: pasteForm().Read},
		// Extensions, no command hook: its screen and the response file decide.
		Launch: screen.Launch{Resume: []string{"--continue"}}}
}

package omp

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version is the OMP release whose screens are in testdata; the harness in
// internal/realomp runs this one. Not the newest (18.3.4): that one pins
// @oh-my-pi/omp-stats 18.3.4, which the npm mirror here lacks (its newest
// is 18.2.11), and 18.2.9 pins omp-stats 18.2.9, also missing; 18.2.3 is
// the newest release whose dependencies all install.
const Version = "18.2.3"

// Provider is OMP, oh-my-pi's coding agent (@oh-my-pi/pi-coding-agent, a
// fork of pi that runs on Bun). It draws its own screen, not pi's (a
// status line over a one-line editor, no rules around it): its rules are
// its own. It has no turn-end hook here: its screen and the response file
// decide.
func Provider() screen.Provider {
	return screen.Provider{Name: "omp", CLI: "@oh-my-pi/pi-coding-agent", Version: Version, Window: screen.Window{Oldest: "18.2.0", Newest: Version}, Read: screen.Reader(read), Last: lastMessage, Recognize: recognize,
		// As pi's, a user message and a reply are plain text one column in:
		// only the message's shaded band (a background colour) tells them
		// apart, which the driver's plain capture does not keep.
		Transcript: screen.Transcript{Cannot: "OMP marks its user messages by colour only"},
		// OMP 18.2.3's editor, tried on the real CLI: '!' first runs the
		// message as bash and '$' as Python (shown only as the editor
		// border's colour, which a plain capture cannot see), '/' opens the
		// command list and '#' the prompt actions. The lead line is the
		// guard, and Mode reads nothing. Ctrl-C empties the editor and leaves
		// the bash or Python mode (the driver clears only after a paste, so
		// the editor holds text and Ctrl-C does not arm the exit).
		Composer: screen.Composer{Leaders: "!$#/", Clear: []string{"C-c"}, ReadPaste: readPaste},
		// --continue reopens the folder's last session.
		Launch: screen.Launch{Resume: []string{"--continue"}}}
}

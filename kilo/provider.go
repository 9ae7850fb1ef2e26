// Package kilo reads the screen of Kilo Code (@kilocode/cli 7.7.7), a fork
// of OpenCode that draws OpenCode's screen: the composer box closed by
// "╹▀▀▀" with the agent line ("┃  Code  · fake-model Fake"), the hint line
// under it ("esc interrupt" while a turn runs), each turn's footer ("▣
// Code · fake-model · 4.2s"), a bash permission in the composer's place.
// OpenCode's rules (opencode.Rules) read it whole; this package adds only
// what is Kilo's own: its name and version, how its pane is recognised
// (title "Kilo CLI", command kilo) and how it is resumed.
package kilo

import (
	"github.com/handoff-fsm/handoff-fsm/opencode"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the Kilo Code release whose screens are in testdata; the
// harness in internal/realkilo runs this one.
const Version = "7.7.7"

// Provider is Kilo Code (@kilocode/cli-linux-x64, the platform package of
// @kilocode/cli), read with OpenCode's rules. It has plug-ins, not a hook
// command: its screen and the response file decide a turn's end.
func Provider() screen.Provider {
	p := opencode.Rules()
	p.Name, p.CLI, p.Version = "kilo", "@kilocode/cli-linux-x64", Version
	p.Window = screen.Window{Oldest: Version, Newest: Version}
	p.Recognize = recognize
	// OpenCode's full screen, redrawn: its transcript cannot tell.
	p.Transcript = screen.Transcript{Cannot: "Kilo Code redraws a full screen"}
	// "kilo --continue" resumes the newest session of its folder.
	p.Launch = screen.Launch{Resume: []string{"--continue"}}
	return p
}

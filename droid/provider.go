package droid

import (
	"path/filepath"
	"time"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version is the droid release whose screens are in testdata; the harness
// in internal/realdroid runs this one.
const Version = "0.225.2"

// Provider is Factory's droid (@factory/cli-linux-x64, the platform package
// of @factory/cli). Its Stop hook, in Claude Code's settings form, reports
// the end of a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "droid", CLI: "@factory/cli-linux-x64", Version: Version, Window: screen.Window{Oldest: "0.215.0", Newest: Version}, Hook: "Stop", Read: screen.Reader(read), Last: lastMessage, Recognize: recognize,
		// A user message is drawn three columns in, as a tool call's line
		// under it ("   Execute cat …"): only an orange bar at column 0 (a
		// background colour) marks it, which the driver's plain capture
		// does not keep (testdata/submitted).
		Transcript: screen.Transcript{Cannot: "droid marks its user messages by colour only"},
		// droid redraws its composer (or folds a long paste) a moment after
		// a bracketed paste: 300 ms is what its real-CLI tests ran with (the
		// driver's default, 250 ms, was not tried).
		EnterDelay: 300 * time.Millisecond,
		// droid 0.225.2's composer, tried on the real CLI: a pasted '!' stays
		// text (it reaches the model), but a typed '!' on the empty composer
		// is bash mode ("Bash mode active • Esc to exit" above it, "!" in
		// place of ">"), and a paste into it would run as a command; '/'
		// first opens the command menu and Enter runs the command ("/new"
		// starts a new session). '#', '?', '@', '&', '$' pasted first stay
		// text ('?' typed on the empty composer opens the help). Esc leaves
		// bash mode and keeps the text; Ctrl-U empties one line.
		Composer: screen.Composer{Leaders: "!/", Read: composerMode, ClearFor: clearKeys, ReadPaste: readPaste},
		// droid merges more settings from --settings FILE for one process
		// (Claude Code's hooks form); it resumes the newest session of its
		// folder with --resume --last.
		Launch: screen.Launch{Hook: func(files string, cmd []string) screen.Wiring {
			f := filepath.Join(files, "droid-settings.json")
			return screen.Wiring{Args: []string{"--settings", f}, Files: map[string][]byte{f: screen.HooksJSON("Stop", cmd)}}
		}, Via: "--settings FILE (a Stop hook)", Resume: []string{"--resume", "--last"}}}
}

package cline

import (
	"time"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version of Cline behind testdata/real-* and the end-to-end runs; pinned
// by internal/realcline.
const Version = "3.0.65"

// enterDelay is the pause Cline is given between a paste and Enter. On a
// machine at a load average of 40, an Enter 250 ms after its fold of the
// paste showed was lost once in six dispatches (the fold stayed in the
// composer); the harness's own Submit waits 500 ms and retries.
const enterDelay = time.Second

// Provider is Cline's terminal UI (the cline npm package; the binary of
// @cline/cli-linux-x64): its TaskComplete hook ends a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "cline", CLI: "cline", Version: Version, Window: screen.Window{Oldest: "3.0.61", Newest: Version}, Hook: "TaskComplete", EnterDelay: enterDelay, Read: screen.Reader(read), Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		Composer: screen.Composer{Leaders: "/", ClearFor: clearKeys, Read: readMode, ReadDraft: readDraft, ReadPaste: readPaste, RawLineBreaks: true},
		Launch:   launch()}
}

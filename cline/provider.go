package cline

import "github.com/handoff-fsm/handoff-fsm/screen"

// Version of Cline behind testdata/real-* and the end-to-end runs; pinned
// by internal/realcline.
const Version = "3.0.65"

// Provider is Cline's terminal UI (the cline npm package; the binary of
// @cline/cli-linux-x64): its TaskComplete hook ends a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "cline", CLI: "cline", Version: Version, Hook: "TaskComplete", Read: classify, Last: lastMessage, Recognize: recognize,
		Composer: screen.Composer{Leaders: "/", ClearFor: clearKeys, Read: readMode, ReadDraft: readDraft, ReadPaste: readPaste, RawLineBreaks: true},
		Launch:   launch()}
}

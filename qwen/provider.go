package qwen

import (
	"time"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version of Qwen Code behind testdata/real-* and the end-to-end runs;
// pinned by internal/realqwen.
const Version = "0.24.4"

// enterDelay is the pause Qwen Code is given between a paste and Enter.
// It folds a long paste into "[Pasted Content N chars]" and unfolds it
// when the prompt is submitted; with the driver's default pause (a quarter
// second, then until the screen holds still) it sometimes sent the model
// the placeholder itself (2 of 5 second dispatches on a loaded machine).
// Its input handler reads the folded text from state, and it re-renders
// half a second after a paste; a pause past that is the cure tried here.
const enterDelay = 1500 * time.Millisecond

// Provider is Qwen Code (@qwen-code/qwen-code), the Gemini CLI fork: its
// Stop hook ends a turn, and a paste needs its own pause before Enter.
func Provider() screen.Provider {
	return screen.Provider{Name: "qwen", CLI: "@qwen-code/qwen-code", Version: Version,
		// The releases proven to read right (docs/versions.md, scripts/versions.sh).
		Window: screen.Window{Oldest: "0.23.0", Newest: "0.24.4"},
		Hook:   "Stop", EnterDelay: enterDelay, Read: screen.Reader(read), Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		// Qwen Code 0.24.4's composer is Gemini CLI's (a fork), tried on the real
		// CLI: a pasted '!' stays text, a typed one on the empty composer switches
		// to shell mode ("shell mode enabled (esc to disable)" under it); '/' and
		// '?' first make a command on submit, a typed '/' opens the command menu;
		// Esc leaves shell mode and Esc Esc empties the composer. Its line
		// breaks reach it as LF: Qwen Code ends a paste that pauses for a
		// second (an agent frozen or starved mid-paste) and takes the rest
		// as typed keys, where a CR is its submit key and an LF a line
		// break (docs/reliability.md, "Qwen Code frozen mid-paste").
		Composer: screen.Composer{Leaders: "!/?", Clear: []string{"Escape", "Escape", "Escape"}, Read: screen.HintMode(12, "shell mode enabled", screen.ShellMode), ReadDraft: pasteForm().Draft, ReadPaste: pasteForm().Read, RawLineBreaks: true},
		Launch: screen.Launch{Hook: screen.SystemDefaults("QWEN_CODE_SYSTEM_DEFAULTS_PATH", "Stop"),
			Via: "$QWEN_CODE_SYSTEM_DEFAULTS_PATH (a Stop hook)", Resume: []string{"--continue"}}}
}

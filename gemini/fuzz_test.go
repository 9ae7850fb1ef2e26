package gemini

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// FuzzClassify: any input is read without panicking into one of the five
// statuses with a one-line reason and JSON-encodable signals; the scan never
// reads more lines than there are; an error has a detail; the extraction
// either finds a non-empty message or says there is none; and once the
// last prompt is found, scrollback put above the capture changes neither
// the verdict, nor the work done, nor the extracted message.
//
// The seed corpus is every real Gemini CLI screen of testdata/real-0.61.0
// plus the files in testdata/fuzz/FuzzClassify.
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, conformance.Scrollback(prompt, "✕ [API Error: old]", " ⠼ Thinking... (esc to cancel, 1s)",
		"  Queued (press ↑ to edit):", "╭────╮", "│ ● 1. Allow once │", "╰────╯", "✦ an old answer"), func(s Signals) (int, int) { return s.LinesScanned, s.LastUserLine },
		conformance.Capture(prompt("hi"), ls("✦ Hello"), chrome(idleStatus, placeholder)), ready,
		conformance.Capture(prompt("hi"), chrome(busyStatus, placeholder)), working,
		conformance.Capture(prompt("hi"), ls("╭──╮", "│ ● 1. Allow once │", "╰──╯")), "✋  Action Required (work)")
}

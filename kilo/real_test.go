package kilo

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// realDir holds the screens captured from the real Kilo Code.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealKiloScreens runs OpenCode's rules, as Kilo's provider, over every
// screen captured from the real Kilo Code, with its pane title, against
// the status the manifest says it shows: two pane sizes, each with and
// without colour; and the main phases in five terminals and three approval
// modes (bash allowed, asked for, --auto).
func TestRealKiloScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealKiloLastMessage: the fallback text read off the real screens
// the manifest gives no message for, in every folder.
func TestRealKiloLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider(),
		conformance.LastMessageCase{File: "processing-streaming", OK: conformance.Prefix("", "┃", "▣", "esc interrupt"), Want: "the part streamed so far, without chrome"})
}

// FuzzClassify: any input is read into one of the five statuses with a
// one-line reason and JSON-encodable signals; scrollback above where the
// reading stopped changes nothing. The seed corpus is every real Kilo
// screen (OpenCode's fuzz target covers the rules' synthetic screens).
func FuzzClassify(f *testing.F) {
	conformance.FuzzScreens(f, Provider(), realDir, "     an old answer\n     ▣  Code · fake-model · 1.0s\n",
		func(s opencode.Signals) (int, int) { return s.LinesScanned, s.StopLine })
}

// TestRealKiloSnapshotQuestionWaits: Kilo's own question, asked when its
// first snapshot of a large repository is slow, waits for the user's
// answer, read by OpenCode's rule for a question (it was idle before).
func TestRealKiloSnapshotQuestionWaits(t *testing.T) {
	conformance.CheckReason(t, filepath.Join(realDir, "snapshot-question"), Provider(), opencode.ReasonQuestion,
		"80x24/waiting-snapshot", "200x50/waiting-snapshot")
}

package omp

import (
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// realDir holds the screens captured from the real OMP.
var realDir = filepath.Join("testdata", "real-"+Version)

// TestRealOmpScreens runs the classifier over every screen captured from
// the real OMP, with its pane title, against the status the manifest says
// it shows: two pane sizes, each with and without colour.
func TestRealOmpScreens(t *testing.T) {
	conformance.CheckRealScreens(t, realDir, Provider(), conformance.Want{Sizes: 2, Plain: true, Titles: true})
}

// TestRealOmpLastMessage: the fallback text read off the real screens the
// manifest gives no message for.
func TestRealOmpLastMessage(t *testing.T) {
	conformance.CheckScriptMessages(t, realDir, Provider())
}

package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// Every real screen with Gemini CLI's chrome is recognised by the screen
// alone (no command, no title), in every terminal it was captured in: a
// dialog in the composer's place aside.
func TestRecognizeRealScreensByScreen(t *testing.T) {
	for _, dir := range conformance.Dirs(realDir) {
		for _, s := range conformance.LoadScreens(t, dir) {
			b, err := os.ReadFile(filepath.Join(dir, s.File))
			if err != nil {
				t.Fatal(err)
			}
			if got := recognize("", string(b)); !got && s.Status != "waiting_user_answer" {
				t.Errorf("%s: not recognised by its screen", filepath.Join(dir, s.File))
			}
		}
	}
	if recognize("", "$ ls\nworkspace\n$\n") {
		t.Error("a shell recognised as Gemini CLI")
	}
}

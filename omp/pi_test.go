package omp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/pi"
)

// OMP is a fork of pi, and both run under a command that names neither
// (node, bun): their titles and screens alone must tell them apart. No
// real pi screen is OMP's, with its title or without; no real OMP screen
// is pi's; and OMP's screens are OMP's by the screen alone, except the
// approval box, which replaces its chrome (the title says it then).
func TestPiAndOmpScreensAreNotTakenForEachOther(t *testing.T) {
	piDir := filepath.Join("..", "pi", "testdata", "real-"+pi.Version)
	for _, s := range conformance.LoadScreens(t, piDir) {
		b, err := os.ReadFile(filepath.Join(piDir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		if recognize(s.Title, string(b)) || recognize("", string(b)) {
			t.Errorf("pi's %s (title %q) is recognised as OMP's", s.File, s.Title)
		}
	}
	byScreen := 0
	screens := conformance.LoadScreens(t, realDir)
	for _, s := range screens {
		b, err := os.ReadFile(filepath.Join(realDir, s.File))
		if err != nil {
			t.Fatal(err)
		}
		if pi.Provider().Recognize(s.Title, string(b)) || pi.Provider().Recognize("", string(b)) {
			t.Errorf("OMP's %s (title %q) is recognised as pi's", s.File, s.Title)
		}
		if recognize("", string(b)) {
			byScreen++
		} else if s.Status != "waiting_user_answer" {
			t.Errorf("OMP's %s (%s) is not recognised by its screen alone", s.File, s.Status)
		}
	}
	t.Logf("%d of %d real OMP screens recognised by the screen alone", byScreen, len(screens))
}

package testkit

import (
	"os"
	"path/filepath"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// CheckDrafts reads real captures with dr (a provider's composer, see
// handoff.DraftReader): want maps a glob of captures, relative to the
// provider's package, to the draft each must read ("" for an empty
// composer or its placeholder). Each glob must match a capture: a pattern
// that finds none proves nothing.
func CheckDrafts(t *testing.T, dr handoff.DraftReader, want map[string]string) {
	t.Helper()
	for pattern, draft := range want {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no capture (%v)", pattern, err)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if got := dr.Draft(string(b)); got != draft {
				t.Errorf("%s: draft %q, want %q", f, got, draft)
			}
		}
	}
}

package testkit

import (
	"os"
	"path/filepath"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Capture is one stored screen: its file and what it holds.
type Capture struct{ File, Text string }

// Captures reads the screens that pattern (a filepath.Glob) matches. None
// matching fails t: a check over no capture proves nothing.
func Captures(t testing.TB, pattern string) []Capture {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("no capture matches %s (%v)", pattern, err)
	}
	out := make([]Capture, 0, len(files))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Capture{f, string(b)})
	}
	return out
}

// CheckDrafts reads real captures with dr (a provider's composer, see
// handoff.DraftReader): want maps a glob of captures, relative to the
// provider's package, to the draft each must read ("" for an empty
// composer or its placeholder).
func CheckDrafts(t *testing.T, dr handoff.DraftReader, want map[string]string) {
	t.Helper()
	for pattern, draft := range want {
		for _, c := range Captures(t, pattern) {
			if got := dr.Draft(c.Text); got != draft {
				t.Errorf("%s: draft %q, want %q", c.File, got, draft)
			}
		}
	}
}

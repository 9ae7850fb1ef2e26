package responsefile_test

import (
	"os"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// What opening the folders without following links costs on the poll's
// path: Present (the response folder opened from the work folder down, then
// fstatat) beside the bare lstat it replaced.
func BenchmarkPresent(b *testing.B) {
	work := b.TempDir()
	if err := responsefile.EnsureDir(work); err != nil {
		b.Fatal(err)
	}
	p, _ := handoff.ResponsePath(work, "analyst")
	os.WriteFile(p, []byte("answer"), 0o644)
	b.Run("folders opened without links", func(b *testing.B) {
		for b.Loop() {
			if ok, err := responsefile.Present(p); !ok || err != nil {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("bare lstat", func(b *testing.B) {
		for b.Loop() {
			if _, err := os.Lstat(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

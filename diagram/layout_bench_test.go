package diagram

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// BenchmarkLayout is the search for the diagram's layout (once per
// service, on its first dispatch page).
func BenchmarkLayout(b *testing.B) {
	for b.Loop() {
		layout(handoff.Transitions())
	}
}

package realdroid

import "testing"

// droid's window title names its session once it has one; before, it is
// the hostname tmux starts the pane under, then "⛬ Droid".
func TestSessionShownReadsTheWindowTitle(t *testing.T) {
	for title, want := range map[string]bool{
		"vm":                false,
		"":                  false,
		"⛬ Droid":           false,
		"⛬ ":                false,
		"⛬ New Session":     true,
		"⛬ Say hello again": true,
	} {
		if got := SessionShown(title); got != want {
			t.Errorf("SessionShown(%q) = %v, want %v", title, got, want)
		}
	}
}

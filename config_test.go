package handoff_test

import (
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

func TestDurationsAcceptGoDurationsAndSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{
		"1.5s": 1500 * time.Millisecond, "500ms": 500 * time.Millisecond, "2": 2 * time.Second,
		"0.25": 250 * time.Millisecond, " 3m ": 3 * time.Minute, "0": 0,
	} {
		if got, err := handoff.ParseDuration(in); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"-1", "-2s", "two", "", "1e300"} {
		if _, err := handoff.ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) accepted", in)
		}
	}
}

package tmuxdriver

import "testing"

func TestProcStatStartCountsFieldsFromTheLastParenthesis(t *testing.T) {
	// A command name with spaces and a parenthesis of its own.
	line := "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 59963 1000 10 18446744073709551615\n"
	got, err := procStatStart(line)
	if err != nil || got != "59963 ticks after boot" {
		t.Fatalf("%q, %v", got, err)
	}
	if _, err := procStatStart("4242 (short) S 1"); err == nil {
		t.Fatal("a short line parsed")
	}
}

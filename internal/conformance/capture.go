package conformance

import "strings"

// Text joins lines into a capture, each line ended by a line break: a
// synthetic screen as a provider's tests build it.
func Text(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

// Capture is Text of groups of lines (a prompt, a reply, the chrome),
// one after the other.
func Capture(groups ...[]string) string { return Text(Join(groups...)...) }

// Join is groups of lines as one list (a Bench's Tail).
func Join(groups ...[]string) []string {
	var all []string
	for _, g := range groups {
		all = append(all, g...)
	}
	return all
}

// Scrollback is what may sit above a turn in a fuzz test (FuzzScreens's
// old): an old prompt drawn by prompt, then the old lines (errors,
// dialogs, busy lines, replies) and an unterminated title escape, 40
// times. None of it may change how the turn below is read.
func Scrollback(prompt func(string) []string, old ...string) string {
	return strings.Repeat(Capture(prompt("an old question"), old, []string{"\x1b]0;unterminated"}), 40)
}

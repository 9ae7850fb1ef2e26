//go:build !linux

package tmuxdriver

// unreadInput cannot be told here: Send then never presses Enter twice.
func unreadInput(string) (int, bool) { return 0, false }

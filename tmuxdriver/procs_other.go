//go:build !unix

package tmuxdriver

// endProcesses has nothing to do where tmux does not run.
func endProcesses([]int) []int { return nil }

// effortOf cannot tell where there is no /proc: nothing is known.
func effortOf(int) (effort, bool) { return effort{}, false }

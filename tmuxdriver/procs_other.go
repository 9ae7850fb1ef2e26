//go:build !unix

package tmuxdriver

import "time"

// endProcesses has nothing to do where tmux does not run.
func endProcesses([]int) []int { return nil }

// heldBack cannot tell where there is no /proc: nothing is known.
func heldBack(int) (held bool, waited time.Duration, known bool) { return false, 0, false }

//go:build unix

// Package proctable reads the process table from /proc: a process's
// state fields, whether it runs, and the processes below it. The tmux
// driver ends a pane's whole tree and watches an agent's effort with it;
// the real-CLI tests check with it that nothing outlives a pane. Where
// there is no /proc, nothing is found (Alive falls back on a signal).
package proctable

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// Stat returns the fields of /proc/PID/stat after the command name:
// state, ppid, pgrp, session, tty_nr, tpgid, … (nil without /proc or
// for a process that has gone).
func Stat(pid int) [][]byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	// The command name is in parentheses and may hold anything.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return nil
	}
	return bytes.Fields(b[i+2:])
}

// StatInt is field i of Stat (0 = state, 1 = ppid, …) as a number, or 0.
func StatInt(pid, i int) int {
	f := Stat(pid)
	if len(f) <= i {
		return 0
	}
	n, _ := strconv.Atoi(string(f[i]))
	return n
}

// Alive reports whether pid runs (a zombie has ended). Without /proc, a
// process that takes signals counts as alive.
func Alive(pid int) bool {
	f := Stat(pid)
	if f == nil {
		return syscall.Kill(pid, 0) == nil && !Present()
	}
	return f[0][0] != 'Z' && f[0][0] != 'X'
}

// Present reports whether this system has a /proc to read: without it
// nothing is found, and what relies on it knows nothing.
func Present() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// Descendants lists the processes below pid, children first: also those
// that moved to a session or process group of their own.
func Descendants(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := StatInt(p, 1); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	for queue := []int{pid}; len(queue) > 0; queue = queue[1:] {
		for _, c := range children[queue[0]] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

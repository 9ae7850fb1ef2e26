//go:build unix

// Package proctable reads the process table from /proc: a process's
// state fields, whether it runs, the processes below it and those an
// agent left working in a folder, and ends a set of them. The tmux driver
// ends a pane's whole tree and watches an agent's effort with it; the
// real-CLI tests check with it that nothing outlives a pane. Where there
// is no /proc, nothing is found (Alive falls back on a signal).
package proctable

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
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

// allPIDs lists every process in /proc (nil without it).
func allPIDs() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		if p, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// Descendants lists the processes below pid, children first: also those
// that moved to a session or process group of their own.
func Descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range allPIDs() {
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

// Detached lists the processes that work in one of dirs (their working
// folder is dir or below it) and whose parent is init, with the processes
// below them: what a program started and let go of on purpose (a double
// fork into a session of its own, as droid runs each shell command), which
// no walk down from the program finds once the middle process has ended.
// A subreaper above this process (systemd --user) takes orphans in init's
// place, so a parent among this process's ancestors counts as init too.
func Detached(dirs ...string) []int {
	reapers := map[int]bool{1: true}
	for p := StatInt(os.Getpid(), 1); p > 1 && !reapers[p]; p = StatInt(p, 1) {
		reapers[p] = true
	}
	var clean []string
	for _, d := range dirs {
		if d != "" {
			clean = append(clean, filepath.Clean(d))
		}
	}
	var out []int
	for _, p := range allPIDs() {
		if !reapers[StatInt(p, 1)] || !Alive(p) {
			continue
		}
		cwd, err := os.Readlink(fmt.Sprintf("/proc/%d/cwd", p))
		if err != nil {
			continue
		}
		cwd = strings.TrimSuffix(cwd, " (deleted)")
		for _, d := range clean {
			if cwd == d || strings.HasPrefix(cwd, d+"/") {
				out = append(out, p)
				out = append(out, Descendants(p)...)
				break
			}
		}
	}
	return out
}

// End ends pids and the process groups groups: SIGTERM, up to grace,
// then SIGKILL, up to five seconds. It returns the pids still alive after
// that. The caller's own process group is never signalled.
func End(pids, groups []int, grace time.Duration) []int {
	if len(pids) == 0 {
		return nil
	}
	own := syscall.Getpgrp()
	signal := func(sig syscall.Signal) {
		for _, g := range groups {
			if g > 1 && g != own {
				_ = syscall.Kill(-g, sig)
			}
		}
		for _, p := range pids {
			_ = syscall.Kill(p, sig)
		}
	}
	signal(syscall.SIGTERM)
	if left := waitGone(pids, grace); len(left) == 0 {
		return nil
	}
	signal(syscall.SIGKILL)
	return waitGone(pids, 5*time.Second)
}

// waitGone waits up to d for every pid to end and returns those that did
// not.
func waitGone(pids []int, d time.Duration) []int {
	deadline := time.Now().Add(d)
	for {
		var left []int
		for _, p := range pids {
			if Alive(p) {
				left = append(left, p)
			}
		}
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(20 * time.Millisecond)
	}
}

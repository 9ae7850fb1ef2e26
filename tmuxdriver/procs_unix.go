//go:build unix

package tmuxdriver

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
)

// endProcesses ends the processes of the panes whose pids are given: each
// pane process's group, the foreground group of its terminal, and every
// process below it (one that moved to a session of its own too). Some agent
// CLIs (Gemini CLI) ignore the hang-up tmux sends when its server dies and
// would run on, so this runs before the server is killed: SIGTERM, up to
// two seconds, then SIGKILL. It returns the pids still alive after that.
func endProcesses(panes []int) []int {
	var pids, groups []int
	for _, pid := range panes {
		if pid <= 1 || !proctable.Alive(pid) {
			continue
		}
		pids = append(pids, pid)
		pids = append(pids, proctable.Descendants(pid)...)
		groups = append(groups, proctable.StatInt(pid, 2), proctable.StatInt(pid, 5)) // pgrp, tpgid
	}
	return proctable.End(pids, groups, 2*time.Second)
}

// effortOf is what /proc says of an agent's processes (pid and those
// below it) now; known is false without /proc. A thread in state R is
// running or waiting for a CPU. A process frozen by a
// cgroup freezer or in uninterruptible sleep reads state D, a stopped one
// T or t: it is held. Time on a CPU and time waiting for one are summed
// over every thread (/proc/PID/task/TID/schedstat: a Node or Go agent
// works on threads other than its first).
func effortOf(pid int) (e effort, known bool) {
	for _, p := range append([]int{pid}, proctable.Descendants(pid)...) {
		f := proctable.Stat(p)
		if f == nil {
			continue
		}
		known = true
		switch f[0][0] {
		case 'D', 'T', 't':
			e.held = true
		}
		tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p))
		for _, t := range tasks {
			// R: on a CPU or waiting for one. A thread's wait is added to
			// its schedstat only once it runs, so a starved one shows
			// here first.
			if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", p, t.Name())); err == nil {
				if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'R' {
					e.running = true
				}
			}
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", p, t.Name()))
			if err != nil {
				continue
			}
			if fs := bytes.Fields(b); len(fs) >= 2 {
				ran, _ := strconv.ParseInt(string(fs[0]), 10, 64)
				waited, _ := strconv.ParseInt(string(fs[1]), 10, 64)
				e.ran += time.Duration(ran)
				e.waited += time.Duration(waited)
			}
		}
	}
	return e, known
}

package realclaude

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
)

// descendants lists the processes below pid (children first found, then
// theirs), read from /proc.
func descendants(pid int) []int {
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
		if pp := ppid(p); pp > 0 {
			children[pp] = append(children[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// stat returns the fields of /proc/pid/stat after the command name.
func stat(pid int) [][]byte {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	// The state follows the command name in parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return nil
	}
	return bytes.Fields(b[i+2:])
}

func ppid(pid int) int {
	f := stat(pid)
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(string(f[1]))
	return p
}

// endProcess waits briefly for pid to exit by itself (after kill-server the
// hang-up usually ends it), then sends SIGTERM, then SIGKILL.
func endProcess(pid int) error {
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) && realcli.Alive(pid) {
		time.Sleep(25 * time.Millisecond)
	}
	if !realcli.Alive(pid) {
		return nil
	}
	_ = syscall.Kill(pid, syscall.SIGTERM)
	deadline = time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		if !realcli.Alive(pid) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	// A killed process can take a while to go on a loaded machine.
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if !realcli.Alive(pid) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return errors.New("still running 5 s after SIGKILL")
}

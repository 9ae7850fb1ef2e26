package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// freezer is the cgroup freezer of this machine: the load rig stalls an
// agent by freezing a cgroup holding its processes. Signals do not stall
// it: tmux sends SIGCONT to a pane's process group as soon as it sees the
// pane's process stopped, so a SIGSTOP lasts microseconds.
type freezer struct {
	root string // where the hierarchy is mounted
	v2   bool   // cgroup v2 (cgroup.freeze) rather than v1 (freezer.state)
}

// errNoFreezer says the load rig cannot stall an agent on this machine.
var errNoFreezer = errors.New("no cgroup freezer (neither v1 /sys/fs/cgroup/freezer nor v2 cgroup.freeze): the load rig cannot stall the agent")

// findFreezer finds the cgroup v1 freezer, else cgroup v2's freeze.
func findFreezer() (freezer, error) {
	if _, err := os.Stat("/sys/fs/cgroup/freezer/cgroup.procs"); err == nil {
		return freezer{root: "/sys/fs/cgroup/freezer"}, nil
	}
	for _, root := range []string{"/sys/fs/cgroup", "/sys/fs/cgroup/unified"} {
		if _, err := os.Stat(filepath.Join(root, "cgroup.controllers")); err == nil {
			return freezer{root: root, v2: true}, nil
		}
	}
	return freezer{}, errNoFreezer
}

// home is the cgroup of pid in the freezer's hierarchy, relative to its root.
func (f freezer) home(pid int) (string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if (f.v2 && parts[0] == "0" && parts[1] == "") || (!f.v2 && strings.Contains(","+parts[1]+",", ",freezer,")) {
			return parts[2], nil
		}
	}
	return "", fmt.Errorf("process %d is in no cgroup of %s", pid, f.root)
}

// frozenCgroup is one stall: a cgroup made for it, the processes moved in.
type frozenCgroup struct {
	f     freezer
	dir   string
	homes map[int]string // each process moved in, and its cgroup before
	// agentHome is the cgroup of the first process moved in.
	agentHome string
}

// freeze makes the cgroup name, moves pids in and freezes it, waiting
// (up to 3 s) until the kernel says every process in it is frozen. It
// returns the cgroup also on an error: thaw it.
func (f freezer) freeze(name string, pids func() []int) (*frozenCgroup, error) {
	c := &frozenCgroup{f: f, dir: filepath.Join(f.root, name), homes: map[int]string{}}
	if err := os.Mkdir(c.dir, 0o755); err != nil {
		return c, err
	}
	c.moveIn(pids())
	if len(c.homes) == 0 {
		return c, errors.New("no process of the agent could be moved into the freezer")
	}
	state, value := "freezer.state", "FROZEN"
	if f.v2 {
		state, value = "cgroup.freeze", "1"
	}
	if err := os.WriteFile(filepath.Join(c.dir, state), []byte(value), 0o644); err != nil {
		return c, err
	}
	for deadline := time.Now().Add(3 * time.Second); ; {
		// A process forked before the move is moved in late, and frozen too.
		c.moveIn(pids())
		if c.frozen() {
			return c, nil
		}
		if time.Now().After(deadline) {
			return c, fmt.Errorf("the freezer of %s did not report frozen within 3 s", c.dir)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// moveIn moves the processes not moved yet into the cgroup; one that
// ended meanwhile is passed over.
func (c *frozenCgroup) moveIn(pids []int) {
	for _, p := range pids {
		if _, ok := c.homes[p]; ok {
			continue
		}
		home, err := c.f.home(p)
		if err != nil {
			continue
		}
		if os.WriteFile(filepath.Join(c.dir, "cgroup.procs"), []byte(strconv.Itoa(p)), 0o644) == nil {
			if len(c.homes) == 0 {
				c.agentHome = home
			}
			c.homes[p] = home
		}
	}
}

// frozen says whether the kernel reports the cgroup frozen.
func (c *frozenCgroup) frozen() bool {
	if c.f.v2 {
		b, _ := os.ReadFile(filepath.Join(c.dir, "cgroup.events"))
		return strings.Contains(string(b), "frozen 1")
	}
	b, _ := os.ReadFile(filepath.Join(c.dir, "freezer.state"))
	return strings.TrimSpace(string(b)) == "FROZEN"
}

// thaw thaws the cgroup, moves every process back where it was and
// removes the cgroup.
func (c *frozenCgroup) thaw() error {
	state, value := "freezer.state", "THAWED"
	if c.f.v2 {
		state, value = "cgroup.freeze", "0"
	}
	var errs []error
	if _, err := os.Stat(c.dir); err != nil {
		return nil
	}
	if err := os.WriteFile(filepath.Join(c.dir, state), []byte(value), 0o644); err != nil {
		errs = append(errs, err)
	}
	for p, home := range c.homes {
		// A process that ended meanwhile cannot be moved: nothing to undo.
		_ = os.WriteFile(filepath.Join(c.f.root, home, "cgroup.procs"), []byte(strconv.Itoa(p)), 0o644)
	}
	// rmdir fails while the cgroup holds a process: one forked after the
	// thaw by a process not moved back yet is moved to the agent's cgroup.
	var err error
	for range 100 {
		if err = os.Remove(c.dir); err == nil {
			break
		}
		left, _ := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		for _, p := range strings.Fields(string(left)) {
			_ = os.WriteFile(filepath.Join(c.f.root, c.agentHome, "cgroup.procs"), []byte(p), 0o644)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return errors.Join(append(errs, err)...)
}

// procState is the state letter of pid in /proc/PID/stat ("D" for a
// process the freezer holds, "R", "S"…), "?" when it cannot be read.
func procState(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

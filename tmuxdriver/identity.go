package tmuxdriver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// ProcessStarts tells when a process started, as a token that differs for
// two processes that had the same pid one after the other: what makes a
// pane's process identifiable (handoff.PaneIdentity).
type ProcessStarts interface {
	Started(ctx context.Context, pid int) (string, error)
}

// HostProcesses reads process start times on this machine: the start time
// in clock ticks after boot from /proc/<pid>/stat on Linux, `ps -o lstart=`
// elsewhere.
type HostProcesses struct{}

// Started returns pid's start time token.
func (HostProcesses) Started(ctx context.Context, pid int) (string, error) {
	if runtime.GOOS == "linux" {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return "", fmt.Errorf("start time of process %d: %w", pid, err)
		}
		return procStatStart(string(b))
	}
	cctx, cancel := context.WithTimeout(ctx, DefaultCallTimeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, "ps", "-o", "lstart=", "-p", strconv.Itoa(pid)).Output()
	if s := strings.TrimSpace(string(out)); err == nil && s != "" {
		return s, nil
	}
	return "", fmt.Errorf("start time of process %d: ps: %v", pid, err)
}

// procStatStart is field 22 of a /proc/<pid>/stat line (starttime). The
// command name (field 2) is in parentheses and may hold spaces and
// parentheses itself, so fields are counted from the last ')'.
func procStatStart(stat string) (string, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return "", errors.New("unexpected /proc stat line")
	}
	f := strings.Fields(stat[i+1:])
	const starttime = 22 - 3 // fields after ")" start at field 3 (state)
	if len(f) <= starttime {
		return "", errors.New("unexpected /proc stat line")
	}
	return f[starttime] + " ticks after boot", nil
}

// Identity says which pane the target names now, and which instance of it
// (handoff.Identifier): the server's socket path, pid and start time, the
// pane id, and the pane's process with its start time.
func (p *Pane) Identity(ctx context.Context) (handoff.PaneIdentity, error) {
	mark := "<" + nonce() + ">"
	out, err := p.run(ctx, nil, "display-message", "-p", "-t", p.o.Target, identityFormat(mark))
	if err != nil {
		return handoff.PaneIdentity{}, p.paneErr(err)
	}
	id, err := parseIdentity(ctx, strings.TrimSuffix(out, "\n"), mark, p.o.Processes)
	if err == nil {
		return id, nil
	}
	// Usually the pane's process is gone: say so as Observe does.
	if _, oerr := p.Observe(ctx); errors.Is(oerr, handoff.ErrTerminalGone) {
		return id, oerr
	}
	return id, fmt.Errorf("tmux pane %s: %w", p.o.Target, err)
}

// Identities returns the identity of every pane on the server, by pane id,
// in one tmux call (for a board of all panes). Panes whose process is gone
// are left out.
func (s Server) Identities(ctx context.Context, procs ProcessStarts) (map[string]handoff.PaneIdentity, error) {
	mark := "<" + nonce() + ">"
	out, err := s.Run(ctx, nil, "list-panes", "-a", "-F", identityFormat(mark))
	if err != nil {
		return nil, err
	}
	ids := map[string]handoff.PaneIdentity{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if id, err := parseIdentity(ctx, line, mark, procs); err == nil {
			ids[id.Pane] = id
		}
	}
	return ids, nil
}

// identityFormat is the tmux format of a pane's identity, fields framed by
// mark (a random marker, so no socket path can be mistaken for one).
func identityFormat(mark string) string {
	return mark + "#{socket_path}" + mark + "#{pid}" + mark + "#{start_time}" + mark + "#{pane_id}" + mark + "#{pane_pid}" + mark
}

// parseIdentity reads one line of identityFormat and asks procs (nil:
// HostProcesses) when the pane's process started.
func parseIdentity(ctx context.Context, line, mark string, procs ProcessStarts) (handoff.PaneIdentity, error) {
	f := strings.Split(line, mark)
	if len(f) != 7 || f[0] != "" || f[6] != "" {
		return handoff.PaneIdentity{}, fmt.Errorf("unexpected tmux identity output %q", truncate(line, 200))
	}
	id := handoff.PaneIdentity{Server: f[1], ServerStarted: f[3], Pane: f[4]}
	id.ServerPID, _ = strconv.Atoi(f[2])
	id.PID, _ = strconv.Atoi(f[5])
	if secs, err := strconv.ParseInt(f[3], 10, 64); err == nil {
		id.ServerStarted = time.Unix(secs, 0).UTC().Format(time.RFC3339)
	}
	if procs == nil {
		procs = HostProcesses{}
	}
	var err error
	if id.Started, err = procs.Started(ctx, id.PID); err != nil {
		return id, err
	}
	if err := id.Validate(); err != nil {
		return id, fmt.Errorf("identity: %w", err)
	}
	return id, nil
}

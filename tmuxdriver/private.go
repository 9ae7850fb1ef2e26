package tmuxdriver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Private is a tmux server of one's own, on a fresh socket name, with one
// session: what the demo, the tests and the end-to-end harnesses run agents
// in, so they never touch the user's server. Close ends it.
type Private struct {
	Server
	// Pane is the id (%N) of the session's first pane.
	Pane string
	// PanePID is the pid of the process in that pane.
	PanePID int
	// SocketFile is the server's socket on disk.
	SocketFile string

	session string
}

// PrivateOptions describe a private server's session.
type PrivateOptions struct {
	// Prefix starts the socket name; a random suffix follows ("handoff" if
	// empty).
	Prefix string
	// Session names the session ("main" if empty).
	Session string
	// Width and Height are the pane's size (100×30 if zero).
	Width, Height int
	// Dir is the pane's start directory ("" for the current one).
	Dir string
	// Env are KEY=VALUE pairs set in the session's environment (tmux 3.2
	// or newer: new-session -e).
	Env []string
	// Command is the shell command the first pane runs ("sleep 86400" if
	// empty).
	Command string
	// KeepAlive adds a second, idle window so the server survives the first
	// pane's death (tests of a dead pane need the server still up).
	KeepAlive bool
	// RemainOnExit keeps a pane whose process ended on screen (tmux's
	// remain-on-exit), so its last screen can still be read.
	RemainOnExit bool
}

// envVersion is the oldest tmux with new-session -e (PrivateOptions.Env).
var envVersion = TmuxVersion{3, 2, "3.2"}

// startTimeout bounds the call that starts a private server.
const startTimeout = 30 * time.Second

// StartPrivate starts a private tmux server. It reads no tmux
// configuration file (-f /dev/null), so runs are the same on every machine.
func StartPrivate(ctx context.Context, opts PrivateOptions) (*Private, error) {
	if opts.Prefix == "" {
		opts.Prefix = "handoff"
	}
	if opts.Session == "" {
		opts.Session = "main"
	}
	if opts.Width == 0 {
		opts.Width = 100
	}
	if opts.Height == 0 {
		opts.Height = 30
	}
	if opts.Command == "" {
		opts.Command = "sleep 86400"
	}
	v, err := (Server{Timeout: startTimeout}).CheckVersion(ctx)
	if errors.Is(err, ErrTmuxTooOld) {
		return nil, fmt.Errorf("start a private tmux server: %w", err)
	}
	if err == nil && len(opts.Env) > 0 && v.Less(envVersion) {
		return nil, fmt.Errorf("start a private tmux server: %w: this is tmux %s; PrivateOptions.Env (new-session -e) needs tmux %s", ErrTmuxTooOld, v, envVersion)
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	p := &Private{Server: Server{Socket: fmt.Sprintf("%s-%d-%s", opts.Prefix, os.Getpid(), hex.EncodeToString(rnd[:]))}, session: opts.Session}
	args := []string{"-f", "/dev/null", "new-session", "-d", "-P", "-F", "#{pane_id} #{pane_pid} #{socket_path}",
		"-s", opts.Session, "-x", strconv.Itoa(opts.Width), "-y", strconv.Itoa(opts.Height)}
	if opts.Dir != "" {
		args = append(args, "-c", opts.Dir)
	}
	for _, e := range opts.Env {
		args = append(args, "-e", e)
	}
	args = append(args, opts.Command)
	if opts.RemainOnExit {
		args = append(args, ";", "set-option", "-g", "remain-on-exit", "on")
	}
	if opts.KeepAlive {
		args = append(args, ";", "new-window", "-d", "-t", opts.Session+":", "sleep 86400")
	}
	// Starting a server (fork, socket, first pane) is the slowest call
	// there is; on a loaded machine it can take longer than a look may.
	starter := p.Server
	starter.Timeout = max(starter.Timeout, startTimeout)
	out, err := starter.Run(ctx, nil, args...)
	if err != nil {
		_ = p.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("start a private tmux server: %w", err)
	}
	fields := strings.Fields(out)
	if len(fields) < 3 {
		_ = p.Close(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("start a private tmux server: tmux said %q, want pane id, pid and socket", out)
	}
	p.Pane, p.SocketFile = fields[0], fields[2]
	p.PanePID, _ = strconv.Atoi(fields[1])
	return p, nil
}

// NewWindow starts command (a shell command line) in a new window of the
// server's session, in dir ("" for the server's), and returns its pane's
// id: one more agent on the server (a test's, a demo's, a benchmark's).
func (p *Private) NewWindow(ctx context.Context, dir, command string) (string, error) {
	args := []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", p.session + ":"}
	if dir != "" {
		args = append(args, "-c", dir)
	}
	out, err := p.Run(ctx, nil, append(args, command)...)
	if err != nil {
		return "", fmt.Errorf("new window: %w", err)
	}
	return strings.TrimSpace(out), nil
}

// Close ends the processes of every pane (their process groups and what
// they started, SIGTERM then SIGKILL: an agent that ignores the hang-up
// would outlive the server), kills the server and removes its socket file,
// which tmux does not always unlink. A server already gone is not an error.
func (p *Private) Close(ctx context.Context) error {
	// Only the live panes the server lists now: a pid remembered from the
	// start may belong to someone else once its pane has died.
	var panes []int
	if out, err := p.Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_dead} #{pane_pid}"); err == nil {
		for _, line := range strings.Split(out, "\n") {
			dead, pid, _ := strings.Cut(line, " ")
			if n, err := strconv.Atoi(pid); err == nil && dead == "0" {
				panes = append(panes, n)
			}
		}
	}
	var err error
	if left := endProcesses(panes); len(left) > 0 {
		err = fmt.Errorf("private tmux server %s: processes %v still run after SIGKILL", p.Socket, left)
	}
	err = errors.Join(err, p.Kill(ctx))
	if p.SocketFile != "" {
		if rerr := os.Remove(p.SocketFile); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	return err
}

// EndSession ends the processes of every live pane of session on s (their
// process groups and what they started, SIGTERM then SIGKILL, as Close
// does), then kills the session. It returns the pane processes it ended. A
// session or server already gone is not an error. Nothing else on the
// server is touched.
func EndSession(ctx context.Context, s Server, session string) ([]int, error) {
	out, err := s.Run(ctx, nil, "list-panes", "-s", "-t", "="+session, "-F", "#{pane_dead} #{pane_pid}")
	if errors.Is(err, ErrServerNotRunning) || errors.Is(err, ErrTargetNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var panes []int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		dead, pid, _ := strings.Cut(line, " ")
		if n, err := strconv.Atoi(pid); err == nil && dead == "0" {
			panes = append(panes, n)
		}
	}
	if left := endProcesses(panes); len(left) > 0 {
		err = fmt.Errorf("tmux session %s on the %s: processes %v still run after SIGKILL", session, s, left)
	}
	_, kerr := s.Run(ctx, nil, "kill-session", "-t", "="+session)
	if errors.Is(kerr, ErrServerNotRunning) || errors.Is(kerr, ErrTargetNotFound) {
		kerr = nil
	}
	return panes, errors.Join(err, kerr)
}

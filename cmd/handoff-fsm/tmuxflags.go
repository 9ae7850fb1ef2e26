package main

import (
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// paneFlags are the flags that name a tmux pane and how to read it; send,
// status and watch share them.
type paneFlags struct {
	target     *string
	socket     *string
	socketPath *string
	provider   *string
	history    *int
	allowShell *bool
	tmuxWait   *durationFlag
}

func addPaneFlags(fs *flag.FlagSet) *paneFlags {
	names := make([]string, 0)
	for n := range classifiers() {
		names = append(names, n)
	}
	sort.Strings(names)
	return &paneFlags{
		target:     fs.String("target", "", "tmux target of the agent's pane: session, session:window.pane or %id (required)"),
		socket:     fs.String("socket", "", "tmux socket name (tmux -L); default: the default server"),
		socketPath: fs.String("socket-path", "", "tmux socket path (tmux -S)"),
		provider:   fs.String("provider", "codex", "agent CLI in the pane, whose screens to read: "+strings.Join(names, ", ")),
		history:    fs.Int("history", tmuxdriver.DefaultHistory, "scrollback lines captured per poll"),
		allowShell: fs.Bool("allow-shell", false, "do not treat a shell in the foreground as the agent having exited"),
		tmuxWait:   durationVar(fs, "tmux-timeout", tmuxdriver.DefaultCallTimeout, "timeout of each tmux call"),
	}
}

// open returns the pane the flags name.
func (f *paneFlags) open(o tmuxdriver.Options) (*tmuxdriver.Pane, error) {
	if *f.target == "" {
		return nil, errors.New("--target is required (the agent's tmux pane: session:window.pane or %id)")
	}
	cl, ok := classifiers()[*f.provider]
	if !ok {
		return nil, fmt.Errorf("unknown --provider %q", *f.provider)
	}
	o.Server = tmuxdriver.Server{Socket: *f.socket, SocketPath: *f.socketPath, Timeout: f.tmuxWait.d}
	o.Target = *f.target
	o.Classifier = cl
	o.History = *f.history
	o.AllowShell = *f.allowShell
	return tmuxdriver.New(o)
}

// paneGone reports whether err says the pane (or its server or agent) is
// not there any more: a terminal error, as far as the exit code goes.
func paneGone(err error) bool {
	return errors.Is(err, tmuxdriver.ErrServerNotRunning) || errors.Is(err, tmuxdriver.ErrTargetNotFound) ||
		errors.Is(err, tmuxdriver.ErrPaneDead) || errors.Is(err, tmuxdriver.ErrAgentExited)
}

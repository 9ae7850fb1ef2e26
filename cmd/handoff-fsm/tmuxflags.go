package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
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
	return &paneFlags{
		target:     fs.String("target", "", "tmux target of the agent's pane: session, session:window.pane or %id (required)"),
		socket:     fs.String("socket", "", "tmux socket name (tmux -L); default: the default server"),
		socketPath: fs.String("socket-path", "", "tmux socket path (tmux -S)"),
		provider:   providerFlag(fs),
		history:    fs.Int("history", tmuxdriver.DefaultHistory, "scrollback lines captured per poll"),
		allowShell: fs.Bool("allow-shell", false, "do not treat a shell in the foreground as the agent having exited"),
		tmuxWait:   durationVar(fs, "tmux-timeout", tmuxdriver.DefaultCallTimeout, "timeout of each tmux call"),
	}
}

// open returns the pane the flags name.
func (f *paneFlags) open(o tmuxdriver.Options) (*tmuxdriver.Pane, error) {
	o, err := f.options(o)
	if err != nil {
		return nil, err
	}
	return tmuxdriver.New(o)
}

// options fills o from the flags.
func (f *paneFlags) options(o tmuxdriver.Options) (tmuxdriver.Options, error) {
	if *f.target == "" {
		return o, errors.New("--target is required (the agent's tmux pane: session:window.pane or %id)")
	}
	cl, err := provider.Lookup(*f.provider)
	if err != nil {
		return o, fmt.Errorf("--provider: %w", err)
	}
	o.Server = tmuxdriver.Server{Socket: *f.socket, SocketPath: *f.socketPath, Timeout: f.tmuxWait.d}
	if _, err := o.Server.CheckVersion(context.Background()); errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
		return o, err
	}
	o.Target = *f.target
	o.Classifier = cl
	o.History = *f.history
	o.AllowShell = *f.allowShell
	return o, nil
}

// providerFlag declares --provider, the agent CLI whose screens are read.
func providerFlag(fs *flag.FlagSet) *string {
	return fs.String("provider", provider.Default, "agent CLI in the pane, whose screens to read: "+strings.Join(provider.Names(), ", "))
}

// paneGone reports whether err says the pane (or its server or agent) is
// not there any more: a terminal error, as far as the exit code goes.
func paneGone(err error) bool { return dispatchstate.Gone(err) }

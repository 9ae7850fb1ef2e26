package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
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
	// notes is where --provider auto says which provider it picked.
	notes io.Writer
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
		notes:      fs.Output(),
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
	name := *f.provider
	if name == provider.Auto {
		name = provider.Default // only to look at the pane; replaced below
	}
	cl, err := provider.Lookup(name)
	if err != nil {
		return o, fmt.Errorf("--provider: %w", err)
	}
	o.Server = tmuxdriver.Server{Socket: *f.socket, SocketPath: *f.socketPath, Timeout: f.tmuxWait.d}
	if _, err := o.Server.CheckVersion(context.Background()); errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
		return o, err
	}
	o.Target = *f.target
	o.Classifier = cl
	if *f.provider == provider.Auto {
		if name, cl, err = f.detect(o); err != nil {
			return o, err
		}
	}
	if o.EnterDelay == 0 {
		o.EnterDelay = provider.EnterDelay(name)
	}
	o.Classifier = cl
	o.History = *f.history
	o.AllowShell = *f.allowShell
	return o, nil
}

// detect looks at the pane once (its command, title and screen) and returns
// the classifier of the provider that recognises it, saying which on the
// notes writer.
func (f *paneFlags) detect(o tmuxdriver.Options) (string, handoff.Classifier, error) {
	pane, err := tmuxdriver.New(o)
	if err != nil {
		return "", nil, err
	}
	snap, err := pane.Observe(context.Background())
	if err != nil {
		return "", nil, fmt.Errorf("--provider auto: %w", err)
	}
	name, err := provider.Detect(snap.Command, snap.Title, snap.Capture)
	if err != nil {
		return "", nil, fmt.Errorf("--provider auto: %w", err)
	}
	if f.notes != nil {
		fmt.Fprintf(f.notes, "handoff-fsm: --provider auto: %s recognises pane %s\n", name, *f.target)
	}
	cl, err := provider.Lookup(name)
	return name, cl, err
}

// providerFlag declares --provider, the agent CLI whose screens are read.
func providerFlag(fs *flag.FlagSet) *string {
	return fs.String("provider", provider.Default, "agent CLI in the pane, whose screens to read: "+strings.Join(provider.Names(), ", ")+
		", or auto (each provider recognises its own pane)")
}

// paneGone reports whether err says the pane (or its server or agent) is
// not there any more: a terminal error, as far as the exit code goes.
func paneGone(err error) bool { return dispatchstate.Gone(err) }

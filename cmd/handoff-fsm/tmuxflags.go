package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/configflag"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/providerfile"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// paneFlags are the flags that name a tmux pane and how to read it; send,
// status and watch share them.
type paneFlags struct {
	// pane is --target, --socket, --socket-path and --provider.
	pane dispatchstate.Pane
	// providerFile is --provider-file: a CLI described in a file.
	providerFile *string
	history      *int
	allowShell   *bool
	tmuxWait     *configflag.Duration
	// notes is where --provider auto says which provider it picked.
	notes io.Writer
	// named is the provider --provider auto named (options); "" before.
	named string
}

func addPaneFlags(fs *flag.FlagSet) *paneFlags {
	f := &paneFlags{
		providerFile: providerFileFlag(fs),
		history:      fs.Int("history", tmuxdriver.DefaultHistory, "scrollback lines captured per poll"),
		allowShell:   fs.Bool("allow-shell", false, "do not treat a shell in the foreground as the agent having exited"),
		tmuxWait:     configflag.DurationVar(fs, "tmux-timeout", tmuxdriver.DefaultCallTimeout, "timeout of each tmux call"),
		notes:        fs.Output(),
	}
	f.pane.Bind(fs)
	return f
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
	if f.pane.Target == "" {
		return o, errors.New("--target is required (the agent's tmux pane: session:window.pane or %id)")
	}
	auto := f.pane.Provider == provider.Auto && *f.providerFile == ""
	name := f.pane.Provider
	var cl handoff.Classifier
	if !auto {
		var err error
		if cl, err = classifierFor(name, *f.providerFile); err != nil {
			return o, err
		}
	}
	if *f.providerFile != "" {
		name = "" // a described CLI has the driver's default pause
	}
	o.Server = f.pane.Server(f.tmuxWait.D)
	if _, err := o.Server.CheckVersion(context.Background()); errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
		return o, err
	}
	o.Target = f.pane.Target
	o.History = *f.history
	o.AllowShell = *f.allowShell
	if auto {
		var err error
		if name, cl, err = f.detect(o); err != nil {
			return o, err
		}
		f.named = name
	}
	if o.EnterDelay == 0 {
		o.EnterDelay = provider.EnterDelay(name)
	}
	o.Classifier = cl
	return o, nil
}

// detect has the driver name the pane's provider on its first look (its
// command, title and screen: dispatchstate.PickProvider) and returns it,
// saying which on the notes writer.
func (f *paneFlags) detect(o tmuxdriver.Options) (string, handoff.Classifier, error) {
	o.Pick = dispatchstate.PickProvider
	pane, err := tmuxdriver.New(o)
	if err != nil {
		return "", nil, err
	}
	name, err := pane.Provider(context.Background())
	if err != nil {
		return "", nil, fmt.Errorf("--provider auto: %w", err)
	}
	if f.notes != nil {
		fmt.Fprintf(f.notes, "handoff-fsm: --provider auto: %s recognises pane %s\n", name, f.pane.Target)
	}
	cl, err := provider.Lookup(name)
	return name, cl, err
}

// providerFlag declares --provider, the agent CLI whose screens are read.
func providerFlag(fs *flag.FlagSet) *string {
	return fs.String("provider", provider.Default, dispatchstate.ProviderUsage())
}

// providerFileFlag declares --provider-file, a CLI handoff-fsm does not
// ship described in a TOML or YAML file (package providerfile).
func providerFileFlag(fs *flag.FlagSet) *string {
	return fs.String("provider-file", "", "read the screens with the rules of this provider file (.toml, .yaml): a CLI described in a file, see docs/providers.md; instead of --provider")
}

// classifierFor is the one place --provider and --provider-file become a
// classifier: the file's when one is given (with no other --provider than
// the default), else the named provider's.
func classifierFor(name, file string) (handoff.Classifier, error) {
	if file == "" {
		cl, err := provider.Lookup(name)
		if err != nil {
			return nil, fmt.Errorf("--provider: %w", err)
		}
		return cl, nil
	}
	if name != "" && name != provider.Default {
		return nil, fmt.Errorf("--provider %s and --provider-file: give one of them", name)
	}
	cl, err := providerfile.Load(file)
	if err != nil {
		return nil, fmt.Errorf("--provider-file: %w", err)
	}
	return cl, nil
}

// providerName is the provider the flags name, for logs and traces: the
// file's name for a described CLI.
func (f *paneFlags) providerName() string {
	if *f.providerFile != "" {
		return "file:" + filepath.Base(*f.providerFile)
	}
	return f.pane.Provider
}

// service is the service --server (or HANDOFF_SERVER) names, nil for
// none; an error for a bad address, or for a flag only this machine can
// carry out (localOnly).
func (f *paneFlags) service(server string) (*serve.Client, error) {
	client, err := serverClient(server)
	if err == nil && client != nil {
		err = f.localOnly()
	}
	return client, err
}

// paneReader reads the board's rows of the flags' tmux server (the pane
// target names alone, when not ""), each pane read with providerName's
// rules: through the service, or in this process by the same function
// the service builds its board with (serve.ReadBoard). local says which:
// only a board read here says how --provider auto picked each pane.
type paneReader struct {
	local bool
	read  func(ctx context.Context, target, providerName string) ([]serve.PaneRow, error)
}

// reader is the flags' paneReader: the service --server names, else this
// process over the flags' tmux server. An error for a bad address, a tmux
// too old, an unknown provider or a provider file that does not load.
func (f *paneFlags) reader(ctx context.Context, server string) (paneReader, error) {
	client, err := f.service(server)
	if err != nil {
		return paneReader{}, err
	}
	if client != nil {
		return paneReader{read: func(ctx context.Context, target, providerName string) ([]serve.PaneRow, error) {
			return client.Panes(ctx, f.query(target, providerName))
		}}, nil
	}
	srv := f.pane.Server(f.tmuxWait.D)
	if _, err := srv.CheckVersion(ctx); errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
		return paneReader{}, err
	}
	var cl handoff.Classifier
	if *f.providerFile != "" {
		if cl, err = classifierFor(f.pane.Provider, *f.providerFile); err != nil {
			return paneReader{}, err
		}
	} else if _, err := provider.Lookup(f.pane.Provider); err != nil && f.pane.Provider != provider.Auto {
		return paneReader{}, fmt.Errorf("--provider: %w", err)
	}
	return paneReader{local: true, read: func(ctx context.Context, target, providerName string) ([]serve.PaneRow, error) {
		q := serve.BoardQuery{Server: srv, Target: target, Provider: providerName, Classifier: cl,
			History: *f.history, AllowShell: *f.allowShell}
		if cl != nil {
			q.Provider = f.providerName()
		}
		return serve.ReadBoard(ctx, q)
	}}, nil
}

// query is the service's query (GET /v1/panes) for the flags' server,
// and target's pane alone when one is named.
func (f *paneFlags) query(target, providerName string) url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"socket": f.pane.Socket, "socket_path": f.pane.SocketPath, "target": target, "provider": providerName} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// note says on w, for a row read here with --provider auto, which provider
// recognised its pane, or why none did and which reads it.
func (r paneReader) note(w io.Writer, cmd, providerName string, row serve.PaneRow) {
	if !r.local || providerName != provider.Auto || row.Gone {
		return
	}
	if row.Unrecognised != nil {
		fmt.Fprintf(w, "handoff-fsm %s: pane %s (%s): %v; reading it as %s\n", cmd, row.ID, row.Target, row.Unrecognised, row.Provider)
		return
	}
	fmt.Fprintf(w, "handoff-fsm %s: --provider auto: %s recognises pane %s (%s)\n", cmd, row.Provider, row.ID, row.Target)
}

// openFailed says on stderr why cmd could not open the pane and is the
// exit status: a tmux too old is a failure, anything else (no --target, an
// unknown provider, no pane recognised) a usage error.
func openFailed(stderr io.Writer, cmd string, err error) int {
	fmt.Fprintf(stderr, "handoff-fsm %s: %v\n", cmd, err)
	if errors.Is(err, tmuxdriver.ErrTmuxTooOld) {
		return exitFailure
	}
	return exitUsage
}

// localOnly refuses what the service cannot do: it reads panes with the
// providers it ships, not with a file on this machine.
func (f *paneFlags) localOnly() error {
	if *f.providerFile != "" {
		return errors.New("--provider-file is read here, not by the service: not supported with --server (or HANDOFF_SERVER)")
	}
	return nil
}

// paneGone reports whether err says the pane (or its server or agent) is
// not there any more: a terminal error, as far as the exit code goes.
func paneGone(err error) bool { return dispatchstate.Gone(err) }

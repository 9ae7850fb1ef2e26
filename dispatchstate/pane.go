package dispatchstate

import (
	"errors"
	"flag"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Pane is where a dispatch's agent is: its tmux pane, the server it is on,
// and the provider that reads its screens. It is the one spelling of those
// four fields: the state file, the service's API (a submission, a
// dispatch's view), the loop's agents, the Temporal activity's input and
// the MCP tools embed it, so its JSON keys are theirs, inline.
type Pane struct {
	// Target is the pane as tmux names it: %id, or session:window.pane.
	Target string `json:"target"`
	// Socket is its tmux server's socket name (tmux -L); SocketPath its
	// socket's path (tmux -S); both "" for the default server.
	Socket     string `json:"socket,omitempty"`
	SocketPath string `json:"socket_path,omitempty"`
	// Provider is the agent CLI reading the screens (provider.Lookup), or
	// provider.Auto; "" is provider.Default.
	Provider string `json:"provider,omitempty"`
}

// ErrSocketAndPath is CheckServer's error for a pane given both a socket
// name and a socket path.
var ErrSocketAndPath = errors.New("give socket or socket_path, not both")

// CheckServer refuses a pane whose server is named twice (a socket name
// and a socket path).
func (p Pane) CheckServer() error {
	if p.Socket != "" && p.SocketPath != "" {
		return ErrSocketAndPath
	}
	return nil
}

// Server is the pane's tmux server, each tmux call bounded by timeout.
func (p Pane) Server(timeout time.Duration) tmuxdriver.Server {
	return tmuxdriver.Server{Socket: p.Socket, SocketPath: p.SocketPath, Timeout: timeout}
}

// ProviderName is the pane's provider, provider.Default when none is named.
func (p Pane) ProviderName() string {
	if p.Provider == "" {
		return provider.Default
	}
	return p.Provider
}

// Bind declares the flags that name a pane on fs, writing them into p:
// --target, --socket, --socket-path and --provider (its default p's
// provider, else provider.Default). Every command that takes a pane uses
// it, so they are spelled and described once.
func (p *Pane) Bind(fs *flag.FlagSet) {
	fs.StringVar(&p.Target, "target", p.Target, "tmux target of the agent's pane: session, session:window.pane or %id (required)")
	fs.StringVar(&p.Socket, "socket", p.Socket, "tmux socket name (tmux -L); default: the default server")
	fs.StringVar(&p.SocketPath, "socket-path", p.SocketPath, "tmux socket path (tmux -S)")
	fs.StringVar(&p.Provider, "provider", p.ProviderName(), ProviderUsage())
}

// ParseRolePane reads one "role=TARGET[,provider[,socket]]", the --pane
// flag of a program that gives each role its own pane (examples/three-agents;
// handoff-temporal, whose TARGET is HOST/TARGET): the role and its pane,
// whose provider is provider.Default when none is named and must be one
// provider.Lookup knows, and whose socket is "" when none is named.
func ParseRolePane(s string) (role string, p Pane, err error) {
	role, rest, ok := strings.Cut(s, "=")
	if !ok || rest == "" {
		return "", Pane{}, errors.New("want role=TARGET[,provider[,socket]]")
	}
	target, rest, _ := strings.Cut(rest, ",")
	p.Target = target
	p.Provider, p.Socket, _ = strings.Cut(rest, ",")
	p.Provider = p.ProviderName()
	if _, err := provider.Lookup(p.Provider); err != nil {
		return "", Pane{}, err
	}
	return role, p, nil
}

// ProviderUsage is the --provider flag's description, for a command that
// takes a provider without a pane (classify).
func ProviderUsage() string {
	return "agent CLI in the pane, whose screens to read: " + strings.Join(provider.Names(), ", ") +
		", or auto (each provider recognises its own pane)"
}

// PickProvider is --provider auto's tmuxdriver.Picker: the provider that
// recognises the pane by its command, title and screen (provider.Detect),
// with its classifier and its pause before Enter. None or two is Detect's
// error (provider.ErrNoMatch, provider.ErrAmbiguous).
func PickProvider(command, title, capture string) (tmuxdriver.Picked, error) {
	name, err := provider.Detect(command, title, capture)
	if err != nil {
		return tmuxdriver.Picked{}, err
	}
	cl, err := provider.Lookup(name)
	return tmuxdriver.Picked{Name: name, Classifier: cl, EnterDelay: provider.EnterDelay(name)}, err
}

// Package team is a team of coding agents described in one file: the tmux
// server and session they run in, the work folder, and per agent its role,
// provider, command, arguments, environment and work folder. It reads the
// file (strictly: an unknown key or a bad value is an error naming it), fills
// in the defaults in one place, and brings the team up and down in tmux
// (up.go): each agent in a window of its own, ready when its provider's
// classifier reads its composer as idle.
//
// A minimal file:
//
//	[agents.analyst]
//	[agents.analyst_review]
//	[agents.programmer]
//	provider = "claude"
//	[agents.programmer_review]
//	[agents.tester]
package team

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// The defaults of a team file.
const (
	// DefaultFile is the team file a command reads when given none.
	DefaultFile = "handoff-team.toml"
	// DefaultSocket is the tmux socket name (tmux -L) of the team's server.
	DefaultSocket = "handoff-team"
	// DefaultSession is the tmux session the agents' windows are in.
	DefaultSession = "team"
	// DefaultReadyTimeout is how long `up` waits for an agent's composer.
	DefaultReadyTimeout = 60 * time.Second
	// DefaultWidth and DefaultHeight are the session's size.
	DefaultWidth, DefaultHeight = 200, 50
)

// ErrInvalid is wrapped by every error about a team file's content.
var ErrInvalid = errors.New("invalid team file")

// file is the team file as written.
type file struct {
	Socket       string            `toml:"socket"`
	Session      string            `toml:"session"`
	Workdir      string            `toml:"workdir"`
	ReadyTimeout string            `toml:"ready_timeout"`
	Width        int               `toml:"width"`
	Height       int               `toml:"height"`
	Agents       map[string]*agent `toml:"agents"`
}

type agent struct {
	Provider    string            `toml:"provider"`
	Command     string            `toml:"command"`
	Args        []string          `toml:"args"`
	Env         map[string]string `toml:"env"`
	Workdir     string            `toml:"workdir"`
	DemoAnswers []string          `toml:"demo_answers"`
	DemoArgs    []string          `toml:"demo_args"`
}

// Team is a team file read and completed with its defaults.
type Team struct {
	// Path is the file it was read from ("" for Default's team).
	Path string
	// Socket is the tmux socket name (tmux -L) of the team's own server.
	Socket string
	// Session is the tmux session the agents' windows are in.
	Session string
	// Workdir is the team's work folder, absolute: response files, the
	// run journal and the archive go under it.
	Workdir string
	// ReadyTimeout bounds the wait for each agent's ready composer.
	ReadyTimeout time.Duration
	// Width and Height are the session's size.
	Width, Height int
	// Agents in the order of the file.
	Agents []Agent
}

// Agent is one agent of a team.
type Agent struct {
	// Role is its role: the spec's (analyst, …) or one of the team's own.
	Role string
	// Provider reads its screens (provider.Lookup).
	Provider string
	// Command is the CLI's executable: the provider's (provider.Command)
	// unless the file names one.
	Command string
	// Args are the CLI's arguments.
	Args []string
	// Env are variables set for the CLI, on top of the tmux server's.
	Env map[string]string
	// Workdir is the agent's work folder, absolute (the team's unless the
	// file gives one): the CLI starts there and its response file is there.
	Workdir string
	// DemoAnswers are what the simulated agent of `up --demo` writes as
	// its answers, one per prompt, the last repeated; none: a generated
	// answer, or "APPROVED" for a role whose name ends in "review".
	DemoAnswers []string
	// DemoArgs are more flags of the simulated agent under `up --demo`
	// (handoff-fsm sim-agent -h: --work 5s, --scenario crash, …), after
	// the demo's own.
	DemoArgs []string
}

// Agent returns the agent with the given role.
func (t *Team) Agent(role string) (Agent, bool) {
	for _, a := range t.Agents {
		if a.Role == role {
			return a, true
		}
	}
	return Agent{}, false
}

// Roles lists the team's roles in the file's order.
func (t *Team) Roles() []string {
	var out []string
	for _, a := range t.Agents {
		out = append(out, a.Role)
	}
	return out
}

// Load reads the team file at path. Relative work folders are taken from
// the file's folder.
func Load(path string) (*Team, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	t, err := Parse(data, filepath.Dir(abs))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	t.Path = abs
	return t, nil
}

// Default is the team of a folder with no team file: the spec's five roles,
// each a Codex agent, working in dir.
func Default(dir string) (*Team, error) {
	var b strings.Builder
	for _, r := range handoff.Roles() {
		fmt.Fprintf(&b, "[agents.%s]\n", r)
	}
	return Parse([]byte(b.String()), dir)
}

// Parse decodes a team file strictly (an unknown key is an error naming
// it, a value of the wrong type too), validates it and fills in the
// defaults. dir is the folder relative work folders are taken from.
func Parse(data []byte, dir string) (*Team, error) {
	var f file
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%w: unknown key %s", ErrInvalid, und[0])
	}
	var errs []error
	bad := func(field, format string, a ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, a...)))
	}
	t := &Team{Socket: f.Socket, Session: f.Session, Width: f.Width, Height: f.Height, ReadyTimeout: DefaultReadyTimeout}
	if t.Socket == "" {
		t.Socket = DefaultSocket
	} else if !tmuxName().MatchString(t.Socket) {
		bad("socket", "%q: use letters, digits, '-', '_' and '.' only", t.Socket)
	}
	if t.Session == "" {
		t.Session = DefaultSession
	} else if !tmuxName().MatchString(t.Session) {
		bad("session", "%q: use letters, digits, '-', '_' and '.' only (tmux reads ':' and '.' in targets)", t.Session)
	} else if strings.Contains(t.Session, ".") {
		bad("session", "%q: tmux reads '.' in a target as a pane", t.Session)
	}
	if f.ReadyTimeout != "" {
		d, err := handoff.ParseDuration(f.ReadyTimeout)
		switch {
		case err != nil:
			bad("ready_timeout", "%v", err)
		case d <= 0:
			bad("ready_timeout", "%q: must be positive", f.ReadyTimeout)
		default:
			t.ReadyTimeout = d
		}
	}
	for _, s := range []struct {
		name string
		v    *int
		def  int
	}{{"width", &t.Width, DefaultWidth}, {"height", &t.Height, DefaultHeight}} {
		switch {
		case *s.v == 0:
			*s.v = s.def
		case *s.v < 20 || *s.v > 1000:
			bad(s.name, "%d: want 20 to 1000", *s.v)
		}
	}
	t.Workdir = absIn(dir, f.Workdir)

	if len(f.Agents) == 0 {
		bad("agents", "no agents: add a table [agents.ROLE] for each")
	}
	// The file's order: the order of the keys agents.ROLE.
	var roles []string
	for _, k := range md.Keys() {
		if len(k) == 2 && k[0] == "agents" && !slices.Contains(roles, k[1]) {
			roles = append(roles, k[1])
		}
	}
	for _, role := range roles {
		if ag, ok := parseAgent(role, f.Agents[role], t.Workdir, bad); ok {
			t.Agents = append(t.Agents, ag)
		}
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return t, nil
}

// parseAgent reads the table agents.ROLE (a, nil when empty) with its
// defaults, saying each bad value with bad; ok is false when the role
// itself is refused.
func parseAgent(role string, a *agent, workdir string, bad func(field, format string, a ...any)) (ag Agent, ok bool) {
	if a == nil {
		a = &agent{}
	}
	field := "agents." + role
	if _, _, err := handoff.ResolveRole(role); err != nil {
		bad(field, "%v", err)
		return Agent{}, false
	}
	ag = Agent{Role: role, Provider: a.Provider, Command: a.Command, Args: a.Args, Env: a.Env,
		DemoAnswers: a.DemoAnswers, DemoArgs: a.DemoArgs, Workdir: workdir}
	if ag.Provider == "" {
		ag.Provider = provider.Default
	}
	if _, err := provider.Lookup(ag.Provider); err != nil {
		bad(field+".provider", "%v", err)
	}
	if ag.Command == "" {
		ag.Command = provider.Command(ag.Provider)
	} else if strings.TrimSpace(ag.Command) != ag.Command || strings.ContainsAny(ag.Command, " \t\n") {
		bad(field+".command", "%q: the executable only (a name or a path without blanks); its arguments go in args", ag.Command)
	}
	for k := range a.Env {
		if !envName().MatchString(k) {
			bad(field+".env", "%q is not a variable name", k)
		}
	}
	for i, s := range append(append([]string{ag.Command}, a.Args...), envValues(a.Env)...) {
		if strings.ContainsAny(s, "\x00") {
			bad(field, "value %d holds a NUL", i)
		}
	}
	if a.Workdir != "" {
		ag.Workdir = absIn(workdir, a.Workdir)
	}
	return ag, true
}

// Compiled on first use: only the commands that read a team file need them.
var (
	tmuxName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.-]+$`) })
	envName  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })
)

func envValues(env map[string]string) []string {
	var out []string
	for _, v := range env {
		out = append(out, v)
	}
	return out
}

// absIn is path made absolute in dir ("" is dir itself), with a leading ~/
// for the home folder.
func absIn(dir, path string) string {
	if path == "~" || strings.HasPrefix(path, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			path = filepath.Join(home, path[1:])
		}
	}
	if path == "" {
		path = dir
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	return filepath.Clean(path)
}

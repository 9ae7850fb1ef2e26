package team

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/version"
)

// roleOption is the tmux window option that marks an agent's window with
// its role, so a later up, run or down finds it whatever the window is
// called now.
const roleOption = "@handoff_role"

// demoOption marks the window of a simulated agent (up --demo): Codex's
// screens whatever the file's provider.
const demoOption = "@handoff_demo"

// hookOption holds the folder the agent's turn-end hook writes to, when up
// wired one, so run watches it.
const hookOption = "@handoff_hook"

// Member is one agent of a team as it runs in tmux.
type Member struct {
	Agent
	// Pane is the agent's tmux pane id (%N).
	Pane string
	// PID is the pane's process.
	PID int
	// Dead: the agent's process has exited; its pane is kept (tmux's
	// remain-on-exit) so its last screen can be read.
	Dead bool
	// ExitStatus is a dead agent's exit status as tmux saw it (-1 when
	// it runs, or tmux does not know: a signal).
	ExitStatus int
	// Signal is the signal that killed a dead agent, 0 if none did (or
	// tmux does not say).
	Signal int
	// Note says more about what up did, for people: why resuming failed,
	// with what the pane showed.
	Note string
	// Demo: the pane runs the simulated agent (up --demo).
	Demo bool
	// State is what up did: "started", "restarted" (its pane had died),
	// "running" (left alone).
	State string
	// HookDir is the folder its turn-end hook writes to (`handoff-fsm
	// hook --dir`), "" when up wired none.
	HookDir string
	// Hook says how up wired its turn-end hook, or why it did not.
	Hook string
	// Resumed: up restarted it with its CLI's resume arguments (Resume),
	// so it goes on with its last session.
	Resumed bool
	// Status is what its provider read on its screen last.
	Status handoff.Status
	// Version is the CLI's version (the first line of `command
	// --version`), "" when it gave none.
	Version string
}

// Server is the team's tmux server.
func (t *Team) Server() tmuxdriver.Server { return tmuxdriver.Server{Socket: t.Socket} }

// UpOptions say how to start a team.
type UpOptions struct {
	// Demo starts the simulated agent (Exe's sim-agent, Codex's screens)
	// in place of each agent's CLI.
	Demo bool
	// Exe is the handoff-fsm executable that runs sim-agent (Demo).
	Exe string
	// HookExe is the handoff-fsm executable each CLI's turn-end hook runs
	// (`HookExe hook --dir DIR`); "" wires no hook. It must outlive up:
	// the hooks run it as long as the agents run.
	HookExe string
	// DemoArgs are extra sim-agent arguments (timings) for every agent.
	DemoArgs []string
	// Poll is how often a starting agent is looked at (200 ms if zero).
	Poll time.Duration
}

// NotReadyError says which agents could not get ready, and why.
type NotReadyError struct {
	Agents []NotReady
}

// NotReady is one agent that could not get ready.
type NotReady struct {
	Role, Pane string
	// Reason: what went wrong (exited, timed out showing …).
	Reason string
	// Screen is what its pane showed last.
	Screen string

	exited bool // its process exited (or left a shell): a resume may have failed
}

func (e *NotReadyError) Error() string {
	var b strings.Builder
	for i, a := range e.Agents {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "agent %s (pane %s) is not ready: %s", a.Role, a.Pane, a.Reason)
		if s := nonBlank(a.Screen); s != "" {
			b.WriteString("; its pane shows:\n" + indent(lastLines(s, 15)))
		} else {
			b.WriteString("; its pane shows nothing")
		}
	}
	return b.String()
}

// Find lists the team's agents that have a window in its session, by role.
// No server or session is no agents, not an error.
func Find(ctx context.Context, t *Team) (map[string]Member, error) {
	out, err := t.Server().Run(ctx, nil, "list-panes", "-s", "-t", "="+t.Session, "-F",
		"#{"+roleOption+"}\t#{pane_id}\t#{pane_pid}\t#{pane_dead}\t#{"+demoOption+"}\t#{"+hookOption+"}\t#{pane_dead_status}\t#{pane_dead_signal}")
	if errors.Is(err, tmuxdriver.ErrServerNotRunning) || errors.Is(err, tmuxdriver.ErrTargetNotFound) {
		return map[string]Member{}, nil
	}
	if err != nil {
		return nil, err
	}
	found := map[string]Member{}
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") { // a line may end in an empty field: no TrimSpace
		f := strings.Split(line, "\t")
		if len(f) != 8 || f[0] == "" {
			continue
		}
		a, ok := t.Agent(f[0])
		if !ok {
			continue
		}
		pid, _ := strconv.Atoi(f[2])
		m := Member{Agent: a, Pane: f[1], PID: pid, Dead: f[3] == "1", Demo: f[4] == "1", HookDir: f[5], ExitStatus: -1}
		if n, err := strconv.Atoi(f[6]); err == nil && m.Dead {
			m.ExitStatus = n
		}
		if n, err := strconv.Atoi(f[7]); err == nil && m.Dead {
			m.Signal = n
		}
		found[f[0]] = m
	}
	return found, nil
}

// Status is every agent of t as it runs now, in the team's order: an
// agent with no window has no Pane; one whose process exited is Dead (its
// pane kept); a running one carries what its provider reads on its screen.
func Status(ctx context.Context, t *Team) ([]Member, error) {
	found, err := Find(ctx, t)
	if err != nil {
		return nil, err
	}
	members := make([]Member, len(t.Agents))
	var wg sync.WaitGroup
	for i, a := range t.Agents {
		m, ok := found[a.Role]
		m.Agent = a
		members[i] = m
		if !ok || m.Dead {
			continue
		}
		wg.Add(1)
		go func(m *Member) {
			defer wg.Done()
			m.Status, _ = ready(ctx, t, m, 0, false)
		}(&members[i])
	}
	wg.Wait()
	return members, ctx.Err()
}

// Up starts every agent of t that does not run: each in a window of its
// own in the team's session (the server and session are made when
// missing), an agent whose process died is restarted in its pane, and a
// running one is left alone. It waits until each started agent shows a
// ready composer (its provider reads idle or completed twice in a row),
// within t.ReadyTimeout, and returns every agent in the team's order. An
// agent that exits or shows anything else until then makes the error a
// *NotReadyError naming it with what its pane shows; the others are left
// running.
func Up(ctx context.Context, t *Team, o UpOptions) ([]Member, error) {
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	if o.Demo && o.Exe == "" {
		return nil, errors.New("team: the demo needs the handoff-fsm executable (UpOptions.Exe)")
	}
	srv := t.Server()
	if _, err := srv.CheckVersion(ctx); err != nil {
		return nil, err
	}
	found, err := Find(ctx, t)
	if err != nil {
		return nil, err
	}
	members := make([]Member, len(t.Agents))
	var started []int
	for i, a := range t.Agents {
		m, ok := found[a.Role]
		m.Agent = a
		if ok && !m.Dead {
			m.State, m.Hook = "running", "none"
			if m.HookDir != "" {
				m.Hook = HookVia(m.Provider)
			}
		} else if err := bringUp(ctx, t, &m, ok, o); err != nil {
			return members, err
		} else {
			started = append(started, i)
		}
		members[i] = m
	}
	var (
		mu       sync.Mutex
		notReady []NotReady
		wg       sync.WaitGroup
	)
	for i := range members {
		wg.Add(1)
		go func(m *Member, wait bool) {
			defer wg.Done()
			m.Version = cliVersion(ctx, m.Agent, m.Demo)
			if nr := awaitReady(ctx, t, m, o, wait); nr != nil {
				m.State += ", not ready"
				mu.Lock()
				notReady = append(notReady, *nr)
				mu.Unlock()
			}
		}(&members[i], slices.Contains(started, i))
	}
	wg.Wait()
	// Each agent's pid, as it runs now.
	if now, err := Find(ctx, t); err == nil {
		for i := range members {
			if m, ok := now[members[i].Role]; ok && m.Pane == members[i].Pane {
				members[i].PID = m.PID
			}
		}
	}
	if ctx.Err() != nil {
		return members, ctx.Err()
	}
	if len(notReady) > 0 {
		order := t.Roles()
		sort.Slice(notReady, func(i, j int) bool {
			return slices.Index(order, notReady[i].Role) < slices.Index(order, notReady[j].Role)
		})
		return members, &NotReadyError{Agents: notReady}
	}
	return members, nil
}

// bringUp starts m's agent: again in its pane when it died (dead), going on
// with the CLI's last session where it has a resume flag; else in a new
// window.
func bringUp(ctx context.Context, t *Team, m *Member, dead bool, o UpOptions) error {
	m.Demo = o.Demo
	if dead {
		m.Resumed = !o.Demo && len(Resume(m.Agent)) > 0
		if err := respawn(ctx, t, m, o); err != nil {
			return err
		}
		m.State = "restarted"
		if m.Resumed {
			m.State = "restarted (resumed)"
		}
		return nil
	}
	cmd, how, err := command(m.Agent, o, t.FilesDir(m.Role), false)
	if err != nil {
		return fmt.Errorf("start agent %s: %w", m.Role, err)
	}
	pane, err := start(ctx, t, m.Agent, cmd, o.Demo, how.hookDir)
	if err != nil {
		return fmt.Errorf("start agent %s: %w", m.Role, err)
	}
	m.Pane, m.State, m.HookDir, m.Hook = pane, "started", how.hookDir, how.hook
	return nil
}

// awaitReady waits (when wait) for m's agent to be ready and sets its
// status; an agent whose resume flag failed (no session to go on with,
// say) is started again in a new session rather than left without one.
// It returns why the agent is not ready, nil when it is.
func awaitReady(ctx context.Context, t *Team, m *Member, o UpOptions, wait bool) *NotReady {
	status, nr := ready(ctx, t, m, o.Poll, wait)
	if nr != nil && m.Resumed && nr.exited {
		why, screen := nr.Reason, nr.Screen
		m.Resumed = false
		if err := respawn(ctx, t, m, o); err != nil {
			nr = &NotReady{Role: m.Role, Pane: m.Pane, Reason: err.Error()}
		} else {
			m.State = "restarted (new session: resuming failed, " + why + ")"
			m.Note = fmt.Sprintf("%s %s exited at once; its pane showed:\n%s", m.Command, strings.Join(Resume(m.Agent), " "), indent(lastLines(nonBlank(screen), 15)))
			status, nr = ready(ctx, t, m, o.Poll, true)
		}
	}
	m.Status = status
	return nr
}

// respawn starts m's agent again in its dead pane (respawn-pane keeps the
// pane and its window; -k kills what runs there, for a second try after a
// failed resume), with its CLI's resume arguments when m.Resumed.
func respawn(ctx context.Context, t *Team, m *Member, o UpOptions) error {
	cmd, how, err := command(m.Agent, o, t.FilesDir(m.Role), m.Resumed)
	if err != nil {
		return fmt.Errorf("restart agent %s: %w", m.Role, err)
	}
	hookDir := how.hookDir
	srv := t.Server()
	if _, err := srv.Run(ctx, nil, "respawn-pane", "-k", "-t", m.Pane, "-c", m.Workdir, cmd); err != nil {
		return fmt.Errorf("restart agent %s in pane %s: %w", m.Role, m.Pane, err)
	}
	if err := mark(ctx, srv, m.Pane, m.Role, o.Demo, hookDir); err != nil {
		return fmt.Errorf("restart agent %s in pane %s: %w", m.Role, m.Pane, err)
	}
	m.Dead, m.HookDir, m.Hook = false, hookDir, how.hook
	return nil
}

// start makes the agent's window (and the session, when missing) and
// returns its pane id.
func start(ctx context.Context, t *Team, a Agent, cmd string, demo bool, hookDir string) (string, error) {
	srv := t.Server()
	var args []string
	if _, err := srv.Run(ctx, nil, "has-session", "-t", "="+t.Session); err != nil {
		if !errors.Is(err, tmuxdriver.ErrServerNotRunning) && !errors.Is(err, tmuxdriver.ErrTargetNotFound) &&
			!strings.Contains(err.Error(), "can't find session") {
			return "", err
		}
		// A new session. remain-on-exit, set on the server (the team's
		// own) before the first agent starts, keeps a pane whose agent
		// exited, so its last screen can be read.
		args = []string{"start-server", ";", "set-option", "-g", "-w", "remain-on-exit", "on", ";",
			"new-session", "-d", "-P", "-F", "#{pane_id}", "-s", t.Session, "-n", a.Role,
			"-x", strconv.Itoa(t.Width), "-y", strconv.Itoa(t.Height), "-c", a.Workdir, cmd}
	} else {
		args = []string{"new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "=" + t.Session + ":", "-n", a.Role, "-c", a.Workdir, cmd}
	}
	// Starting the server is the slowest call there is.
	starter := srv
	starter.Timeout = 30 * time.Second
	out, err := starter.Run(ctx, nil, args...)
	if err != nil {
		return "", err
	}
	pane := strings.TrimSpace(out)
	if !strings.HasPrefix(pane, "%") {
		return "", fmt.Errorf("tmux said %q, want a pane id", out)
	}
	return pane, mark(ctx, srv, pane, a.Role, demo, hookDir)
}

// mark sets the options of an agent's window: its role, whether it runs
// the simulated agent, its hook folder, and remain-on-exit.
func mark(ctx context.Context, srv tmuxdriver.Server, pane, role string, demo bool, hookDir string) error {
	d := "0"
	if demo {
		d = "1"
	}
	_, err := srv.Run(ctx, nil, "set-option", "-w", "-t", pane, "remain-on-exit", "on", ";",
		"set-option", "-w", "-t", pane, roleOption, role, ";", "set-option", "-w", "-t", pane, demoOption, d, ";",
		"set-option", "-w", "-t", pane, hookOption, hookDir)
	return err
}

// command is the shell command an agent's pane runs: its CLI (or the
// simulated agent) with its arguments and environment, its turn-end hook
// wired (wire) and, with resume, its resume arguments; exec'ed so the
// pane's process is the agent. how says how its hook is wired.
func command(a Agent, o UpOptions, files string, resume bool) (cmd string, how wired, err error) {
	var (
		argv []string
		env  map[string]string
	)
	if o.Demo {
		argv = append(append([]string{o.Exe, "sim-agent", "--cwd", a.Workdir}, o.DemoArgs...), a.DemoArgs...)
		answers := a.DemoAnswers
		if len(answers) == 0 && strings.HasSuffix(a.Role, "review") {
			answers = []string{"APPROVED (simulated review of the " + strings.TrimSuffix(strings.TrimSuffix(a.Role, "review"), "_") + "'s work)"}
		}
		for _, s := range answers {
			argv = append(argv, "--answer", s)
		}
	} else {
		w, err := wire(a, o.HookExe, files, resume)
		if err != nil {
			return "", w, err
		}
		argv, env, how = append([]string{a.Command}, w.args...), w.env, w
	}
	var b strings.Builder
	b.WriteString("exec")
	unset := inTerminal(env, o.Demo)
	if len(env) > 0 || len(unset) > 0 {
		b.WriteString(" env")
		for _, k := range unset {
			b.WriteString(" -u " + k)
		}
		keys := make([]string, 0, len(env))
		for k := range env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(" " + handoff.ShellQuote(k+"="+env[k]))
		}
	}
	for _, s := range argv {
		b.WriteString(" " + handoff.ShellQuote(s))
	}
	return b.String(), how, nil
}

// inTerminal names the variables a real agent's pane unsets: CI and
// CONTINUOUS_INTEGRATION, unless the agent's env sets them. A pane is a
// terminal, but a CLI drawn with Ink (Continue) reads either of them, set
// by a CI job running up, as "no terminal" and never draws its composer:
// up then waits out its ready time for nothing. The simulated agent reads
// neither.
func inTerminal(env map[string]string, demo bool) []string {
	if demo {
		return nil
	}
	var unset []string
	for _, k := range []string{"CI", "CONTINUOUS_INTEGRATION"} {
		if _, set := env[k]; !set {
			unset = append(unset, k)
		}
	}
	return unset
}

// dialogHold is how long a dialog must stay on an agent's screen before up
// reports it: a CLI may flash one while it starts.
const dialogHold = 5 * time.Second

// ready waits until the agent shows a ready composer twice in a row (when
// wait; otherwise it looks once) and returns the status it read, or why it
// is not ready.
func ready(ctx context.Context, t *Team, m *Member, poll time.Duration, wait bool) (handoff.Status, *NotReady) {
	prov := m.Provider
	if m.Demo {
		prov = provider.Default // the simulated agent draws Codex's screens
	}
	cl, err := provider.Lookup(prov)
	if err != nil {
		return "", &NotReady{Role: m.Role, Pane: m.Pane, Reason: err.Error()}
	}
	pane, err := tmuxdriver.New(tmuxdriver.Options{Server: t.Server(), Target: m.Pane, Classifier: cl})
	if err != nil {
		return "", &NotReady{Role: m.Role, Pane: m.Pane, Reason: err.Error()}
	}
	deadline := time.Now().Add(t.ReadyTimeout)
	var (
		last     tmuxdriver.Snapshot
		lastErr  error
		inARow   int
		atAShell time.Time // since when the pane's foreground is a shell
		foreign  bool      // quiet, but the provider does not recognise the pane
		asking   time.Time // since when it waits for a user's answer
	)
	for {
		snap, err := pane.Observe(ctx)
		if snap.Capture != "" || err == nil {
			last = snap
		}
		lastErr = err
		if err != nil || snap.Classification.Status != handoff.StatusWaitingUserAnswer {
			asking = time.Time{}
		}
		switch {
		case errors.Is(err, tmuxdriver.ErrPaneDead):
			return handoff.StatusError, &NotReady{Role: m.Role, Pane: m.Pane, Reason: "its process exited" + hint(m.Agent), Screen: last.Capture, exited: true}
		case errors.Is(err, tmuxdriver.ErrAgentExited):
			// The shell that execs the agent shows for a moment.
			if atAShell.IsZero() {
				atAShell = time.Now()
			} else if time.Since(atAShell) >= 3*time.Second {
				return handoff.StatusError, &NotReady{Role: m.Role, Pane: m.Pane, Reason: "its pane is at a shell" + hint(m.Agent), Screen: last.Capture, exited: true}
			}
		case errors.Is(err, handoff.ErrTerminalGone):
			return handoff.StatusError, &NotReady{Role: m.Role, Pane: m.Pane, Reason: err.Error(), Screen: last.Capture}
		case err == nil && wait && snap.Classification.Status == handoff.StatusWaitingUserAnswer:
			// A dialog (a trust or login question, a permission): up
			// answers nothing a user must decide. One that stays is
			// reported at once rather than at the deadline.
			atAShell, inARow, foreign = time.Time{}, 0, false
			if asking.IsZero() {
				asking = time.Now()
			} else if time.Since(asking) >= dialogHold {
				return snap.Classification.Status, &NotReady{Role: m.Role, Pane: m.Pane, Reason: dialogReason(t, prov, snap), Screen: snap.Capture}
			}
		case err == nil && wait && !provider.Recognizes(prov, snap.Command, snap.Title, snap.Capture):
			// A screen of something else: many classifiers read a
			// screen they do not know as quiet.
			atAShell, inARow, foreign = time.Time{}, 0, true
		case err == nil && strings.TrimSpace(snap.Capture) != "" && snap.Classification.Status.Quiet():
			atAShell, foreign = time.Time{}, false
			if inARow++; inARow >= 2 || !wait {
				return snap.Classification.Status, nil
			}
		default:
			atAShell, inARow = time.Time{}, 0
		}
		if !wait && err == nil {
			// A running agent left alone: whatever it shows (it may be
			// working on a prompt) is its status.
			return snap.Classification.Status, nil
		}
		if time.Now().After(deadline) {
			return last.Classification.Status, &NotReady{Role: m.Role, Pane: m.Pane, Reason: notReadyReason(t, prov, last, lastErr, foreign), Screen: last.Capture}
		}
		select {
		case <-ctx.Done():
			return "", &NotReady{Role: m.Role, Pane: m.Pane, Reason: ctx.Err().Error(), Screen: last.Capture}
		case <-time.After(poll):
		}
	}
}

// dialogReason says that an agent waits for a user's answer, and what to
// do about it.
func dialogReason(t *Team, prov string, snap tmuxdriver.Snapshot) string {
	reason := "it waits for a user's answer (the " + prov + " provider reads " + string(snap.Classification.Status)
	if d := snap.Classification.Detail; d != "" {
		reason += ": " + d
	}
	return reason + "); answer it in its pane (tmux -L " + t.Socket + " attach -t " + t.Session + ") or settle it in the CLI's configuration, then run up again"
}

// notReadyReason says what an agent showed when its ready timeout passed:
// last, its last look (lastErr, the look's error), or that the provider
// did not recognise its pane (foreign).
func notReadyReason(t *Team, prov string, last tmuxdriver.Snapshot, lastErr error, foreign bool) string {
	shows := string(last.Classification.Status)
	if lastErr != nil {
		shows = lastErr.Error()
	}
	if d := last.Classification.Detail; d != "" && lastErr == nil {
		shows += ": " + d
	}
	if foreign || shows == "" {
		return fmt.Sprintf("no ready composer within %v: the %s provider does not recognise its pane as %s's (foreground command %q)",
			t.ReadyTimeout, prov, prov, last.Command)
	}
	return fmt.Sprintf("no ready composer within %v (the %s provider reads %s)", t.ReadyTimeout, prov, shows)
}

// hint says why an agent's process may have exited at once.
func hint(a Agent) string {
	if strings.Contains(a.Command, "/") {
		if _, err := os.Stat(a.Command); err != nil {
			return fmt.Sprintf(" (command %s: %v)", a.Command, errors.Unwrap(err))
		}
		return ""
	}
	if _, err := exec.LookPath(a.Command); err != nil && a.Env["PATH"] == "" {
		return fmt.Sprintf(" (command %q is not on PATH)", a.Command)
	}
	return ""
}

// cliVersion is the first line the agent's CLI prints for --version.
func cliVersion(ctx context.Context, a Agent, demo bool) string {
	if demo {
		return "sim-agent of handoff-fsm " + version.Get().Version
	}
	// A Node CLI starting beside four others on a small machine may take
	// many seconds to say its version; the ready wait runs meanwhile.
	ctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, a.Command, "--version")
	cmd.Dir = a.Workdir
	cmd.Env = os.Environ()
	for k, v := range a.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.WaitDelay = time.Second
	// The version goes to stdout; warnings (Codex's about its helper
	// binaries) to stderr, which only counts when stdout says nothing.
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return ""
	}
	text := strings.TrimSpace(out.String())
	if text == "" {
		text = strings.TrimSpace(errs.String())
	}
	line, _, _ := strings.Cut(text, "\n")
	return strings.TrimSpace(line)
}

// Down ends every process of the team's session (each pane's process group
// and what it started, SIGTERM then SIGKILL), then the session, and the
// server when nothing else runs on it. Nothing the agents wrote is removed;
// the per-run settings files up wrote for them (FilesDir) are.
// It returns the agents it found.
func Down(ctx context.Context, t *Team) ([]Member, error) {
	found, err := Find(ctx, t)
	if err != nil {
		return nil, err
	}
	var members []Member
	for _, r := range t.Roles() {
		if m, ok := found[r]; ok {
			members = append(members, m)
		}
	}
	srv := t.Server()
	sock := srv.SocketFile(ctx) // before the session ends: the server may end with it
	_, err = tmuxdriver.EndSession(ctx, srv, t.Session)
	if err != nil {
		return members, err
	}
	// The per-run settings files are up's, not the agents'.
	if err := os.RemoveAll(t.FilesDir("")); err != nil {
		return members, err
	}
	// The team's server with no session left: end it and its socket file.
	if out, lerr := srv.Run(ctx, nil, "list-sessions", "-F", "#{session_name}"); lerr == nil && strings.TrimSpace(out) != "" {
		return members, nil
	}
	p := &tmuxdriver.Private{Server: srv, SocketFile: sock}
	return members, p.Close(ctx)
}

func indent(s string) string {
	return "    " + strings.ReplaceAll(s, "\n", "\n    ")
}

func lastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// nonBlank is s without its blank lines (a dead pane's screen is mostly
// blank).
func nonBlank(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	return strings.Join(out, "\n")
}

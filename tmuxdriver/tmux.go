// Package tmuxdriver is a handoff.Terminal and handoff.Sender over the tmux
// command line: it pastes prompts into an agent's pane, reads the pane back
// (screen, title and liveness in one tmux call) and classifies it with a
// handoff.Classifier.
//
// Every tmux call runs with a timeout, and the failures an orchestrator must
// tell apart — tmux missing, server not running, target not found, pane dead,
// agent exited to a shell — are distinct sentinels for errors.Is.
package tmuxdriver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Sentinels for the ways a pane cannot be used. When tmux says which of
// these went wrong, the error returned wraps the matching sentinel; other
// tmux failures carry tmux's own message.
var (
	// ErrTmuxNotFound: the tmux binary is not on PATH.
	ErrTmuxNotFound error = &goneError{"tmux not found"}
	// ErrServerNotRunning: no tmux server listens on the socket.
	ErrServerNotRunning error = &goneError{"tmux server not running"}
	// ErrTargetNotFound: the server runs but has no such session, window or
	// pane (or the pane was killed).
	ErrTargetNotFound error = &goneError{"tmux target not found"}
	// ErrPaneDead: the pane's process exited and tmux keeps the pane
	// (remain-on-exit).
	ErrPaneDead error = &goneError{"tmux pane is dead"}
	// ErrAgentExited: the pane is back at a shell prompt while the agent was
	// expected to run in it.
	ErrAgentExited error = &goneError{"agent exited to a shell"}
	// ErrTmuxTimeout: a tmux call did not finish within its timeout.
	ErrTmuxTimeout = errors.New("tmux call timed out")
	// ErrScreenError: the pane is fine but the agent's screen shows an error
	// (the classifier said status error); Pane.Status returns it with what
	// the screen said.
	ErrScreenError = errors.New("the agent's screen shows an error")
	// ErrComposerNotCleared: Send refused a paste (handoff.ErrPasteIncomplete,
	// which it comes wrapped with) and could not empty the composer again:
	// what the CLI still holds would join the next prompt, so its state is
	// unknown until a person looks.
	ErrComposerNotCleared = errors.New("could not clear its composer")
	// ErrBlankScreen: the pane is alive but has shown nothing at all for
	// BlankWait. A full-screen agent clears the screen between two frames
	// (OpenCode does when it leaves its home view for the session, for
	// seconds on a loaded machine): Pane.Status looks again for a while,
	// then returns it. It matches handoff.ErrNothingShown: the engine takes
	// it as no observation, never as a failed look or the agent's error.
	ErrBlankScreen error = &blankError{}
)

// blankError is ErrBlankScreen: it matches handoff.ErrNothingShown too.
type blankError struct{}

func (*blankError) Error() string {
	return "the pane shows nothing (a full-screen agent between two frames?)"
}
func (*blankError) Is(target error) bool { return target == handoff.ErrNothingShown }

// goneError is a sentinel for a pane that will not come back: it matches
// handoff.ErrTerminalGone as well as itself, so the engine fails at once
// instead of retrying the poll. Any other tmux failure (a timeout, an odd
// answer) is one failed look, retried.
type goneError struct{ msg string }

func (e *goneError) Error() string        { return e.msg }
func (e *goneError) Is(target error) bool { return target == handoff.ErrTerminalGone }

// DefaultCallTimeout bounds each tmux invocation.
const DefaultCallTimeout = 5 * time.Second

// Server addresses one tmux server: the default one, a named socket (-L) or
// a socket path (-S). The zero value is the default server (or the one in
// $TMUX, as tmux itself decides).
type Server struct {
	// Socket is a socket name, as tmux -L takes it.
	Socket string
	// SocketPath is a socket path, as tmux -S takes it.
	SocketPath string
	// Binary is the tmux executable; "tmux" (looked up on PATH) if empty.
	Binary string
	// Timeout bounds each call; DefaultCallTimeout if zero.
	Timeout time.Duration
}

// String names the server for messages.
func (s Server) String() string {
	switch {
	case s.SocketPath != "":
		return "tmux server at " + s.SocketPath
	case s.Socket != "":
		return "tmux server -L " + s.Socket
	}
	return "default tmux server"
}

func (s Server) validate() error {
	if s.Socket != "" && s.SocketPath != "" {
		return fmt.Errorf("tmux server: give a socket name (-L %s) or a socket path (-S %s), not both", s.Socket, s.SocketPath)
	}
	return nil
}

// Run runs one tmux command line on the server (args may chain commands
// with ";" arguments) with stdin as its standard input (nil for none) and
// returns its standard output. Errors wrap the package's sentinels when tmux
// said what went wrong.
func (s Server) Run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	if err := s.validate(); err != nil {
		return "", err
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	bin := s.Binary
	if bin == "" {
		bin = "tmux"
	}
	// -u: tmux decides UTF-8 support from the client's locale; a bare CI
	// environment would get '_' for every non-ASCII character.
	full := []string{"-u"}
	switch {
	case s.SocketPath != "":
		full = append(full, "-S", s.SocketPath)
	case s.Socket != "":
		full = append(full, "-L", s.Socket)
	}
	full = append(full, args...)

	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, full...)
	cmd.Stdin = stdin
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// A tmux client that starts a server forks it, and until the server
	// detaches from its stdio it holds our output pipe open. On a loaded
	// machine that can outlast WaitDelay: the client exited cleanly and said
	// all it had to say, so that is a success, not a failed call.
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil
	}
	if err == nil {
		return stdout.String(), nil
	}
	return stdout.String(), s.explain(ctx, cctx, args, err, strings.TrimSpace(stderr.String()))
}

// explain turns a failed tmux run into an error wrapping the right sentinel.
func (s Server) explain(ctx, cctx context.Context, args []string, err error, stderr string) error {
	what := "tmux " + firstWord(args)
	switch {
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %v (install tmux %s or newer, or put it on PATH)", ErrTmuxNotFound, err, MinVersion)
	case ctx.Err() != nil:
		return fmt.Errorf("%s: %w", what, ctx.Err())
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: %s on the %s gave no answer within its timeout", ErrTmuxTimeout, what, s)
	case strings.Contains(stderr, "no server running"),
		strings.Contains(stderr, "error connecting to"),
		strings.Contains(stderr, "server exited unexpectedly"):
		return fmt.Errorf("%w: %s (%s)", ErrServerNotRunning, s, stderr)
	case strings.Contains(stderr, "can't find"):
		return fmt.Errorf("%w on the %s: %s", ErrTargetNotFound, s, stderr)
	case stderr != "":
		return fmt.Errorf("%s: %s (%v)", what, stderr, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

func firstWord(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// Kill stops the server and every pane on it. Only call it on a server you
// started (a private socket): it ends everyone's sessions on that server.
func (s Server) Kill(ctx context.Context) error {
	_, err := s.Run(ctx, nil, "kill-server")
	if errors.Is(err, ErrServerNotRunning) {
		return nil
	}
	return err
}

// SocketFile is the server's socket on disk, which tmux does not always
// remove when its server ends: the running server's own word, else
// SocketPath, else where tmux puts a named socket ($TMUX_TMPDIR or /tmp,
// tmux-UID/NAME).
func (s Server) SocketFile(ctx context.Context) string {
	if out, err := s.Run(ctx, nil, "display-message", "-p", "#{socket_path}"); err == nil && strings.TrimSpace(out) != "" {
		return strings.TrimSpace(out)
	}
	if s.SocketPath != "" {
		return s.SocketPath
	}
	dir := os.Getenv("TMUX_TMPDIR")
	if dir == "" {
		dir = "/tmp"
	}
	name := s.Socket
	if name == "" {
		name = "default"
	}
	return filepath.Join(dir, "tmux-"+strconv.Itoa(os.Getuid()), name)
}

// PaneInfo is one pane of a server, as ListPanes sees it.
type PaneInfo struct {
	ID      string `json:"pane"`    // %N
	Target  string `json:"target"`  // session:window.pane
	Command string `json:"command"` // the foreground command
}

// ListPanes lists every pane of the server r runs commands on (a Server,
// or a control client's Runner).
func ListPanes(ctx context.Context, r Runner) ([]PaneInfo, error) {
	out, err := r.Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_current_command}")
	if err != nil {
		return nil, err
	}
	var panes []PaneInfo
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) == 3 {
			panes = append(panes, PaneInfo{f[0], f[1], f[2]})
		}
	}
	return panes, nil
}

package tmuxcontrol

import (
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
)

// RunFunc runs one tmux command line the way a tmux process does: args as
// on the command line (a ";" argument separates commands), stdin as the
// process's standard input (nil for none), the process's standard output
// returned. It is the shape of tmuxdriver.Server.Run, so that method value
// is a RunFunc.
type RunFunc func(ctx context.Context, stdin io.Reader, args ...string) (string, error)

// Runner runs tmux command lines through a control client while it lives
// and through a fallback RunFunc (a process per call) otherwise, with the
// same results: it is a drop-in for tmuxdriver.Server.Run. It falls back
//   - for good, when the client could not start or has died; OnFallback
//     is then told why, once;
//   - for one call, when the call needs standard input for anything but
//     one load-buffer -b NAME - (which the control client runs as
//     set-buffer: see list), uses an argument ending in ';' other than a
//     bare ";" separator, or runs a command whose output tmux escapes for
//     a control client (show-buffer);
//   - for the rest of one call, when tmux rejects one of its commands: the
//     failing command and those after it are run again through the
//     fallback, so that errors are the fallback's own and whoever
//     classifies them (tmuxdriver turns "can't find" into
//     ErrTargetNotFound) keeps working unchanged. A command tmux rejects
//     has not acted, so running it again is safe.
//
// A Runner is safe for concurrent use.
type Runner struct {
	fallback   RunFunc
	onFallback func(error)

	mu     sync.Mutex
	client *Client // nil once fallen back
	told   bool
}

// NewRunner starts a control client with o and returns a Runner over it
// and fallback. When the client cannot start, the Runner uses fallback
// from the start, and onFallback (if not nil) is called with the reason
// before NewRunner returns. onFallback is called at most once per Runner:
// the place to say once on stderr that polling is back to a process per
// call.
func NewRunner(ctx context.Context, o Options, fallback RunFunc, onFallback func(error)) *Runner {
	r := &Runner{fallback: fallback, onFallback: onFallback}
	c, err := Start(ctx, o)
	if err != nil {
		r.fellBack(err)
		return r
	}
	r.client = c
	return r
}

// Client is the control client in use, or nil once the Runner has fallen
// back. Its Output channel tells a driver when to poll.
func (r *Runner) Client() *Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.client
}

// Close closes the control client, if any. Later calls use the fallback
// without reporting it (closing is not a failure).
func (r *Runner) Close() error {
	r.mu.Lock()
	c := r.client
	r.client = nil
	r.told = true
	r.mu.Unlock()
	if c != nil {
		return c.Close()
	}
	return nil
}

// fellBack drops the client and reports err once.
func (r *Runner) fellBack(err error) {
	r.mu.Lock()
	c := r.client
	r.client = nil
	tell := !r.told
	r.told = true
	r.mu.Unlock()
	if c != nil {
		_ = c.Close()
	}
	if tell && r.onFallback != nil {
		r.onFallback(err)
	}
}

// Run runs args (commands separated by ";" arguments) and returns their
// output as a tmux process prints it: see Runner for when it goes through
// the fallback instead.
func (r *Runner) Run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	c := r.Client()
	if c == nil || len(args) == 0 {
		return r.fallback(ctx, stdin, args...)
	}
	for i, a := range args {
		if a != ";" && strings.HasSuffix(a, ";") ||
			(i == 0 || args[i-1] == ";") && (a == "show-buffer" || a == "showb") {
			return r.fallback(ctx, stdin, args...)
		}
	}
	l := list{cmds: split(args), loaded: -1}
	if stdin != nil {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return "", err
		}
		if !l.setBuffer(data) {
			return r.fallback(ctx, bytes.NewReader(data), args...)
		}
	}
	var out strings.Builder
	var replies [][]string
	var errs []error
	if l.lookOnly() {
		// Sent in one write: one round trip for a look's two commands.
		replies, errs = c.Commands(ctx, l.cmds...)
	}
	for i, cmd := range l.cmds {
		if len(cmd) == 0 || cmd[0] == "" {
			// Let tmux (through the fallback) say what is wrong.
			return r.more(ctx, &out, l, i)
		}
		if i == l.loaded {
			cmd = l.set
		}
		var lines []string
		var err error
		if replies != nil {
			lines, err = replies[i], errs[i]
		} else {
			lines, err = c.Command(ctx, cmd...)
		}
		var ce *CommandError
		switch {
		case err == nil:
			if len(lines) > 0 {
				out.WriteString(strings.Join(lines, "\n"))
				out.WriteByte('\n')
			}
		case errors.As(err, &ce), errors.Is(err, ErrBadArgument):
			return r.more(ctx, &out, l, i)
		case errors.Is(err, ErrUnavailable), errors.Is(err, ErrClosed):
			r.fellBack(err)
			return r.more(ctx, &out, l, i)
		default:
			return out.String(), err // the context ended, or tmux timed out
		}
	}
	return out.String(), nil
}

// list is a command line cut into its commands. A load-buffer that reads
// standard input (load-buffer -b NAME -) goes through the control client
// as set-buffer with the data as its argument (set): a tmux process per
// paste costs more than the rest of a dispatch's looks together. A control
// client's command line has no length limit; a tmux process's has (its
// message to the server), so the fallback gets load-buffer and the data on
// its standard input again.
type list struct {
	cmds   [][]string
	loaded int // the index of the load-buffer in cmds, -1 if none
	set    []string
	data   []byte
}

// lookOnly reports whether the list has more than one command and every
// one only reads (display-message, capture-pane, list-…, show-…): those
// go to tmux in one write (Client.Commands), since running one again after
// another failed, as the fallback does with the rest, does no harm.
func (l list) lookOnly() bool {
	if len(l.cmds) < 2 || l.loaded >= 0 {
		return false
	}
	for _, cmd := range l.cmds {
		if len(cmd) == 0 {
			return false
		}
		switch cmd[0] {
		case "display-message", "display", "capture-pane", "capturep", "list-panes", "lsp", "list-windows", "lsw",
			"list-sessions", "ls", "show-options", "show", "has-session", "has":
		default:
			return false
		}
	}
	return true
}

// split cuts args at its ";" arguments (a last one ends the list, as for
// tmux).
func split(args []string) [][]string {
	var cmds [][]string
	for len(args) > 0 {
		i := slices.Index(args, ";")
		if i < 0 {
			return append(cmds, args)
		}
		cmds = append(cmds, args[:i])
		args = args[i+1:]
	}
	return cmds
}

// setBuffer makes the list's one load-buffer from standard input a
// set-buffer of data, and reports whether it could: the list has exactly
// one command that reads standard input, in the form load-buffer -b NAME -,
// and data can be quoted (no NUL byte) and is not empty (set-buffer wants
// data).
func (l *list) setBuffer(data []byte) bool {
	for i, cmd := range l.cmds {
		if len(cmd) == 0 || (cmd[0] != "load-buffer" && cmd[0] != "loadb" && cmd[0] != "source-file" && cmd[0] != "source") {
			continue
		}
		if l.loaded >= 0 || len(cmd) != 4 || cmd[0] != "load-buffer" && cmd[0] != "loadb" || cmd[1] != "-b" || cmd[3] != "-" {
			return false
		}
		l.loaded = i
	}
	if l.loaded < 0 || len(data) == 0 || bytes.IndexByte(data, 0) >= 0 {
		return false
	}
	l.data = data
	l.set = []string{"set-buffer", "-b", l.cmds[l.loaded][2], "--", string(data)}
	return true
}

// more runs the list's commands from the i-th on through the fallback,
// after what the control client already printed.
func (r *Runner) more(ctx context.Context, out *strings.Builder, l list, i int) (string, error) {
	var rest []string
	for j, cmd := range l.cmds[i:] {
		if j > 0 {
			rest = append(rest, ";")
		}
		rest = append(rest, cmd...)
	}
	var stdin io.Reader
	if l.loaded >= i {
		stdin = bytes.NewReader(l.data)
	}
	s, err := r.fallback(ctx, stdin, rest...)
	return out.String() + s, err
}

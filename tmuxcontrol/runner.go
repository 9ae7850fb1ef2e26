package tmuxcontrol

import (
	"context"
	"errors"
	"io"
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
//   - for one call, when the call needs standard input (load-buffer -),
//     uses an argument ending in ';' other than a bare ";" separator, or
//     runs a command whose output tmux escapes for a control client
//     (show-buffer);
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
	if c == nil || stdin != nil || len(args) == 0 {
		return r.fallback(ctx, stdin, args...)
	}
	for i, a := range args {
		if a != ";" && strings.HasSuffix(a, ";") ||
			(i == 0 || args[i-1] == ";") && (a == "show-buffer" || a == "showb") {
			return r.fallback(ctx, stdin, args...)
		}
	}
	var out strings.Builder
	rest := args
	for len(rest) > 0 {
		cmd := rest
		next := []string(nil)
		for i, a := range rest {
			if a == ";" {
				cmd, next = rest[:i], rest[i+1:]
				break
			}
		}
		if len(cmd) == 0 || cmd[0] == "" {
			// Let tmux (through the fallback) say what is wrong.
			return r.more(ctx, &out, rest)
		}
		lines, err := c.Command(ctx, cmd...)
		var ce *CommandError
		switch {
		case err == nil:
			if len(lines) > 0 {
				out.WriteString(strings.Join(lines, "\n"))
				out.WriteByte('\n')
			}
		case errors.As(err, &ce), errors.Is(err, ErrBadArgument):
			return r.more(ctx, &out, rest)
		case errors.Is(err, ErrUnavailable), errors.Is(err, ErrClosed):
			r.fellBack(err)
			return r.more(ctx, &out, rest)
		default:
			return out.String(), err // the context ended, or tmux timed out
		}
		rest = next
	}
	return out.String(), nil
}

// more runs the rest of a command line through the fallback after what
// the control client already printed.
func (r *Runner) more(ctx context.Context, out *strings.Builder, rest []string) (string, error) {
	s, err := r.fallback(ctx, nil, rest...)
	return out.String() + s, err
}

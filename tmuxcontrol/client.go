package tmuxcontrol

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Errors for errors.Is. Every error a Client returns once it cannot carry
// commands any more wraps ErrUnavailable or ErrClosed, so a caller knows to
// fall back to one tmux process per call.
var (
	// ErrUnavailable: control mode could not start (tmux missing or too
	// old, no server, no such session) or the client died (server killed,
	// session killed, client detached by someone). The error says which.
	ErrUnavailable = errors.New("tmux control mode unavailable")
	// ErrClosed: the Client was closed by its owner.
	ErrClosed = errors.New("tmux control client closed")
	// ErrTimeout: tmux did not answer a command within Options.Timeout.
	ErrTimeout = errors.New("tmux control command timed out")
)

// CommandError is a command tmux ran and answered with %error, such as
// "can't find pane: %9". Message is tmux's own text, so that callers that
// classify tmux's messages (tmuxdriver does) can read it as they read a
// tmux process's stderr.
type CommandError struct {
	Command string // the command name, e.g. "capture-pane"
	Message string // tmux's error lines, joined by line breaks
}

// Error returns "tmux COMMAND: MESSAGE".
func (e *CommandError) Error() string { return "tmux " + e.Command + ": " + e.Message }

// DefaultTimeout bounds Start and each command when Options.Timeout is zero,
// like tmuxdriver's per-call timeout.
const DefaultTimeout = 5 * time.Second

// Options says which server and session a Client attaches to.
type Options struct {
	// Socket is a socket name, as tmux -L takes it.
	Socket string
	// SocketPath is a socket path, as tmux -S takes it. Give at most one of
	// Socket and SocketPath; with neither, the default server.
	SocketPath string
	// Binary is the tmux executable; "tmux" (looked up on PATH) if empty.
	Binary string
	// Session is the session to attach to (a name or "$id"), "" for the
	// one tmux picks (the most recently used). %output arrives only for
	// panes in this session's windows; commands and captures reach any
	// pane on the server.
	Session string
	// Timeout bounds Start and each command without a nearer context
	// deadline (DefaultTimeout if zero).
	Timeout time.Duration
	// NoOutput asks tmux not to send %output at all (client flag
	// no-output), for a client that only carries commands and captures;
	// Output then never delivers.
	NoOutput bool
	// OnMessage, if set, receives every message that is not a reply:
	// %output with its data, notifications, %exit. It runs on the
	// client's reader and must return quickly; it must not call the
	// Client's methods that wait for tmux.
	OnMessage func(Message)
}

// OutputEvent says that a pane produced output. It is a signal, not the
// data: the screen is read with Capture. Events for a pane that the
// consumer has not taken yet are merged into one, so a slow consumer never
// blocks the client and never misses that a pane changed.
type OutputEvent struct {
	Pane  string    // the pane id, "%N"
	First time.Time // when the first merged %output line was read
	Last  time.Time // when the last one was read
	Count int       // %output lines merged into this event
	Bytes int       // decoded bytes they carried
}

// Client is one tmux control-mode client (tmux -C attach-session): a
// single long-lived process that carries commands over a pipe and reports
// pane output as it happens. It is safe for concurrent use. Close it to end
// the tmux process; if the owning process dies instead, tmux sees its
// input close and exits too.
type Client struct {
	o      Options
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *tail

	wmu sync.Mutex // serializes writing a command with queuing its reply slot

	mu       sync.Mutex
	pending  []chan *Reply // reply slots of sent commands, in order
	err      error         // why the client ended; nil while it runs
	closing  bool
	exit     *Exit
	attached chan error // the attach command's result, once

	done chan struct{}

	outMu sync.Mutex
	outQ  []string
	outM  map[string]*OutputEvent
	bell  chan struct{}
	out   chan OutputEvent
}

// Start runs `tmux -C attach-session` on the server and returns once tmux
// has accepted the attach. The client attaches without disturbing the
// session: it never starts a server (-N), does not copy its environment
// into the session (-E) and does not take part in sizing its windows
// (ignore-size). ctx bounds the start only. Any failure wraps
// ErrUnavailable and says why, so the caller can fall back to plain polling.
func Start(ctx context.Context, o Options) (*Client, error) {
	if o.Socket != "" && o.SocketPath != "" {
		return nil, fmt.Errorf("tmuxcontrol: give a socket name (-L %s) or a socket path (-S %s), not both", o.Socket, o.SocketPath)
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	bin := o.Binary
	if bin == "" {
		bin = "tmux"
	}
	args := []string{"-u", "-N"}
	switch {
	case o.SocketPath != "":
		args = append(args, "-S", o.SocketPath)
	case o.Socket != "":
		args = append(args, "-L", o.Socket)
	}
	flags := "ignore-size"
	if o.NoOutput {
		flags += ",no-output"
	}
	args = append(args, "-C", "attach-session", "-E", "-f", flags)
	if o.Session != "" {
		args = append(args, "-t", o.Session)
	}
	c := &Client{
		o:        o,
		cmd:      exec.Command(bin, args...),
		stderr:   &tail{max: 2048},
		attached: make(chan error, 1),
		done:     make(chan struct{}),
		outM:     map[string]*OutputEvent{},
		bell:     make(chan struct{}, 1),
		out:      make(chan OutputEvent),
	}
	c.cmd.Stderr = c.stderr
	setProcessGroup(c.cmd)
	var err error
	if c.stdin, err = c.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if c.stdout, err = c.cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	if err := c.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: start %s: %v", ErrUnavailable, bin, err)
	}
	go c.read()
	go c.forward()

	timer := time.NewTimer(o.Timeout)
	defer timer.Stop()
	var why error
	select {
	case err := <-c.attached:
		if err == nil {
			return c, nil
		}
		why = err
	case <-c.done:
		why = c.Err()
	case <-ctx.Done():
		why = ctx.Err()
	case <-timer.C:
		why = fmt.Errorf("no answer to attach-session within %v", o.Timeout)
	}
	c.shutdown()
	if errors.Is(why, ErrUnavailable) {
		return nil, why
	}
	return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, c.where(), why)
}

// where names the server and session for messages.
func (c *Client) where() string {
	s := "default tmux server"
	switch {
	case c.o.SocketPath != "":
		s = "tmux server at " + c.o.SocketPath
	case c.o.Socket != "":
		s = "tmux server -L " + c.o.Socket
	}
	if c.o.Session != "" {
		s += ", session " + c.o.Session
	}
	return s
}

// Pid is the process id of the tmux client process, for diagnostics (it is
// the #{client_pid} tmux shows for this client).
func (c *Client) Pid() int { return c.cmd.Process.Pid }

// Done is closed when the client has ended: closed, or died. Err then
// says which.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is nil while the client runs. Afterwards it wraps ErrClosed when the
// client was closed, or ErrUnavailable with the reason it died (the %exit
// reason or tmux's message).
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Output delivers an event each time a pane of the attached session
// produced output, merged per pane while the consumer is busy (see
// OutputEvent). Debouncing is the consumer's business. The channel is
// closed when the client ends; events not yet taken are then dropped.
func (c *Client) Output() <-chan OutputEvent { return c.out }

// Command runs one tmux command (args as on a tmux command line, taken
// literally: ";" is an argument, not a separator) and returns its output
// lines. Commands may be issued concurrently; they are written in order
// and each reply is matched to its command by the %begin that opens it.
// A command tmux rejects returns a *CommandError; a dead or closed client
// returns Err(). If ctx ends first the command may still run, and its
// reply is discarded.
func (c *Client) Command(ctx context.Context, args ...string) ([]string, error) {
	out, errs := c.Commands(ctx, args)
	return out[0], errs[0]
}

// Commands runs cmds (each as Command's args) written to tmux in one
// write, so that tmux runs them one right after the other, as a tmux
// process runs its command list, for one round trip instead of one per
// command. It returns each command's output lines and error, in order. A
// command tmux rejects does not stop the ones after it (each is a command
// list of its own): run together only commands whose running again does
// no harm. An argument that cannot be sent (ErrBadArgument) stops the list
// there: that command and the rest are not sent, and have its error; so
// have the rest when ctx ends, tmux gives no answer within the timeout
// (counted for each reply), or the client dies.
func (c *Client) Commands(ctx context.Context, cmds ...[]string) ([][]string, []error) {
	out := make([][]string, len(cmds))
	errs := make([]error, len(cmds))
	fail := func(from int, err error) ([][]string, []error) {
		for i := from; i < len(cmds); i++ {
			errs[i] = err
		}
		return out, errs
	}
	var text strings.Builder
	sent := len(cmds)
	var badArg error
	for i, args := range cmds {
		line, err := CommandLine(args...)
		if err != nil {
			sent, badArg = i, err
			break
		}
		text.WriteString(line)
		text.WriteByte('\n')
	}
	if sent < len(cmds) {
		fail(sent, badArg)
	}
	if sent == 0 {
		return out, errs
	}
	slots := make([]chan *Reply, sent)
	for i := range slots {
		slots[i] = make(chan *Reply, 1)
	}
	c.wmu.Lock()
	c.mu.Lock()
	if c.err != nil || c.closing {
		err := c.err
		c.mu.Unlock()
		c.wmu.Unlock()
		if err == nil {
			err = ErrClosed
		}
		return fail(0, err)
	}
	c.pending = append(c.pending, slots...)
	c.mu.Unlock()
	_, werr := io.WriteString(c.stdin, text.String())
	c.wmu.Unlock()
	if werr != nil {
		// The process is gone or going; the reader fails the slots.
		<-c.done
		return fail(0, c.Err())
	}

	timer := time.NewTimer(c.o.Timeout)
	defer timer.Stop()
	for i, slot := range slots {
		select {
		case r := <-slot:
			switch {
			case r == nil:
				return fail(i, c.Err())
			case r.Failed:
				out[i], errs[i] = r.Lines, &CommandError{Command: cmds[i][0], Message: strings.Join(r.Lines, "\n")}
			default:
				out[i] = r.Lines
			}
			timer.Reset(c.o.Timeout)
		case <-ctx.Done():
			return fail(i, fmt.Errorf("tmux %s: %w", cmds[i][0], ctx.Err()))
		case <-timer.C:
			return fail(i, fmt.Errorf("%w: tmux %s gave no answer within %v on the %s", ErrTimeout, cmds[i][0], c.o.Timeout, c.where()))
		}
	}
	return out, errs
}

// CaptureOptions are the capture-pane flags Capture varies.
type CaptureOptions struct {
	// History is how many scrollback lines to include above the visible
	// screen (capture-pane -S -History); 0 for the screen only.
	History int
	// Escapes includes colours and attributes (capture-pane -e).
	Escapes bool
}

// Capture returns the visible screen of pane with wrapped lines joined
// (capture-pane -p -J), byte for byte what `tmux capture-pane -p -J -t
// pane` prints.
func (c *Client) Capture(ctx context.Context, pane string) (string, error) {
	return c.CaptureWith(ctx, pane, CaptureOptions{})
}

// CaptureWith is Capture with scrollback and escapes, as tmuxdriver
// captures for a poll (History 200) or for the last output (2000).
func (c *Client) CaptureWith(ctx context.Context, pane string, o CaptureOptions) (string, error) {
	args := []string{"capture-pane", "-p", "-J"}
	if o.History > 0 {
		args = append(args, "-S", "-"+strconv.Itoa(o.History))
	}
	args = append(args, "-t", pane)
	if o.Escapes {
		args = append(args, "-e")
	}
	lines, err := c.Command(ctx, args...)
	if err != nil {
		return "", err
	}
	// tmux drops one trailing line break before writing the capture as a
	// block; a tmux process prints it back. An empty capture is one empty
	// line either way.
	return strings.Join(lines, "\n") + "\n", nil
}

// Close ends the tmux client process: it closes its input, which makes
// tmux detach the client and exit, and kills it if it has not exited
// within the timeout. It waits for the process, so none is left behind.
// Close is idempotent and always returns nil (it is an io.Closer); Err
// then wraps ErrClosed, or the error the client had already died of.
func (c *Client) Close() error {
	c.shutdown()
	return nil
}

// shutdown ends the process and waits for the reader to finish.
func (c *Client) shutdown() {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	c.wmu.Lock()
	_ = c.stdin.Close()
	c.wmu.Unlock()
	timer := time.NewTimer(c.o.Timeout)
	defer timer.Stop()
	select {
	case <-c.done:
		return
	case <-timer.C:
	}
	_ = c.cmd.Process.Kill()
	<-c.done
}

// read is the client's only reader of tmux's output: it parses lines,
// matches replies to commands, reports output, and when the stream ends
// reaps the process and fails whatever still waits.
func (c *Client) read() {
	var p Parser
	br := bufio.NewReaderSize(c.stdout, 64<<10)
	var long []byte
	attached := false
	for {
		chunk, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long, chunk...)
			continue
		}
		line := chunk
		if long != nil {
			line = append(long, chunk...)
			long = nil
		}
		if err != nil {
			if len(line) > 0 {
				c.dispatch(&p, line, &attached)
			}
			break
		}
		c.dispatch(&p, bytes.TrimSuffix(line, []byte("\n")), &attached)
	}
	// Drain nothing more: tmux closed its output, so the process is
	// exiting. Reap it, then fail what waits.
	werr := c.cmd.Wait()

	c.mu.Lock()
	switch {
	case c.closing:
		c.err = fmt.Errorf("%w (%s)", ErrClosed, c.where())
	default:
		c.err = fmt.Errorf("%w: the control client on the %s ended: %s", ErrUnavailable, c.where(), c.exitReason(werr))
	}
	pending := c.pending
	c.pending = nil
	c.mu.Unlock()
	for _, slot := range pending {
		slot <- nil
	}
	if !attached {
		c.attached <- c.err
	}
	close(c.done)
}

// exitReason says why tmux ended, from the best source there is.
func (c *Client) exitReason(werr error) string {
	var parts []string
	if c.exit != nil {
		if c.exit.Reason != "" {
			parts = append(parts, c.exit.Reason)
		} else {
			parts = append(parts, "tmux exited (the session or server is gone, or the client was detached)")
		}
	}
	if s := strings.TrimSpace(c.stderr.String()); s != "" {
		parts = append(parts, s)
	}
	if werr != nil {
		parts = append(parts, werr.Error())
	}
	if len(parts) == 0 {
		return "its output closed"
	}
	return strings.Join(parts, "; ")
}

func (c *Client) dispatch(p *Parser, line []byte, attached *bool) {
	m := p.Parse(line)
	switch m := m.(type) {
	case nil:
		return
	case *Reply:
		if !*attached && m.Guard.Flags == 0 {
			// The attach command's own block: the first with flags 0.
			*attached = true
			if m.Failed {
				c.attached <- fmt.Errorf("%w: attach to the %s: %s", ErrUnavailable, c.where(), strings.Join(m.Lines, "; "))
			} else {
				c.attached <- nil
			}
			return
		}
		if m.Guard.Flags != 1 {
			return // a hook's or the server's block, not an answer to us
		}
		c.mu.Lock()
		var slot chan *Reply
		if len(c.pending) > 0 {
			slot = c.pending[0]
			c.pending = c.pending[1:]
		}
		c.mu.Unlock()
		if slot != nil {
			slot <- m
		}
		return
	case *Output:
		c.noteOutput(m.Pane, len(m.Data), time.Now())
	case *Exit:
		c.exit = m
	}
	if c.o.OnMessage != nil {
		c.o.OnMessage(m)
	}
}

// noteOutput merges an %output into the pane's pending event and rings the
// forwarder.
func (c *Client) noteOutput(pane string, n int, now time.Time) {
	c.outMu.Lock()
	ev, ok := c.outM[pane]
	if !ok {
		ev = &OutputEvent{Pane: pane, First: now}
		c.outM[pane] = ev
		c.outQ = append(c.outQ, pane)
	}
	ev.Last = now
	ev.Count++
	ev.Bytes += n
	c.outMu.Unlock()
	select {
	case c.bell <- struct{}{}:
	default:
	}
}

// forward hands pending output events to the consumer in the order panes
// first produced output, holding at most one while the consumer is busy.
func (c *Client) forward() {
	defer close(c.out)
	for {
		c.outMu.Lock()
		if len(c.outQ) == 0 {
			c.outMu.Unlock()
			select {
			case <-c.bell:
				continue
			case <-c.done:
				return
			}
		}
		pane := c.outQ[0]
		c.outQ = c.outQ[1:]
		ev := *c.outM[pane]
		delete(c.outM, pane)
		c.outMu.Unlock()
		select {
		case c.out <- ev:
		case <-c.done:
			return
		}
	}
}

// tail keeps the last max bytes written to it: tmux's stderr, quoted when
// the client fails.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

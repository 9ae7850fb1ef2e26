package tmuxcontrol

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// nextOutput waits up to 5 s for an output event of pane, skipping others.
func nextOutput(t *testing.T, c *Client, pane string) OutputEvent {
	t.Helper()
	timeout := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-c.Output():
			if !ok {
				t.Fatalf("the output channel closed: %v", c.Err())
			}
			if ev.Pane == pane {
				return ev
			}
		case <-timeout:
			t.Fatalf("no %%output for %s within 5 s", pane)
		}
	}
}

// drain takes the events already pending, so that the next one is new.
func drain(c *Client) {
	for {
		select {
		case <-c.Output():
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

func TestOutputArrives(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	pane := s.pane("main")
	drain(c)

	// Keys sent by another tmux process, as an agent's output would come.
	sent := time.Now()
	s.run("send-keys", "-t", pane, "hello", "Enter")
	ev := nextOutput(t, c, pane)
	if ev.Count < 1 || ev.Bytes < len("hello") || ev.First.Before(sent) || ev.Last.Before(ev.First) {
		t.Fatalf("odd event %+v", ev)
	}
	t.Logf("%%output seen %v after starting a tmux send-keys process", ev.First.Sub(sent))

	// And keys sent through the client itself: no process start in the way.
	drain(c)
	sent = time.Now()
	if _, err := c.Command(context.Background(), "send-keys", "-t", pane, "-l", "again"); err != nil {
		t.Fatal(err)
	}
	ev = nextOutput(t, c, pane)
	t.Logf("%%output seen %v after a send-keys through the client", ev.First.Sub(sent))
}

func TestOnMessageSeesOutputData(t *testing.T) {
	s := testServer(t, "cat")
	var mu sync.Mutex
	var got strings.Builder
	c := s.client(Options{OnMessage: func(m Message) {
		if o, ok := m.(*Output); ok {
			mu.Lock()
			got.Write(o.Data)
			mu.Unlock()
		}
	}})
	pane := s.pane("main")
	if _, err := c.Command(context.Background(), "send-keys", "-t", pane, "-l", `back\slash ✓`); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echoed keys in %output", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(got.String(), `back\slash ✓`)
	})
}

// printer is a pane command that prints a screenful and more: long lines
// that wrap, UTF-8, wide glyphs, colours, blank lines, then waits.
const printer = `i=0; x=; while [ $i -lt 60 ]; do printf 'line %d \033[31mred\033[0m ✓ 日本語 🚀 %s\n' $i "$x"; i=$((i+1)); x="${x}xxx"; done; printf '\n\n  indented\tTab  \n'; exec sleep 3600`

func TestCaptureMatchesTmux(t *testing.T) {
	s := testServer(t, printer)
	c := s.client(Options{})
	pane := s.pane("main")
	waitFor(t, "the printer's last line", func() bool {
		return strings.Contains(s.run("capture-pane", "-p", "-t", pane), "indented")
	})
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		o    CaptureOptions
		args []string
	}{
		{"screen", CaptureOptions{}, []string{"capture-pane", "-p", "-J", "-t", pane}},
		{"history 200", CaptureOptions{History: 200}, []string{"capture-pane", "-p", "-J", "-S", "-200", "-t", pane}},
		{"history 2000 with escapes", CaptureOptions{History: 2000, Escapes: true}, []string{"capture-pane", "-p", "-J", "-S", "-2000", "-t", pane, "-e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.CaptureWith(ctx, pane, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			want := s.run(tc.args...)
			if got != want {
				t.Fatalf("control capture differs from tmux capture-pane:\n got %q\nwant %q", got, want)
			}
			if !strings.Contains(got, "日本語") {
				t.Fatalf("the capture lacks the printed text: %q", got)
			}
		})
	}

	// An empty pane, too.
	s.run("respawn-pane", "-k", "-t", pane, "exec sleep 3600")
	s.run("clear-history", "-t", pane)
	got, err := c.Capture(ctx, pane)
	if err != nil {
		t.Fatal(err)
	}
	if want := s.run("capture-pane", "-p", "-J", "-t", pane); got != want {
		t.Fatalf("empty pane: got %q, want %q", got, want)
	}
}

func TestCommandErrorKeepsTheClient(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	ctx := context.Background()
	_, err := c.Capture(ctx, "%999")
	var ce *CommandError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "can't find pane") || ce.Command != "capture-pane" {
		t.Fatalf("got %v, want a CommandError saying tmux can't find the pane", err)
	}
	if errors.Is(err, ErrUnavailable) || c.Err() != nil {
		t.Fatalf("a rejected command must not end the client: %v, %v", err, c.Err())
	}
	if _, err := c.Command(ctx, "no-such-command"); !errors.As(err, &ce) || !strings.Contains(ce.Message, "unknown command") {
		t.Fatalf("got %v, want a parse error", err)
	}
	out, err := c.Command(ctx, "display-message", "-p", "still #{session_name}")
	if err != nil || len(out) != 1 || out[0] != "still main" {
		t.Fatalf("after errors: %q, %v", out, err)
	}
}

// Many goroutines at once, one command or three in one write (Commands):
// every reply must reach its own command.
func TestConcurrentCommandsGetTheirOwnReplies(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	pane := s.pane("main")
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 64 {
		wg.Go(func() {
			ctx := context.Background()
			var err error
			if i%4 == 3 {
				// Interleave failing commands and captures with the rest.
				_, err = c.Capture(ctx, "%999")
				if err == nil {
					err = errors.New("a capture of a missing pane succeeded")
				} else {
					err = nil
				}
				if _, cerr := c.Capture(ctx, pane); cerr != nil {
					err = cerr
				}
			} else if i%4 == 2 {
				// Three in one write, the middle one rejected: each
				// reply reaches its own command, the failure stops none.
				a, b := "first "+strconv.Itoa(i), "third "+strconv.Itoa(i)
				out, cerrs := c.Commands(ctx, []string{"display-message", "-p", a}, []string{"capture-pane", "-p", "-t", "%999"},
					[]string{"display-message", "-p", b})
				var ce *CommandError
				if cerrs[0] != nil || cerrs[2] != nil || !errors.As(cerrs[1], &ce) || fmt.Sprint(out[0], out[2]) != fmt.Sprint([]string{a}, []string{b}) {
					err = fmt.Errorf("commands %d got %q, %v", i, out, cerrs)
				}
			} else {
				want := "reply " + strconv.Itoa(i)
				out, cerr := c.Command(ctx, "display-message", "-p", want)
				if cerr != nil || len(out) != 1 || out[0] != want {
					err = fmt.Errorf("command %d got %q, %v", i, out, cerr)
				}
			}
			if err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// Arguments reach tmux literally, whatever they contain.
func TestArgumentsArriveLiterally(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	dir := t.TempDir()
	ctx := context.Background()
	for i, arg := range []string{
		`it's a "test" $HOME ${PATH} ~ #{pane_id} {x} ; \ back` + "\ttab ✓ 日本語 🚀",
		";",
		"-t",
		"line one\nline two\r\n\x1b[31mred\x7f",
		"\xff\xfe not UTF-8",
		" ",
		"%begin 1 2 1",
		strings.Repeat("0123456789\n", 20000), // 220 kB on one command line
	} {
		file := filepath.Join(dir, strconv.Itoa(i))
		if _, err := c.Command(ctx, "set-buffer", "-b", "hfctl-arg", "--", arg); err != nil {
			t.Fatalf("set-buffer %q: %v", arg, err)
		}
		if _, err := c.Command(ctx, "save-buffer", "-b", "hfctl-arg", file); err != nil {
			t.Fatalf("save-buffer: %v", err)
		}
		got, err := os.ReadFile(file)
		arg := []byte(arg)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, arg) {
			t.Errorf("tmux received %d bytes %q, want %d bytes %q", len(got), truncate(got), len(arg), truncate(arg))
		}
	}
	// An empty argument is an argument (set-buffer ignores empty data).
	if out, err := c.Command(ctx, "display-message", "-p", ""); err != nil || len(out) != 1 || out[0] != "" {
		t.Errorf("empty argument: %q, %v", out, err)
	}
	if _, err := c.Command(ctx, "display-message", "a\x00b"); !errors.Is(err, ErrBadArgument) {
		t.Errorf("NUL: %v", err)
	}
}

func TestServerKilledEndsTheClient(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	s.endsClient(t, c, "kill-server")
	if err := c.Err(); !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrClosed) {
		t.Fatalf("Err() = %v, want ErrUnavailable", err)
	}
	t.Logf("Err() = %v", c.Err())
	if _, err := c.Capture(context.Background(), "%0"); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("capture after the server died: %v", err)
	}
	if _, ok := <-c.Output(); ok {
		t.Fatal("the output channel is still open")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if !processGone(c.Pid()) {
		t.Fatal("the tmux client process is still there")
	}
}

func TestSessionKilledEndsTheClient(t *testing.T) {
	s := testServer(t, "cat")
	s.run("new-session", "-d", "-s", "other", "cat")
	c := s.client(Options{})
	s.endsClient(t, c, "kill-session", "-t", "main")
	if err := c.Err(); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Err() = %v, want ErrUnavailable", err)
	}
}

func TestCloseLeavesNoClient(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	pid := strconv.Itoa(c.Pid())
	clients := s.run("list-clients", "-F", "#{client_pid} #{client_control_mode}")
	if !strings.Contains(clients, pid+" 1") {
		t.Fatalf("list-clients does not show the control client %s:\n%s", pid, clients)
	}
	start := time.Now()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("Close took %v", time.Since(start))
	if err := c.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if got := s.run("list-clients", "-F", "#{client_pid}"); strings.TrimSpace(got) != "" {
		t.Fatalf("clients left after Close: %q", got)
	}
	if !processGone(c.Pid()) {
		t.Fatal("the tmux client process is still there")
	}
	if err := c.Err(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Err() = %v, want ErrClosed", err)
	}
	if _, err := c.Command(context.Background(), "list-sessions"); !errors.Is(err, ErrClosed) {
		t.Fatalf("command after Close: %v", err)
	}
	if _, ok := <-c.Output(); ok {
		t.Fatal("the output channel is still open")
	}
}

func truncate(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// processGone reports whether pid no longer exists (it was reaped).
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// Attaching must not disturb the session: sizes, environment, clients.
func TestAttachDoesNotDisturb(t *testing.T) {
	s := testServer(t, "cat")
	s.run("new-window", "-d", "-t", "main:", "cat")
	t.Setenv("DISPLAY", "hfctl-probe:0") // in update-environment by default
	before := s.run("list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}")
	envBefore, _ := s.try("show-environment", "-t", "main", "DISPLAY")
	c := s.client(Options{})
	if _, err := c.Command(context.Background(), "list-sessions"); err != nil {
		t.Fatal(err)
	}
	after := s.run("list-windows", "-a", "-F", "#{window_id} #{window_width}x#{window_height}")
	if after != before {
		t.Errorf("window sizes changed:\nbefore %s\nafter  %s", before, after)
	}
	envAfter, _ := s.try("show-environment", "-t", "main", "DISPLAY")
	if envAfter != envBefore {
		t.Errorf("the session environment changed: %q → %q", envBefore, envAfter)
	}
}

func TestStartFailsUnavailable(t *testing.T) {
	requireTmux(t)
	ctx := context.Background()
	t.Run("no server", func(t *testing.T) {
		sock := fmt.Sprintf("hfctl-%d-none", os.Getpid())
		_, err := Start(ctx, Options{Socket: sock, Session: "main"})
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("got %v, want ErrUnavailable", err)
		}
		t.Logf("%v", err)
		// -N: the attempt must not have started a server.
		if out, err := (&server{t: t, socket: sock}).try("list-sessions"); err == nil {
			t.Fatalf("a server runs on %s: %s", sock, out)
		}
	})
	t.Run("no session", func(t *testing.T) {
		s := testServer(t, "cat")
		_, err := Start(ctx, Options{Socket: s.socket, Session: "nosuch"})
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "can't find session") {
			t.Fatalf("got %v, want ErrUnavailable naming the session", err)
		}
		if got := s.run("list-clients"); strings.TrimSpace(got) != "" {
			t.Fatalf("clients left: %q", got)
		}
	})
	t.Run("no tmux", func(t *testing.T) {
		_, err := Start(ctx, Options{Binary: filepath.Join(t.TempDir(), "tmux"), Socket: "hfctl-x"})
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("got %v, want ErrUnavailable", err)
		}
	})
	t.Run("both sockets", func(t *testing.T) {
		if _, err := Start(ctx, Options{Socket: "hfctl-a", SocketPath: "/tmp/hfctl-b"}); err == nil {
			t.Fatal("no error")
		}
	})
}

func TestCommandContextAndTimeout(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Either the reply wins the race or the context does; both are fine,
	// and the client must stay in step afterwards.
	_, err := c.Command(ctx, "display-message", "-p", "first")
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	out, err := c.Command(context.Background(), "display-message", "-p", "second")
	if err != nil || len(out) != 1 || out[0] != "second" {
		t.Fatalf("the client lost step after a cancelled command: %q, %v", out, err)
	}
}

// Commands racing Close either complete or fail with ErrClosed; none hangs.
func TestCloseWhileCommandsRun(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for {
				_, err := c.Command(context.Background(), "display-message", "-p", "x")
				if err != nil {
					if !errors.Is(err, ErrClosed) {
						errs <- err
					}
					return
				}
			}
		})
	}
	time.Sleep(100 * time.Millisecond)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("commands still wait 5 s after Close")
	}
	close(errs)
	for err := range errs {
		t.Errorf("a command failed with %v, want ErrClosed", err)
	}
}

// Someone detaching every client ends ours with the reason tmux gives.
func TestDetachedByOthers(t *testing.T) {
	s := testServer(t, "cat")
	c := s.client(Options{})
	s.endsClient(t, c, "detach-client", "-s", "main")
	if err := c.Err(); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "detached") {
		t.Fatalf("Err() = %v, want ErrUnavailable saying it was detached", err)
	}
}

// endsClient runs a tmux command that ends c, and fails the test unless c
// ends within 5 s.
func (s *server) endsClient(t *testing.T, c *Client, args ...string) {
	t.Helper()
	s.run(args...)
	select {
	case <-c.Done():
	case <-time.After(5 * time.Second):
		t.Fatalf("the client did not end within 5 s of %s", args[0])
	}
}

package tmuxcontrol

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
)

// processRunner is a RunFunc with one tmux process per call, the way
// tmuxdriver.Server.Run works, that counts its calls.
type processRunner struct {
	socket string
	mu     sync.Mutex
	calls  [][]string
}

func (p *processRunner) run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	p.mu.Lock()
	p.calls = append(p.calls, args)
	p.mu.Unlock()
	cmd := exec.CommandContext(ctx, "tmux", append([]string{"-u", "-L", p.socket}, args...)...)
	cmd.Stdin = stdin
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), errors.New(strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func (p *processRunner) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.calls)
}

// runnerFor starts a Runner on session main, recording fallback reports.
func runnerFor(t *testing.T, s *server) (*Runner, *processRunner, *[]error) {
	t.Helper()
	fb := &processRunner{socket: s.socket}
	var reports []error
	r := NewRunner(context.Background(), Options{Socket: s.socket, Session: "main", NoOutput: true}, fb.run, func(err error) {
		reports = append(reports, err)
	})
	t.Cleanup(func() { _ = r.Close() })
	return r, fb, &reports
}

func TestRunnerMatchesProcesses(t *testing.T) {
	s := testServer(t, printer)
	pane := s.pane("main")
	waitFor(t, "the printer's last line", func() bool {
		return strings.Contains(s.run("capture-pane", "-p", "-t", pane), "indented")
	})
	s.run("set-option", "-p", "-t", pane, "@odd", "tab\there ✓ \\ $HOME")
	r, fb, reports := runnerFor(t, s)
	if r.Client() == nil {
		t.Fatalf("no control client: %v", *reports)
	}
	ctx := context.Background()
	// tmuxdriver's poll, word for word, and the other calls it makes.
	mark := "<0123456789abcdef>"
	format := mark + "#{pane_dead}" + mark + "#{pane_dead_status}" + mark + "#{pane_dead_signal}" + mark +
		"#{pane_pid}" + mark + "#{pane_in_mode}" + mark + "#{pane_current_command}" + mark + "#{pane_title}" + mark + "end\n"
	for _, args := range [][]string{
		{"display-message", "-p", "-t", pane, format, ";", "capture-pane", "-p", "-J", "-S", "-200", "-t", pane},
		{"capture-pane", "-p", "-J", "-S", "-2000", "-t", pane, "-e"},
		{"capture-pane", "-p", "-J", "-t", pane},
		{"display-message", "-p", "-t", pane, "#{@odd}|#{pane_width}x#{pane_height}"},
		{"list-panes", "-a", "-F", "#{pane_id} #{session_name}", ";", "set-option", "-p", "-t", pane, "@x", "1", ";"},
	} {
		want, werr := fb.run(ctx, nil, args...)
		before := fb.count()
		got, err := r.Run(ctx, nil, args...)
		if err != nil || werr != nil {
			t.Fatalf("%q: %v / %v", args, err, werr)
		}
		if got != want {
			t.Errorf("%q:\n got %q\nwant %q", args, got, want)
		}
		if fb.count() != before {
			t.Errorf("%q went through the fallback", args)
		}
	}
	if len(*reports) != 0 {
		t.Fatalf("fallback reported: %v", *reports)
	}
}

func TestRunnerErrorsAreTheFallbacks(t *testing.T) {
	s := testServer(t, "cat")
	pane := s.pane("main")
	r, fb, reports := runnerFor(t, s)
	ctx := context.Background()
	args := []string{"display-message", "-p", "-t", pane, "first", ";", "capture-pane", "-p", "-t", "%999", ";", "display-message", "-p", "never"}
	want, werr := fb.run(ctx, nil, args...)
	before := fb.count()
	got, err := r.Run(ctx, nil, args...)
	if got != want || err == nil || werr == nil || err.Error() != werr.Error() {
		t.Fatalf("got %q, %v; want %q, %v", got, err, want, werr)
	}
	if fb.count() != before+1 || fb.calls[before][0] != "capture-pane" {
		t.Fatalf("the fallback ran %q, want the rest from capture-pane", fb.calls[before:])
	}
	if len(*reports) != 0 || r.Client() == nil {
		t.Fatalf("a rejected command must not end control mode: %v", *reports)
	}
}

func TestRunnerSendsShowBufferToTheFallback(t *testing.T) {
	s := testServer(t, "cat")
	r, fb, _ := runnerFor(t, s)
	ctx := context.Background()
	if _, err := r.Run(ctx, strings.NewReader("from stdin\t$HOME"), "load-buffer", "-b", "hfctl", "-"); err != nil {
		t.Fatal(err)
	}
	got, err := r.Run(ctx, nil, "show-buffer", "-b", "hfctl")
	if err != nil || got != "from stdin\t$HOME" {
		t.Fatalf("show-buffer: %q, %v", got, err)
	}
	if fb.count() != 1 {
		t.Fatalf("fallback calls %q, want show-buffer alone", fb.calls)
	}
}

func TestRunnerFallsBackOnceWhenTheServerDies(t *testing.T) {
	s := testServer(t, "cat")
	r, fb, reports := runnerFor(t, s)
	c := r.Client()
	s.endsClient(t, c, "kill-server")
	ctx := context.Background()
	for range 3 {
		// The process path says "no server running", or "server exited
		// unexpectedly" while the server is still going away.
		_, err := r.Run(ctx, nil, "capture-pane", "-p", "-t", "%0")
		if err == nil || errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "server") {
			t.Fatalf("got %v, want the fallback's own error", err)
		}
	}
	if len(*reports) != 1 || !errors.Is((*reports)[0], ErrUnavailable) {
		t.Fatalf("fallback reports %v, want one wrapping ErrUnavailable", *reports)
	}
	if r.Client() != nil || fb.count() != 3 {
		t.Fatalf("client %v, fallback calls %d", r.Client(), fb.count())
	}
}

func TestNewRunnerWithoutControlMode(t *testing.T) {
	s := testServer(t, "cat")
	fb := &processRunner{socket: s.socket}
	var reports []error
	r := NewRunner(context.Background(), Options{Socket: s.socket, Session: "nosuch"}, fb.run, func(err error) {
		reports = append(reports, err)
	})
	defer r.Close()
	if len(reports) != 1 || !errors.Is(reports[0], ErrUnavailable) || r.Client() != nil {
		t.Fatalf("reports %v, client %v", reports, r.Client())
	}
	got, err := r.Run(context.Background(), nil, "display-message", "-p", "-t", "main", "#{session_name}")
	if err != nil || got != "main\n" || fb.count() != 1 {
		t.Fatalf("got %q, %v after %d fallback calls", got, err, fb.count())
	}
	_ = r.Close()
	if len(reports) != 1 {
		t.Fatalf("Close reported a fallback: %v", reports)
	}
}

// A paste's load-buffer from standard input goes through the control
// client (as set-buffer), byte for byte: tabs, quotes, $, a leading dash,
// line breaks, UTF-8, bytes that are not UTF-8, 100 KiB. Other standard
// input, and a NUL byte, still go to the fallback.
func TestRunnerLoadsABufferFromStdinThroughTheClient(t *testing.T) {
	s := testServer(t, "cat")
	pane := s.pane("main")
	r, fb, reports := runnerFor(t, s)
	ctx := context.Background()
	for _, data := range []string{
		"from stdin\t$HOME 'quoted' \"double\" \\ back ; semi ✓ #{pane_id} ~/x\n%begin 1 2 3\n",
		"-starts with a dash\nand goes on\r\nover lines\n\n",
		"not UTF-8: \xff\xfe end",
		strings.Repeat("a long prompt, line after line\n", 100<<10/31),
	} {
		before := fb.count()
		out, err := r.Run(ctx, strings.NewReader(data), "capture-pane", "-p", "-t", pane, ";", "load-buffer", "-b", "hfctl", "-")
		if err != nil || !strings.Contains(out, "\n") {
			t.Fatalf("%.40q: %q, %v", data, out, err)
		}
		if fb.count() != before {
			t.Fatalf("%.40q went through the fallback: %q", data, fb.calls[before:])
		}
		if got, err := fb.run(ctx, nil, "show-buffer", "-b", "hfctl"); err != nil || got != data {
			t.Fatalf("the buffer holds %.60q (%v), want %.60q", got, err, data)
		}
	}
	before := fb.count()
	if _, err := r.Run(ctx, strings.NewReader("a\x00b"), "load-buffer", "-b", "hfctl", "-"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(ctx, strings.NewReader("display-message -p hi\n"), "source-file", "-"); err != nil {
		t.Fatal(err)
	}
	if fb.count() != before+2 {
		t.Fatalf("fallback calls %q, want the NUL byte's load-buffer and source-file", fb.calls[before:])
	}
	// A command the client's tmux rejects after the set-buffer: the rest
	// is the fallback's, the load-buffer with its standard input again
	// when it is in the rest.
	before = fb.count()
	_, err := r.Run(ctx, strings.NewReader("again"), "capture-pane", "-p", "-t", "%999", ";", "load-buffer", "-b", "hfctl2", "-")
	if err == nil || fb.count() != before+1 || !slices.Equal(fb.calls[before][4:], []string{";", "load-buffer", "-b", "hfctl2", "-"}) {
		t.Fatalf("%v; fallback calls %q", err, fb.calls[before:])
	}
	if len(*reports) != 0 || r.Client() == nil {
		t.Fatalf("control mode ended: %v", *reports)
	}
}

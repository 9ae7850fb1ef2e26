package tmuxcontrol

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"
)

// benchPane starts a private server whose pane shows the printer's
// screenful plus scrollback, and returns the server and the pane id.
func benchPane(b *testing.B) (*server, string) {
	s := testServer(b, printer)
	pane := s.pane("main")
	waitFor(b, "the printer's last line", func() bool {
		return strings.Contains(s.run("capture-pane", "-p", "-t", pane), "indented")
	})
	return s, pane
}

// pollFormat is the metadata tmuxdriver reads with every poll.
const pollFormat = "<m>#{pane_dead}<m>#{pane_dead_status}<m>#{pane_dead_signal}<m>#{pane_pid}<m>#{pane_in_mode}<m>#{pane_current_command}<m>#{pane_title}<m>end"

// BenchmarkCapture compares one capture of a pane (200 lines of
// scrollback, as tmuxdriver polls) through the control client with one
// tmux process per capture, and a whole tmuxdriver-style poll (metadata +
// capture) both ways. tmux-procs/op counts the tmux processes started per
// operation.
func BenchmarkCapture(b *testing.B) {
	ctx := context.Background()
	poll := func(pane string) []string {
		return []string{"display-message", "-p", "-t", pane, pollFormat, ";", "capture-pane", "-p", "-J", "-S", "-200", "-t", pane}
	}
	control := func(s *server) *Client { return s.client(Options{NoOutput: true}) }
	ways := []struct {
		name  string
		procs float64 // the tmux processes one operation starts
		// op prepares one way of reading pane of s, and returns the operation.
		op func(b *testing.B, s *server, pane string) func() error
	}{
		{"exec", 1, func(_ *testing.B, s *server, pane string) func() error {
			return func() error { _, err := s.try("capture-pane", "-p", "-J", "-S", "-200", "-t", pane); return err }
		}},
		{"control", 0, func(_ *testing.B, s *server, pane string) func() error {
			c := control(s)
			return func() error { _, err := c.CaptureWith(ctx, pane, CaptureOptions{History: 200}); return err }
		}},
		{"poll-exec", 1, func(_ *testing.B, s *server, pane string) func() error {
			return func() error { _, err := s.try(poll(pane)...); return err }
		}},
		{"poll-runner", 0, func(b *testing.B, s *server, pane string) func() error {
			r := NewRunner(ctx, Options{Socket: s.socket, Session: "main", NoOutput: true},
				func(context.Context, io.Reader, ...string) (string, error) {
					b.Fatal("the runner fell back")
					return "", nil
				}, nil)
			b.Cleanup(func() { r.Close() })
			return func() error { _, err := r.Run(ctx, nil, poll(pane)...); return err }
		}},
		{"poll-control", 0, func(_ *testing.B, s *server, pane string) func() error {
			c := control(s)
			return func() error {
				if _, err := c.Command(ctx, "display-message", "-p", "-t", pane, pollFormat); err != nil {
					return err
				}
				_, err := c.CaptureWith(ctx, pane, CaptureOptions{History: 200})
				return err
			}
		}},
	}
	for _, w := range ways {
		b.Run(w.name, func(b *testing.B) {
			s, pane := benchPane(b)
			op := w.op(b, s, pane)
			for b.Loop() {
				if err := op(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(w.procs, "tmux-procs/op")
		})
	}
}

// BenchmarkOutputLatency measures how long after a keystroke reaches tmux
// (send-keys through the client) its echo arrives as an OutputEvent: the
// time a driver needs to notice that a pane changed, against the poll
// interval (2 s by default) a polling driver waits on average half of.
func BenchmarkOutputLatency(b *testing.B) {
	s := testServer(b, "cat")
	c := s.client(Options{})
	pane := s.pane("main")
	ctx := context.Background()
	for b.Loop() {
		if _, err := c.Command(ctx, "send-keys", "-t", pane, "-l", "x"); err != nil {
			b.Fatal(err)
		}
		select {
		case <-c.Output():
		case <-time.After(5 * time.Second):
			b.Fatal("no output event")
		}
	}
}

// BenchmarkParse measures the parser on a 200-line capture reply followed
// by a burst of escaped %output lines.
func BenchmarkParse(b *testing.B) {
	var lines [][]byte
	lines = append(lines, []byte("%begin 1795424157 274 1"))
	for range 200 {
		lines = append(lines, []byte("line 42 \x1b[31mred\x1b[0m ✓ 日本語 🚀 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"))
	}
	lines = append(lines, []byte("%end 1795424157 274 1"))
	for range 50 {
		lines = append(lines, []byte(`%output %1 \033[2K\033[1G\342\240\264 Working (3s \342\200\242 esc to interrupt)\015\012`))
	}
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	b.SetBytes(int64(n))
	for b.Loop() {
		var p Parser
		for _, l := range lines {
			p.Parse(l)
		}
	}
}

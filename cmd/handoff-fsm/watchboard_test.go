package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// On a terminal narrower than a row, the board cuts each row to the width
// (with "…") instead of letting it wrap onto the next row.
func TestBoardRowsAreCutToTheTerminalWidth(t *testing.T) {
	rows := map[string]*boardRow{
		"%1": {Pane: "%1", Target: "agents:0.0", Provider: "codex", Status: handoff.StatusProcessing, Since: time.Now(),
			Reason: "the spinner line says Working (12s • esc to interrupt) and more text follows here"},
		"%2": {Pane: "%2", Target: "agents:0.1", Provider: "claude", Status: handoff.StatusIdle, Since: time.Now(),
			Reason: "提示符为空，等待输入：中文的字符占两列"},
	}
	for _, width := range []int{20, 45, 80, 200} {
		var b strings.Builder
		drawBoard(&b, rows, width)
		out := strings.TrimPrefix(b.String(), "\x1b[H\x1b[2J")
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Fatalf("width %d: %d lines, want a header and two rows:\n%s", width, len(lines), out)
		}
		for _, l := range lines {
			if w := displayWidth(l); w > width {
				t.Errorf("width %d: a row of %d columns: %q", width, w, l)
			}
		}
		if !strings.HasPrefix(lines[1], "%1") || !strings.HasPrefix(lines[2], "%2") {
			t.Errorf("width %d: rows lost their start:\n%s", width, out)
		}
		if width == 200 && strings.Contains(lines[0], "…") {
			t.Errorf("a row that fits was cut: %q", lines[0])
		}
	}
	// Unknown width: nothing is cut.
	var b strings.Builder
	drawBoard(&b, rows, 0)
	if !strings.Contains(b.String(), "esc to interrupt") {
		t.Errorf("with no width known the rows were cut:\n%s", b.String())
	}
}

func TestCutCountsColumnsNotBytes(t *testing.T) {
	for _, tc := range []struct {
		in    string
		width int
		want  string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"中文字", 6, "中文字"},
		{"中文字", 5, "中文…"},
		{"中文字", 4, "中…"},
		{"e\u0301té", 3, "e\u0301té"},
	} {
		if got := cut(tc.in, tc.width); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.in, tc.width, got, tc.want)
		}
	}
}

// The live board in a real terminal 50 columns wide (a tmux pane): every
// screen line is one whole row, none wrapped onto the next.
func TestLiveBoardFitsANarrowTerminal(t *testing.T) {
	a := startAgent(t, quickAgent...)
	// A second pane whose command makes its row long.
	if _, err := a.srv.Run(context.Background(), nil, "new-window", "-d", "sleep 600 # a long command line"); err != nil {
		t.Fatal(err)
	}
	board := "exec env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) + " watch --socket " + handoff.ShellQuote(a.srv.Socket) + " --interval 200ms"
	term, err := tmuxdriver.StartPrivate(context.Background(), tmuxdriver.PrivateOptions{Prefix: "handoff-board", Width: 50, Height: 20, Command: board})
	if err != nil {
		t.Fatal(err)
	}
	defer term.Close(context.Background())
	var screen string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		screen, err = term.Run(context.Background(), nil, "capture-pane", "-p", "-t", term.Pane)
		if err == nil && strings.Count(screen, "\n%") >= 3 {
			break
		}
	}
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "PANE") {
		t.Fatalf("no board with three rows on the screen:\n%s", screen)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "%") {
			t.Errorf("a screen line is not a row (wrapped?): %q\n%s", l, screen)
		}
	}
}

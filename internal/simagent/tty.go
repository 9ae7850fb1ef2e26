package simagent

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// stty runs stty on the terminal tty (its standard input) and returns what it
// printed. stty is used instead of termios syscalls so the agent needs no
// dependency beyond the standard library.
func stty(ctx context.Context, tty *os.File, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "stty", args...)
	cmd.Stdin = tty
	out, err := cmd.Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = strings.TrimSpace(string(ee.Stderr))
		}
		return "", fmt.Errorf("stty %s: %v %s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// RawMode switches the terminal on tty to raw mode without echo, as a TUI
// does, so every key (and a whole bracketed paste) reaches the agent
// unchanged. The returned function restores the previous settings; call it
// on every exit path.
func RawMode(ctx context.Context, tty *os.File) (restore func() error, err error) {
	saved, err := stty(ctx, tty, "-g")
	if err != nil {
		return nil, err
	}
	if _, err := stty(ctx, tty, "raw", "-echo"); err != nil {
		return nil, err
	}
	return func() error {
		// A fresh context: restoring must work even after ctx was cancelled.
		_, err := stty(context.Background(), tty, saved)
		return err
	}, nil
}

// Size returns the rows and columns of the terminal on tty.
func Size(ctx context.Context, tty *os.File) (rows, cols int, err error) {
	out, err := stty(ctx, tty, "size")
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(out)
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("stty size: unexpected output %q", out)
	}
	rows, err1 := strconv.Atoi(f[0])
	cols, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || rows <= 0 || cols <= 0 {
		return 0, 0, fmt.Errorf("stty size: unexpected output %q", out)
	}
	return rows, cols, nil
}

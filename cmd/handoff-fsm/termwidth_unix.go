//go:build unix

package main

import (
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// termWidth is the width in columns of the terminal w writes to (TIOCGWINSZ,
// on every Unix), else $COLUMNS, else 0: unknown.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok {
		if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Col > 0 {
			return int(ws.Col)
		}
	}
	n, _ := strconv.Atoi(os.Getenv("COLUMNS"))
	return n
}

//go:build !unix

package main

import (
	"io"
	"os"
	"strconv"
)

// termWidth is $COLUMNS where the terminal cannot be asked; 0 is unknown.
func termWidth(io.Writer) int {
	n, _ := strconv.Atoi(os.Getenv("COLUMNS"))
	return n
}

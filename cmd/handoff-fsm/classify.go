package main

import (
	"context"
	"fmt"
	"io"
)

// runClassify is not built yet.
func runClassify(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: classify is not implemented yet")
	return exitFailure
}

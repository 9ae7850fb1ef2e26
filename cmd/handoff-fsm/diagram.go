package main

import (
	"context"
	"fmt"
	"io"
)

// runDiagram is not built yet.
func runDiagram(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "handoff-fsm: diagram is not implemented yet")
	return exitFailure
}

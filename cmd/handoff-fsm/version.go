package main

import (
	"context"
	"fmt"
	"io"

	"github.com/handoff-fsm/handoff-fsm/version"
)

const versionUsage = `usage: handoff-fsm version [--json]   (also: handoff-fsm --version)

Prints the build: the module version (a release tag, or a pseudo-version
naming the commit), the source revision and whether it had uncommitted
changes, and the Go version.

flags:
`

func runVersion(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("version", versionUsage, stderr)
	asJSON := cmd.Bool("json", false, "print the build as a JSON object (module, version, revision, time, modified, go)")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	info := version.Get()
	if *asJSON {
		if err := writeJSON(stdout, info); err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
		return exitOK
	}
	fmt.Fprintln(stdout, info)
	return exitOK
}

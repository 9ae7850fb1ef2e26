package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/providerfile"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

const providersUsage = `usage: handoff-fsm providers [--json] [--provider-file FILE]

Lists the agent CLIs handoff-fsm reads (--provider NAME): the CLI's npm package, the version
its real screens and end-to-end tests are proven on, and the hook that reports the end of a
turn (register it as "handoff-fsm hook --dir DIR"). --json prints a JSON array of objects
with name, cli, version and hook. --provider-file FILE validates a CLI described in a file
and lists it too (its name prefixed with "file:"; no hook).

flags:
`

// runProviders prints the providers of the registry.
func runProviders(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("providers", providersUsage, stderr)
	asJSON := cmd.Bool("json", false, "print a JSON array")
	file := providerFileFlag(cmd.FlagSet)
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	all := provider.All()
	if *file != "" {
		cl, err := providerfile.Load(*file)
		if err != nil {
			return cmd.usageErr("--provider-file: %v", err)
		}
		d := cl.File()
		all = append(all, screen.Provider{Name: "file:" + d.Name, CLI: d.CLI, Version: d.Version})
	}
	var err error
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(all)
	} else {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tCLI\tVERSION\tHOOK")
		for _, p := range all {
			hook := p.Hook
			if hook == "" {
				hook = "-" // none proven
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, p.CLI, p.Version, hook)
		}
		err = tw.Flush()
	}
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	return exitOK
}

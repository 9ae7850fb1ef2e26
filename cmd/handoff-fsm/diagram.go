package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/diagram"
)

const diagramUsage = `usage: handoff-fsm diagram [--format mermaid|dot]

Prints the dispatch state diagram, drawn from the transition table the engine runs.
  mermaid  a Markdown page: a Mermaid stateDiagram-v2 with event labels and a legend of the
           states and events (docs/state-diagram.md is this output; regenerate it with
           ` + diagram.RegenerateCommand + `)
  dot      a Graphviz digraph (render with: handoff-fsm diagram --format dot | dot -Tsvg)

flags:
`

// runDiagram prints the state diagram.
func runDiagram(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diagram", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, diagramUsage)
		fs.PrintDefaults()
	}
	format := fs.String("format", "mermaid", "mermaid (Markdown page) or dot (Graphviz)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "handoff-fsm diagram: unexpected argument %q\n", fs.Arg(0))
		return exitUsage
	}
	var out string
	switch *format {
	case "mermaid":
		out = diagram.Mermaid(handoff.Transitions())
	case "dot":
		out = diagram.DOT(handoff.Transitions())
	default:
		fmt.Fprintf(stderr, "handoff-fsm diagram: unknown format %q (want mermaid or dot)\n", *format)
		return exitUsage
	}
	if _, err := io.WriteString(stdout, out); err != nil {
		fmt.Fprintf(stderr, "handoff-fsm diagram: %v\n", err)
		return exitFailure
	}
	return exitOK
}

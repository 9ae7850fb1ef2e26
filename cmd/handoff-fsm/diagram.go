package main

import (
	"context"
	"io"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/diagram"
)

const diagramUsage = `usage: handoff-fsm diagram [--format mermaid|dot|svg]

Prints the dispatch state diagram, drawn from the transition table the engine runs.
  mermaid  a Markdown page: a Mermaid stateDiagram-v2 with event labels and a legend of the
           states and events (docs/state-diagram.md is this output; regenerate it with
           ` + diagram.RegenerateCommand + `)
  dot      a Graphviz digraph (render with: handoff-fsm diagram --format dot | dot -Tsvg)
  svg      an SVG image drawn without Graphviz (the web board's diagram)

flags:
`

// runDiagram prints the state diagram.
func runDiagram(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("diagram", diagramUsage, stderr)
	format := cmd.String("format", "mermaid", "mermaid (Markdown page), dot (Graphviz) or svg")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	var out string
	switch *format {
	case "mermaid":
		out = diagram.Mermaid(handoff.Transitions())
	case "dot":
		out = diagram.DOT(handoff.Transitions())
	case "svg":
		out = diagram.SVG(handoff.Transitions(), nil)
	default:
		return cmd.usageErr("unknown format %q (want mermaid, dot or svg)", *format)
	}
	if _, err := io.WriteString(stdout, out); err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	return exitOK
}

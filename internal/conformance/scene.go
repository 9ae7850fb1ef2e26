package conformance

import (
	"fmt"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Scene is the one scenario the benchmarks of providers drawn as cells
// (a prompt, a tool call, a reply, the chrome below) are measured on: a
// question about a parser answered with a tool call, then a second
// prompt in each state. A provider gives only how its CLI draws each
// part; Bench builds the captures, so every provider measures the same
// turns.
type Scene struct {
	Classifier handoff.Classifier
	// Title is the pane title the captures are classified with.
	Title string
	// Prompt draws a submitted prompt.
	Prompt func(text string) []string
	// Tool draws a finished tool call and its output.
	Tool func(command, output string) []string
	// Reply draws the agent's answer, one string a line.
	Reply func(lines ...string) []string
	// Chrome draws what is below the last turn: composer and footer,
	// with the CLI's busy indicator or without.
	Chrome func(busy bool) []string
	// Welcome is the screen above the chrome before any turn (idle).
	Welcome []string
	// BusyWord is the CLI's busy indicator, quoted inside an answer: the
	// classifier must not take it for a turn in progress.
	BusyWord string
	// Indent is the margin of the CLI's answer lines.
	Indent string
	// Paint colours a line as the CLI draws it (capture-pane -e).
	Paint func(line string) string
	// Real is the folder of the real screens (see Bench.Real).
	Real string
}

// Bench is the scene as benchmark captures: the first turn as history,
// the second prompt answered (completed), in progress (processing), and
// the welcome screen (idle).
func (s Scene) Bench() Bench {
	second := s.Prompt("Summarise what you changed")
	return Bench{
		Classifier: s.Classifier,
		Title:      s.Title,
		History: Join(s.Prompt("Please look at the parser and tell me what it does with trailing commas"),
			s.Tool("grep -n comma parser.go", "12: // trailing commas"),
			s.Reply("The parser accepts trailing commas in lists and objects. "+s.BusyWord+" is", "not shown; Error: none.")),
		Tails: map[handoff.Status][]string{
			handoff.StatusCompleted:  Join(second, s.Reply("I changed three things:", "1. the lexer keeps positions"), s.Chrome(false)),
			handoff.StatusProcessing: Join(second, s.Chrome(true)),
			handoff.StatusIdle:       Join(s.Welcome, s.Chrome(false)),
		},
		NoPrompt: s.Chrome(false),
		Paint:    s.Paint,
		Filler:   s.Indent + "a line of a very long answer whose prompt scrolled out",
		Real:     s.Real,
	}
}

// TrueColour is the Paint of a CLI that draws its text in one 24-bit
// foreground colour, resets it after the text, and pads the line with
// pad blanks (as capture-pane -e shows it).
func TrueColour(r, g, b uint8, pad int) func(line string) string {
	start := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", r, g, b)
	return func(line string) string { return start + line + "\x1b[39m" + strings.Repeat(" ", pad) }
}

// Package diagram draws the dispatch state machine from the transition
// table (handoff.Transitions), so the picture cannot drift from what the
// engine runs.
package diagram

import (
	"fmt"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// RegenerateCommand is how docs/state-diagram.md is produced from the table.
const RegenerateCommand = "go run ./cmd/handoff-fsm diagram > docs/state-diagram.md"

// Mermaid renders table as a Markdown page: a Mermaid stateDiagram-v2 with
// every transition labelled by its event, then a legend of the states and
// the events. docs/state-diagram.md is this output for handoff.Transitions().
func Mermaid(table []handoff.Transition) string {
	var b strings.Builder
	b.WriteString("# Dispatch state diagram\n\n")
	fmt.Fprintf(&b, "<!-- Generated from the transition table in states.go by `%s`. Do not edit by hand. -->\n\n", RegenerateCommand)
	b.WriteString("How a dispatch moves while the orchestrator waits for an agent's answer. ")
	b.WriteString("Every arrow is one row of `handoff.Transitions()`, labelled with its event.\n\n")
	b.WriteString("```mermaid\nstateDiagram-v2\n")
	fmt.Fprintf(&b, "    [*] --> %s\n", handoff.AwaitingStart)
	for _, t := range table {
		for _, from := range t.From {
			fmt.Fprintf(&b, "    %s --> %s : %s\n", from, t.To, t.Event)
		}
	}
	for _, s := range states(table) {
		if s.Final() {
			fmt.Fprintf(&b, "    %s --> [*]\n", s)
		}
	}
	b.WriteString("```\n\n## States\n\n| state | meaning |\n|---|---|\n")
	for _, s := range states(table) {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s, cell(s.Describe()))
	}
	b.WriteString("\n## Events\n\n| event | when |\n|---|---|\n")
	for _, e := range events(table) {
		fmt.Fprintf(&b, "| `%s` | %s |\n", e, cell(e.Describe()))
	}
	b.WriteString("\n## Endings\n\nWhat each final transition means, read off the same rows: the response's source " +
		"or the error a failed wait wraps, and the exit status of `handoff-fsm send`.\n\n" +
		"| event | outcome | error | exit | meaning |\n|---|---|---|---|---|\n")
	for _, t := range table {
		if o := t.Outcome; o != nil {
			errName := "—"
			if o.Err != nil {
				errName = cell(o.Err.Error())
			}
			fmt.Fprintf(&b, "| `%s` | `%s` | %s | %d | %s |\n", t.Event, o.Name, errName, o.Exit, cell(o.Summary))
		}
	}
	for _, o := range handoff.Refusals() {
		fmt.Fprintf(&b, "| (before sending) | `%s` | %s | %d | %s |\n", o.Name, cell(o.Err.Error()), o.Exit, cell(o.Summary))
	}
	b.WriteString("\n## Actions\n\nWhat the core asks the driver to do (`fsm.Ready.Action`); the core itself does no I/O.\n\n" +
		"| action | when, and what the driver does |\n|---|---|\n")
	for _, a := range fsm.Actions() {
		fmt.Fprintf(&b, "| `%s` | %s |\n", a, cell(a.Describe()))
	}
	b.WriteString("\nBefore the dispatch the driver takes the role's response slot, then the pane (one dispatch per pane at a time), " +
		"and looks at the agent: one that works or waits for the user would queue the prompt, so it waits up to `Config.BusyWait` " +
		"(`send --busy-wait`) for a ready prompt, seen twice in a row once it was seen busy, or ends with `agent_busy` and sends nothing " +
		"(the row \"before sending\" above; `Config.QueueWhenBusy`, `send --when-busy=queue`, pastes anyway). " +
		"With `fsm.Options.Settle` (`send --settle`) it wants the ready prompt twice in a row in any case. " +
		"A dispatch that ends in `timeout` leaves the pane marked busy with it until a later dispatch sees the agent ready; " +
		"a resumed wait whose pane changed (another pane behind the target, another process, a restarted server) ends with `terminal_error` on its first look.\n")
	b.WriteString("\nEach observation is checked in this order: `terminal_error`, `file_ready` (a quiet terminal with a file at the path: " +
		"the core asks the driver to consume it, archived before it is read; a blank file counts as none; a file carrying another " +
		"dispatch's receipt is `answer_mismatched`; a thing that cannot be an answer is `unusable_file`), `active`, then the quiet rules " +
		"(`startup_timeout`, `quiet`, and at the end of the grace `no_response_file` or `fallback`); " +
		"one observation can fire two transitions in a row (for example `active` then `timeout` at the response deadline).\n")
	b.WriteString(receipts)
	return b.String()
}

// receipts explains answer_mismatched: what changed, and why.
const receipts = `
## Which prompt an answer is for: receipts

Every dispatch has its own random receipt (` + "`handoff.Receipt`" + `, 20 base32 characters). The RESPONSE FILE
INSTRUCTION carries it twice: the heredoc's delimiter is ` + "`HANDOFF_EOF_<receipt>`" + ` (it used to be the fixed
` + "`AGENT_EOF`" + `), and the response file's first line is ` + "`<!-- handoff:<receipt> -->`" + `, which the engine strips
before it returns the answer. Why:

- An answer for an earlier prompt must never be returned for a later one. An agent keeps working when its
  dispatch timed out, and Codex and Claude Code queue a prompt typed during a turn: the next dispatch then
  sees the agent go quiet with the earlier turn's file in the role's slot. That file carries the earlier
  receipt: ` + "`answer_mismatched`" + ` archives it (` + "`NNN-<role>.mismatch.md`" + `), never returns it, and sends the dispatch back
  to ` + "`AwaitingStart`" + ` with the startup guard armed again, because the turn that just ended was not ours; ours
  may only now start. The wait then goes on as for a new dispatch: the answer with our receipt, or a clear
  failure (` + "`no_response_file`" + ` when the agent never takes our prompt up, ` + "`timeout`" + `).
- An answer can neither end the heredoc early nor escape into the agent's shell: with a fixed delimiter,
  an answer holding a line ` + "`AGENT_EOF`" + ` was cut there and the rest ran as shell commands.

A file without a receipt line is taken as the answer: agents, people and tools that write the file without
copying the command exactly keep working, and a file left from before the dispatch is archived as stale
before the prompt is sent. Only a receipt that is present and different makes a file another prompt's.
` + "`fsm.Wait`" + ` given no receipt (it sends nothing) accepts any.
`

// DOT renders table as a Graphviz digraph; each state and edge carries its
// legend text as a tooltip.
func DOT(table []handoff.Transition) string {
	var b strings.Builder
	b.WriteString("// Dispatch state diagram, generated from handoff.Transitions().\n")
	b.WriteString("digraph dispatch {\n    rankdir=LR;\n    node [shape=box, style=rounded];\n")
	b.WriteString("    start [shape=point, label=\"\"];\n")
	for _, s := range states(table) {
		shape := ""
		if s.Final() {
			shape = ", peripheries=2"
		}
		fmt.Fprintf(&b, "    %s [tooltip=%s%s];\n", s, quote(s.Describe()), shape)
	}
	fmt.Fprintf(&b, "    start -> %s;\n", handoff.AwaitingStart)
	for _, t := range table {
		for _, from := range t.From {
			fmt.Fprintf(&b, "    %s -> %s [label=%s, tooltip=%s];\n", from, t.To, quote(string(t.Event)), quote(t.Event.Describe()))
		}
	}
	b.WriteString("}\n")
	return b.String()
}

// states lists the table's states in handoff.States() order, then any the
// list does not know (so a new state shows up rather than vanishing).
func states(table []handoff.Transition) []handoff.State {
	seen := map[handoff.State]bool{}
	for _, t := range table {
		for _, f := range t.From {
			seen[f] = true
		}
		seen[t.To] = true
	}
	seen[handoff.AwaitingStart] = true
	var out []handoff.State
	for _, s := range handoff.States() {
		if seen[s] {
			out = append(out, s)
			delete(seen, s)
		}
	}
	for _, t := range table {
		for _, s := range append(append([]handoff.State{}, t.From...), t.To) {
			if seen[s] {
				out = append(out, s)
				delete(seen, s)
			}
		}
	}
	return out
}

func events(table []handoff.Transition) []handoff.Event {
	var out []handoff.Event
	seen := map[handoff.Event]bool{}
	for _, t := range table {
		if !seen[t.Event] {
			seen[t.Event] = true
			out = append(out, t.Event)
		}
	}
	return out
}

// cell makes text safe inside a Markdown table cell.
func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// quote makes a DOT string literal.
func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

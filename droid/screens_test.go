package droid

import "strings"

// Synthetic screens, as droid 0.225.2 draws them (80 columns).
var (
	boxTopLine    = "╭" + strings.Repeat("─", 78) + "╮"
	boxBottomLine = "╰" + strings.Repeat("─", 78) + "╯"
)

const (
	modeLine  = " Auto (High) · allow all commands                                          Fake"
	footer    = "[⏱ 3s] ? for help                                                          IDE ◌"
	working   = " ⠋ Streaming...  (Press ESC to stop)"
	steerLine = "│ > Enter to steer · Ctrl+Enter to queue                                       │"
)

// header is what droid prints at its start.
var header = []string{
	"                             ╔═══════════════════╗",
	"                             ║     D R O I D     ║",
	"                             ╚═══════════════════╝",
	"",
	"                               v0.225.2 - Airgap",
	"",
	"                      Skills (…)  MCPs (0) ✗  AGENTS.md ✗",
	"",
}

// boxed is a line of the composer box holding t.
func boxed(t string) string {
	return "│" + t + strings.Repeat(" ", max(0, 78-len([]rune(t)))) + "│"
}

// chrome is the bottom of the screen: the working line when busy, the
// mode line, the composer holding draft (or the steer placeholder when
// busy), the footer.
func chrome(busy bool, draft string) []string {
	var out []string
	if busy {
		out = append(out, working, "")
	}
	line := boxed(" > " + draft)
	if busy {
		line = steerLine
	}
	return append(out, modeLine, boxTopLine, line, boxBottomLine, footer, "", "")
}

// prompt is a user prompt as droid shows it: three columns in.
func prompt(t string) []string { return []string{"   " + t, ""} }

// sent is a prompt as capture-pane -J keeps it: painted across the
// whole 80 columns.
func sent(t string) []string {
	line := "   " + t
	return []string{line + strings.Repeat(" ", max(0, 80-len([]rune(line)))), ""}
}

// reply is an assistant message: "⛬  " and its paragraphs.
func reply(first string, more ...string) []string {
	out := []string{"⛬  " + first}
	for _, m := range more {
		out = append(out, "", "   "+m)
	}
	return append(out, "")
}

// approval is the dialog that replaces the composer.
var approval = []string{
	"  Command to approve · medium risk",
	"  ↳ echo hi > x",
	"  Why this needs approval: It writes a file.",
	boxTopLine,
	boxed("  Yes, allow"),
	boxed("  Yes, and always allow medium impact commands (all commands that are"),
	boxed("reversible)"),
	boxed("  No, cancel"),
	boxBottomLine,
	"  ↑↓ navigate   Enter select   Esc cancel   Alt/Option+E to inspect approval …",
}

package kimi

import "strings"

// Synthetic screens, as Kimi Code 2.1.0 draws them (80 columns).
var (
	boxTopLine    = " ╭" + strings.Repeat("─", 76) + "╮"
	boxBottomLine = " ╰" + strings.Repeat("─", 76) + "╯"
	ruleLine      = " " + strings.Repeat("─", 78)
)

const (
	footerMode = " Never Ask  fake-model  …/work                                 shift+enter: newline"
	footerCtx  = "                                                          context: 1% (20/125k)"
	working    = "  ⠙ Working…"
	moon       = "  🌓 · Tip: /init: generate AGENTS.md"
)

// welcome is the welcome box Kimi Code prints at its start.
var welcome = []string{
	" ╭" + strings.Repeat("─", 76) + "╮",
	" │  ▐█▛█▛█▌  Welcome to Kimi Code!                                             │",
	" │  Version:   2.1.0                                                          │",
	" ╰" + strings.Repeat("─", 76) + "╯",
	"",
	"   No session yet — one will be created on your first message.",
	"",
}

// boxed is a line of the composer box holding t.
func boxed(t string) string {
	return " │ " + t + strings.Repeat(" ", max(0, 75-len([]rune(t)))) + "│"
}

// chrome is the bottom of the screen: the working line when busy, the
// composer holding draft, the footer.
func chrome(busy bool, draft string) []string {
	var out []string
	if busy {
		out = append(out, working)
	}
	return append(out, boxTopLine, boxed("> "+draft), boxBottomLine, footerMode, footerCtx)
}

// approval is the dialog that replaces the composer in the default mode.
var approval = []string{
	" ● Running a command · $ touch x",
	ruleLine,
	"   ▶ Run this command?",
	"",
	"   $ touch x",
	"",
	"   ▶ 1. Approve once",
	"     2. Approve for this session",
	"     3. Reject",
	"",
	"   ↑/↓ select · 1/2/3/4 choose · ↵ confirm",
	ruleLine,
	footerMode,
	footerCtx,
}

// promptCell is a prompt in the history.
func promptCell(t string) []string { return []string{" ✨ " + t, ""} }

// reply is a message: its first line behind "●", the rest three columns
// in.
func reply(lines ...string) []string {
	out := []string{" ● " + lines[0]}
	for _, l := range lines[1:] {
		out = append(out, "   "+l)
	}
	return append(out, "")
}

// tool is a tool call and its output.
func tool(cmd, output string) []string {
	return []string{" ● Ran a command · $ " + cmd, "   " + output, ""}
}

// apiError is a failed request under its prompt.
var apiError = []string{
	"   Error: [provider.api_error] 400 Request contains an invalid argument (fake).",
	"   If this persists, run `/export-debug-zip` and share the file with us for",
	" diagnosis. Please don't share it publicly.",
	"",
}

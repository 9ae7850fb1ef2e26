package pi

import "strings"

// Synthetic screens, as pi 0.73.1 draws them (80 columns).
var rule = strings.Repeat("─", 80)

const (
	footerDir   = "/tmp/work"
	footerStats = "↑20 ↓20 0.0%/128k (auto)                                              fake-model"
	working     = " ⠴ Working..."
)

// header is what pi prints at its start.
var header = []string{
	" pi v0.73.1",
	" escape interrupt · ctrl+c/ctrl+d clear/exit · / commands · ! bash · ctrl+o more",
	" Press ctrl+o to show full startup help and loaded resources.",
	"",
	" Pi can explain its own features and look up its docs. Ask it how to use or extend Pi.",
}

// chrome is the bottom of the screen: the working line when busy, the
// editor holding draft between two rules, the footer.
func chrome(busy bool, draft string) []string {
	var out []string
	if busy {
		out = append(out, "", working)
	}
	return append(out, "", rule, draft, rule, footerDir, footerStats)
}

// block is one history block: its lines, then the two blank lines that
// part it from the next.
func block(lines ...string) []string { return append(lines, "", "") }

package omp

import "strings"

// Synthetic screens, as OMP 18.2.3 draws them (80 columns).
var (
	status  = " π > ⬢ Fake > 🗑 work ▶─0.0%───────────────────────────────╎─────┃──────128K─"
	spinner = " ⠇ 4s > ⬢ Fake > 🗑 work ▶─0.0%─────────────────────────────╎────┃──────128K─"
	rule    = strings.Repeat("─", 80)
)

// header is the welcome box's last lines and the tip under it.
var header = []string{
	"│                          │ No recent sessions                              │",
	"╰──────────────────────────┴─────────────────────────────────────────────────╯",
	" Tip: You can /btw to ask a side question",
}

// chrome is the bottom of the screen: the working line when busy, the
// status line, the editor holding draft, and the blank rows OMP keeps.
func chrome(busy bool, draft ...string) []string {
	var out []string
	if busy {
		out = append(out, "  ⎋ Working…", spinner)
	} else {
		out = append(out, "", status)
	}
	if len(draft) == 0 {
		draft = []string{""}
	}
	out = append(out, "╰─ "+draft[0])
	for _, d := range draft[1:] {
		out = append(out, "   "+d)
	}
	return append(out, "", "")
}

// card is a pending paste's card above the status line.
func card(caption string) []string {
	return []string{"╭── 📄 #1 ───╮", "│line 00000 …│", "│line 00001 …│", "│line 00002 …│", "│line 00003 …│", "╰ " + caption + " ─╯"}
}

// cards are two cards side by side: an earlier paste's (#9) and #10.
func cards(earlier, caption string) []string {
	return []string{"╭── 📄 #9 ───╮  ╭── 📄 #10 ──╮", "│line 00000 …│  │line 00000 …│", "│line 00001 …│  │line 00001 …│",
		"│line 00002 …│  │line 00002 …│", "│line 00003 …│  │line 00003 …│", "╰ " + earlier + " ─╯  ╰ " + caption + " ─╯"}
}

// dialog is the always-ask approval box in the editor's place.
var dialog = []string{
	"  ⎋ Working…",
	"╭─ Allow tool: bash ───────────────────────────────────────────────────────────╮",
	"│                                                                              │",
	"│ Command: echo hi > x                                                         │",
	"│                                                                              │",
	"│  ❯ Approve                                                                   │",
	"│    Deny                                                                      │",
	"│                                                                              │",
	"│ up/down navigate  enter select  esc cancel                                   │",
	"│                                                                              │",
	"╰──────────────────────────────────────────────────────────────────────────────╯",
}

// block is one history block: its lines, then the two blank lines that
// part it from the next.
func block(lines ...string) []string { return append(lines, "", "") }

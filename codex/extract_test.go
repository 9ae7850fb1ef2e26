package codex

import (
	"errors"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

func TestExtractLastMessage(t *testing.T) {
	tests := []struct {
		name    string
		capture string
		want    string
	}{
		{
			name:    "0.169 one-line answer with Worked-for and chrome",
			capture: conformance.Capture(ls("› Say hello", "", "• Hello there.", "", "  Worked for 4s • 05:13"), composer169),
			want:    "Hello there.",
		},
		{
			name: "0.169 multi-line answer keeps its lines and paragraphs",
			capture: conformance.Capture(ls("› Explain", "", "• The parser has two parts:", "", "  - a lexer", "  - a reader", "",
				"  ```go", "  func main() {", "      run()", "  }", "  ```", "", "  Worked for 9s • 05:20"), composer169),
			want: "The parser has two parts:\n\n- a lexer\n- a reader\n\n```go\nfunc main() {\n    run()\n}\n```",
		},
		{
			name: "0.169 last message after tool cells, not the tool cell",
			capture: conformance.Capture(ls("› Write the file", "", "• I will write it.", "", "• Ran cat << 'AGENT_EOF' > out.md", "  │ # Title", "  └ (no output)", "",
				"• Wrote out.md.", "  It has a title.", "", "  Worked for 3s • 05:30"), composer169),
			want: "Wrote out.md.\nIt has a title.",
		},
		{
			name: "0.169 message followed only by a tool cell",
			capture: conformance.Capture(ls("› Write the file", "", "• I will write it.", "", "• Ran cat << 'AGENT_EOF' > out.md", "  └ (no output)", "",
				"  Worked for 3s • 05:30"), composer169),
			want: "I will write it.",
		},
		{
			name:    "0.169 message that starts with a tool verb is still a message",
			capture: conformance.Capture(ls("› Did the tests pass?", "", "• Ran them all; they pass."), composer169),
			want:    "Ran them all; they pass.",
		},
		{
			name:    "0.169 list bullets inside a message are not messages",
			capture: conformance.Capture(ls("› List", "", "• Two things:", "  • first", "  • second"), composer169),
			want:    "Two things:\n• first\n• second",
		},
		{
			name:    "0.169 colour escapes",
			capture: "\x1b[1;2m› \x1b[0mSay hi\n\n\x1b[2m• \x1b[0m\x1b[39mHi \x1b[1mthere\x1b[0m.\n  second line\x1b[0m\n\n\x1b[2m  Worked for 1s • 05:13\n\x1b[0m\x1b[1m›\x1b[0m \x1b[2mAsk Codex to do anything\n\x1b[0m  GPT-5.5 default · /tmp/w\n",
			want:    "Hi there.\nsecond line",
		},
		{
			name: "bold tool verb without output is a tool cell (colour capture)",
			capture: "› Do it\n\n\x1b[2m• \x1b[0mI will run it.\n\n• \x1b[1mRunning\x1b[0m touch x\n\n" +
				"  Would you like to run the following command?\n\n  $ touch x\n\n› 1. Yes, proceed (y)\n  2. No (esc)\n\n  Press enter to confirm or esc to cancel\n",
			want: "I will run it.",
		},
		{
			name:    "plain tool verb without output is a message (no colour to tell)",
			capture: conformance.Capture(ls("› Do it", "", "• Running the tests is not needed."), composer169),
			want:    "Running the tests is not needed.",
		},
		{
			name:    "0.169 tip line under a reply is not part of it",
			capture: conformance.Capture(ls("› Question", "", "• Short answer.", "  Second line.", "  └ Tip: Use /compact to free up context.", "", "  Worked for 1s • 05:22"), composer169),
			want:    "Short answer.\nSecond line.",
		},
		{
			name:    "0.169 tip line does not make a message a tool cell",
			capture: conformance.Capture(ls("› Did it pass?", "", "• Ran the suite: all green.", "  └ Tip: Use /compact to free up context."), composer169),
			want:    "Ran the suite: all green.",
		},
		{
			name:    "legacy label",
			capture: conformance.Text("You hi", "assistant: Hello.", "Second line.", "❯"),
			want:    "Hello.\nSecond line.",
		},
		{
			name:    "v0.104 with context footer",
			capture: conformance.Text("› hi", "", "• Hello.", "", "›", "100% context left"),
			want:    "Hello.",
		},
		{
			name:    "user message scrolled out: the last message on the screen",
			capture: conformance.Capture(ls("  end of a long earlier paragraph", "", "• Final words."), composer169),
			want:    "Final words.",
		},
		{
			name:    "CRLF",
			capture: strings.ReplaceAll(conformance.Text("› hi", "", "• Hello.", "  Bye.", "", "›", "100% context left"), "\n", "\r\n"),
			want:    "Hello.\nBye.",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lastMessage(tc.capture)
			if err != nil {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
			via, err := Provider().LastMessage(tc.capture)
			if err != nil || via != got {
				t.Errorf("LastMessage = %q, %v; want the same as lastMessage", via, err)
			}
		})
	}
}

func TestExtractLastMessageNone(t *testing.T) {
	tests := []struct {
		name    string
		capture string
	}{
		{"empty", ""},
		{"fresh screen", conformance.Capture(banner169, composer169)},
		{"user message without reply", conformance.Capture(ls("› Explain", "", "◦ Working (1s • esc to interrupt)"), composer169)},
		{"reply from an earlier turn only", conformance.Capture(ls("› one", "", "• Answer one.", "", "› two", "", "■ stream disconnected before completion"), composer169)},
		{"tool cell only", conformance.Capture(ls("› write", "", "• Ran cat << 'AGENT_EOF' > x.md", "  └ (no output)", "", "  Worked for 1s • 05:00"), composer169)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lastMessage(tc.capture)
			if !errors.Is(err, screen.ErrNoAssistantMessage) {
				t.Fatalf("got %q, %v; want screen.ErrNoAssistantMessage", got, err)
			}
		})
	}
}

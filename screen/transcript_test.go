package screen_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// chat is a transcript of user messages "> text" (continuations two
// columns in) and replies "* text", over a composer under a rule; a paste
// may show as "[Pasted N chars]" there.
var chat = screen.Transcript{
	Start: screen.Marked(0, "> "),
	Ends:  func(ln screen.Line) bool { return ln.Indent == 0 },
	Stop:  func(ln screen.Line) bool { return screen.IsRule(ln.T, 10) },
	Folds: []screen.Fold{
		{Pattern: regexp.MustCompile(`^\[Pasted (\d+) chars\]$`), Size: screen.UTF16Len},
		// A fold that shows the text's first words (Cline's).
		{Pattern: regexp.MustCompile(`^\[(?P<head>.*)\.\.\. \+(\d+) lines\]$`), Size: screen.LineCount},
	},
}

// prompt is a dispatch's text: its lines, then the receipt, as the
// instruction ends it.
func prompt(lines int, receipt string) string {
	var b strings.Builder
	for i := range lines {
		b.WriteString(strings.Repeat("word ", 10) + string(rune('a'+i%26)) + "\n")
	}
	return b.String() + "the receipt " + receipt
}

// shown draws text as the transcript shows a user message.
func shown(text string) string {
	return "> " + strings.ReplaceAll(text, "\n", "\n  ") + "\n"
}

const bottom = "──────────────────\n> \n"

func TestTranscriptReadsWhatTheAgentTook(t *testing.T) {
	ours, earlier := prompt(30, "OURS"), prompt(30, "EARLIER")
	head := ours[:200]
	cases := []struct {
		name, screen string
		problem      string // part of the problem; "" for none
		tell         bool   // the reading can tell (when no problem)
	}{
		{"once", shown(earlier) + "* done\n" + shown(ours) + "* done\n" + bottom, "", true},
		{"twice", shown(ours) + "* first\n" + shown(ours) + "* done\n" + bottom, "submitted 2 times", true},
		{"a placeholder after it", shown(ours) + "* first\n" + "> [Pasted 812 chars]\n* done\n" + bottom, `another text ("[Pasted 812 chars]")`, true},
		{"split in two", shown(head) + "* first\n" + shown(ours[200:]) + "* done\n" + bottom, "a piece of the prompt", true},
		{"its fold with its size", shown(earlier) + "* done\n" + "> [Pasted " + strconv.Itoa(screen.UTF16Len(ours)) + " chars]\n* done\n" + bottom, "", true},
		{"its start scrolled off", strings.Join(strings.Split(shown(ours), "\n")[10:], "\n") + "* done\n" + bottom, "", false},
		{"a second copy under one whose start scrolled off", strings.Join(strings.Split(shown(ours), "\n")[10:], "\n") + "* first\n" + shown(ours) + "* done\n" + bottom, "2 user messages", true},
		{"not on the screen", shown(earlier) + "* done\n" + bottom, "", false},
		{"an earlier dispatch of the same size folded, then its fold", "> [Pasted " + strconv.Itoa(screen.UTF16Len(ours)) + " chars]\n* done\n" + "> [Pasted " + strconv.Itoa(screen.UTF16Len(ours)) + " chars]\n* done\n" + bottom, "", true},
		{"its fold, then the prompt again whole", "> [Pasted " + strconv.Itoa(screen.UTF16Len(ours)) + " chars]\n* first\n" + shown(ours) + "* done\n" + bottom, "submitted 2 times", true},
		{"its fold, then a placeholder", "> [Pasted " + strconv.Itoa(screen.UTF16Len(ours)) + " chars]\n* first\n" + "> [Pasted 812 chars]\n* done\n" + bottom, `another text ("[Pasted 812 chars]")`, true},
		{"its fold with its first words", shown(earlier) + "* done\n" + "> [" + ours[:30] + "... +" + strconv.Itoa(screen.LineCount(ours)) + " lines]\n* done\n" + bottom, "", true},
		{"another prompt's first words, its size", "> [" + earlier[:20] + "xyz... +" + strconv.Itoa(screen.LineCount(ours)) + " lines]\n* done\n" + bottom, "", false},
		{"its first words, then the prompt again", "> [" + ours[:30] + "... +" + strconv.Itoa(screen.LineCount(ours)) + " lines]\n* first\n" + shown(ours) + "* done\n" + bottom, "submitted 2 times", true},
		{"a copy with nothing under it yet, over the composer's frame", shown(ours) + "* first\n" + shown(ours) + bottom, "submitted 2 times", true},
		{"the composer is not read", shown(ours) + "* done\n" + "──────────────────\n> [Pasted 3 chars]\n", "", true},
	}
	for _, c := range cases {
		sub := chat.Read(c.screen, ours)
		p := sub.Problem()
		tell := sub.Tell == "" && !(len(sub.Messages) == 1 && sub.Messages[0].Taken == handoff.TakenUnknown)
		switch {
		case c.problem != "" && !strings.Contains(p, c.problem):
			t.Errorf("%s: problem %q, want one saying %q (%+v)", c.name, p, c.problem, sub)
		case c.problem == "" && p != "":
			t.Errorf("%s: problem %q, want none (%+v)", c.name, p, sub)
		case c.problem == "" && tell != c.tell:
			t.Errorf("%s: can tell %v, want %v (%+v)", c.name, tell, c.tell, sub)
		}
	}
	if sub := (screen.Transcript{Cannot: "a full-screen TUI"}).Read(shown(ours)+shown(ours), ours); sub.Problem() != "" || sub.Tell == "" {
		t.Errorf("a transcript that can never tell read %+v", sub)
	}
}

// A message starts with any of its CLI's marks, at its indent only.
func TestMarkedTakesAnyOfItsMarksAtItsIndent(t *testing.T) {
	start := screen.Marked(0, "❯ ", "❯"+screen.NBSP)
	for _, c := range []struct {
		ln   screen.Line
		text string
		ok   bool
	}{
		{screen.Line{T: "❯ hello"}, "hello", true},
		{screen.Line{T: "❯" + screen.NBSP + "hello"}, "hello", true},
		{screen.Line{T: "❯ hello", Indent: 2}, "", false},
		{screen.Line{T: "> hello"}, "", false},
	} {
		text, ok := start(c.ln)
		if text != c.text || ok != c.ok {
			t.Errorf("%+v: got %q, %v; want %q, %v", c.ln, text, ok, c.text, c.ok)
		}
	}
}

package droid

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

func TestClassifySyntheticScreens(t *testing.T) {
	errCell := []string{"●  BYOK Error: 400 Request contains an invalid argument", "   (fake).", "", "   Upstream error: Request contains an invalid argument (fake).", "",
		"   Troubleshooting tips for custom models:", "   1. Verify the \"provider\" type", ""}
	conformance.CheckSynthetic(t, Provider(), "⛬ Say hello", []conformance.Synthetic{
		{Name: "fresh start", Capture: conformance.Capture(header, chrome(false, `Try "Fix all lint warnings"`)), Status: handoff.StatusIdle},
		{Name: "a prompt sent, no byte back", Capture: conformance.Capture(header, prompt("Say hello"), chrome(true, "")), Status: handoff.StatusProcessing},
		{Name: "answered", Capture: conformance.Capture(header, prompt("Say hello"), reply("Hello.", "Second paragraph."), chrome(false, "")), Status: handoff.StatusCompleted, Message: "Hello.\n\nSecond paragraph."},
		{Name: "a prompt not started on yet, below an answer", Capture: conformance.Capture(sent("Say hello"), reply("Hello."), sent("Say it again"), chrome(false, "")), Status: handoff.StatusProcessing},
		{Name: "a prompt not started on yet, below the header", Capture: conformance.Capture(header, sent("Say hello"), chrome(false, "")), Status: handoff.StatusProcessing},
		{Name: "answered, the prompt painted", Capture: conformance.Capture(sent("Say hello"), reply("Hello."), chrome(false, "")), Status: handoff.StatusCompleted, Message: "Hello."},
		{Name: "unreachable", Capture: conformance.Capture(sent("Say hello"), []string{"●  Unable to reach http://127.0.0.1:9. Your internet connection may be offline or interrupted.", ""}, chrome(false, "")), Status: handoff.StatusError},
		{Name: "a draft below an answer", Capture: conformance.Capture(prompt("Say hello"), reply("Hello."), chrome(false, "a draft")), Status: handoff.StatusCompleted, Message: "Hello."},
		{Name: "after a tool", Capture: conformance.Capture(prompt("Run it"), []string{"   Execute sleep 6; echo slept", "    ↳ slept", ""}, reply("Done sleeping."), chrome(false, "")), Status: handoff.StatusCompleted, Message: "Done sleeping."},
		{Name: "a tool below a message", Capture: conformance.Capture(prompt("Run it"), reply("I will run it."), []string{"   Execute sleep 6; echo slept", "", "    ↳ slept", ""}, chrome(false, "")), Status: handoff.StatusCompleted, Message: "I will run it."},
		{Name: "an API error", Capture: conformance.Capture(prompt("Fail"), errCell, chrome(false, "")), Status: handoff.StatusError, Detail: "BYOK Error: 400 Request contains an invalid argument (fake)."},
		{Name: "a note is no error", Capture: conformance.Capture(reply("Old."), []string{"●  ✓ New session created", ""}, chrome(false, "")), Status: handoff.StatusIdle},
		{Name: "an approval", Capture: conformance.Capture(prompt("Go"), []string{"   Execute echo hi > x", ""}, approval), Status: handoff.StatusWaitingUserAnswer},
		{Name: "no chrome", Capture: "some shell output\n$ \n", Status: handoff.StatusIdle},
		{Name: "blank", Capture: "\n\n\n", Status: handoff.StatusError},
	})
}

func TestRecognize(t *testing.T) {
	fresh := conformance.Capture(header, chrome(false, ""))
	for _, tc := range []struct {
		title, capture string
		want           bool
	}{
		{"⛬ Droid", "", true},
		{"⛬ Say hello", "", true},
		{"", fresh, true},
		{"", conformance.Capture(prompt("Go"), approval), true},
		{"bash", "$ ls\n", false},
		// Another CLI's rounded composer, without droid's mode line.
		{"", conformance.Capture([]string{"  > hi", ""}, []string{boxTopLine, boxed(" > "), boxBottomLine, "  ? for shortcuts"}), false},
	} {
		if got := recognize(tc.title, tc.capture); got != tc.want {
			t.Errorf("recognize(%q, …) = %v, want %v", tc.title, got, tc.want)
		}
	}
}

func TestComposerMode(t *testing.T) {
	bash := conformance.Capture(reply("Hello."), []string{" Bash mode active • Esc to exit                                            Fake", boxTopLine, boxed("  ! echo hi"), boxBottomLine, footer})
	if got := composerMode(bash); got != screen.ShellMode {
		t.Errorf("bash mode read as %q", got)
	}
	if got := clearKeys(bash); strings.Join(got, " ") != "Escape Escape Escape" {
		t.Errorf("clear keys in bash mode: %v", got)
	}
	plain := conformance.Capture(reply("Hello."), chrome(false, "!echo hi"))
	if got := composerMode(plain); got != "" {
		t.Errorf("a pasted '!' read as %q", got)
	}
	if got := clearKeys(plain); strings.Join(got, " ") != "Escape Escape" {
		t.Errorf("clear keys of a draft: %v", got)
	}
}

// The fold droid 0.225.2 showed for pastes tried on the real CLI, in an
// 80- and a 200-column pane: its count of lines is the text's, wrapped at
// the pane's width.
func TestReadPaste(t *testing.T) {
	lines := func(n, width int) string {
		var out []string
		for i := range n {
			out = append(out, ("L" + strings.Repeat("y", width))[:width])
			_ = i
		}
		return strings.Join(out, "\n")
	}
	screenOf := func(width int, composer ...string) string {
		top := "╭" + strings.Repeat("─", width-2) + "╮"
		bottom := "╰" + strings.Repeat("─", width-2) + "╯"
		out := []string{" Auto (High) · allow all commands"}
		out = append(out, top)
		for _, c := range composer {
			out = append(out, "│"+c+strings.Repeat(" ", max(0, width-2-len([]rune(c))))+"│")
		}
		return conformance.Capture(header, out, []string{bottom, "? for help"})
	}
	short := "Say hello\nto the reviewer"
	tabbed := strings.TrimSuffix(strings.Repeat("\t\t\t\t"+strings.Repeat("y", 76)+"\n", 40), "\n")
	for _, tc := range []struct {
		name, capture, text string
		want                handoff.Paste
	}{
		{"shown whole", screenOf(80, " > Say hello", "   to the reviewer"), short, handoff.PasteWhole},
		{"first line only so far", screenOf(80, " > Say hello"), short, handoff.PasteArriving},
		{"not arrived yet", screenOf(80, ` > Try "Fix all lint warnings"`), short, handoff.PasteArriving},
		{"not arrived yet, the one suggestion that is not a Try", screenOf(80, ` > Type "Review this code for security issues"`), short, handoff.PasteArriving},
		{"other text", screenOf(80, " > something else"), short, handoff.PasteWrong},
		{"fold of 10 lines at 80", screenOf(80, " > [Lyyyyyyyyy Lyyyyyyyyy Lyyyyyyyyy Lyyyyyyyyy Lyyyyyyyyy... 10 lines]"), lines(10, 10), handoff.PasteWhole},
		{"fold of one 3000-character line at 80", screenOf(80, " > ["+strings.Repeat("y", 50)+"... 38 lines]"), strings.Repeat("y", 3000), handoff.PasteWhole},
		{"the same line at 200", screenOf(200, " > ["+strings.Repeat("y", 50)+"... 15 lines]"), strings.Repeat("y", 3000), handoff.PasteWhole},
		{"two lines of 900 at 80", screenOf(80, " > [L"+strings.Repeat("y", 49)+"... 24 lines]"), lines(2, 900), handoff.PasteWhole},
		{"a fold that wraps, numbered", screenOf(80, " > [L"+strings.Repeat("y", 49)+"... 300 lines,", "   paste 1]"), lines(300, 60), handoff.PasteWhole},
		{"a fold of another size", screenOf(80, " > ["+strings.Repeat("y", 50)+"... 37 lines]"), strings.Repeat("y", 3000), handoff.PasteWrong},
		// droid draws a tab as blanks and counts it wider than a column.
		{"a fold of lines led by tabs", screenOf(80, " > ["+strings.Repeat("y", 50)+"... 80 lines]"), tabbed, handoff.PasteWhole},
		// A prompt of zero-width characters is drawn a column off: the
		// fold's own words come out overwritten; a count it can still read
		// is checked, one it cannot is no reading.
		{"a fold whose words came out overwritten", screenOf(80, " > [zero\u200bwidth... 17 lin s]"), "zero\u200bwidth\n" + lines(16, 10), handoff.PasteWhole},
		{"a fold whose count came out overwritten", screenOf(80, " > [zero\u200bwidth... 1 7lines]"), "zero\u200bwidth\n" + lines(16, 10), handoff.PasteUnread},
		{"a fold whose start has a tab as blanks", screenOf(80, " > [led by a tab, then a tab mid-line   two tabs... 1 lines]"), "\tled by a tab, then a tab\tmid-line\t\ttwo tabs", handoff.PasteWhole},
		{"a fold of other text", screenOf(80, " > ["+strings.Repeat("z", 50)+"... 38 lines]"), strings.Repeat("y", 3000), handoff.PasteWrong},
		{"two folds", screenOf(80, " > [yyyy... 38 lines][yyyy... 38 lines]"), strings.Repeat("y", 3000), handoff.PasteWrong},
		{"no composer", "some shell output\n", short, handoff.PasteUnread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, seen := readPaste(tc.capture, tc.text); got != tc.want {
				t.Errorf("readPaste: %s (%q), want %s", got, seen, tc.want)
			}
		})
	}
}

// The fold and the plain paste as droid 0.225.2 showed them in an 80x24
// pane (testdata/composer), read against the text pasted.
func TestReadPasteOnRealScreens(t *testing.T) {
	var long []string
	for i := range 300 {
		long = append(long, fmt.Sprintf("line %d of a long paste", i))
	}
	for _, tc := range []struct {
		file, text string
		want       handoff.Paste
	}{
		{"plain-fold-pasted.txt", strings.Join(long, "\n"), handoff.PasteWhole},
		{"plain-fold-pasted.txt", strings.Join(long[:299], "\n"), handoff.PasteWrong},
		{"plain-text.txt", "hello there, a plain message", handoff.PasteWhole},
		{"plain-led-bang.txt", "Message:\n!echo hi", handoff.PasteWhole},
		{"plain-text.txt", "hello there, a plain message\nand a second line", handoff.PasteArriving},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", "composer", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if got, seen := Provider().Pasted(string(b), tc.text); got != tc.want {
			t.Errorf("%s with a text of %d bytes: %s (%q), want %s", tc.file, len(tc.text), got, seen, tc.want)
		}
	}
}

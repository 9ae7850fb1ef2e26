package kimi

import (
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Each phase of a turn, drawn as Kimi Code draws it, reads as the status
// it truthfully means.
func TestClassifySyntheticScreens(t *testing.T) {
	cases := []struct {
		name string
		scr  string
		want handoff.Status
	}{
		{"fresh", conformance.Capture(welcome, chrome(false, "")), handoff.StatusIdle},
		{"working", conformance.Capture(welcome, promptCell("hi"), chrome(true, "")), handoff.StatusProcessing},
		{"waiting for the first byte", conformance.Capture(welcome, promptCell("hi"), []string{moon}, chrome(false, "")), handoff.StatusProcessing},
		{"answered", conformance.Capture(welcome, promptCell("hi"), reply("Hello."), chrome(false, "")), handoff.StatusCompleted},
		{"tool then answer", conformance.Capture(promptCell("hi"), tool("ls", "a b"), reply("Done."), chrome(false, "")), handoff.StatusCompleted},
		{"error", conformance.Capture(promptCell("hi"), apiError, chrome(false, "")), handoff.StatusError},
		{"answer after an old error", conformance.Capture(promptCell("a"), apiError, promptCell("b"), reply("Fine."), chrome(false, "")), handoff.StatusCompleted},
		{"approval", conformance.Capture(promptCell("hi"), approval), handoff.StatusWaitingUserAnswer},
		{"a message that quotes an error", conformance.Capture(promptCell("hi"), reply("Done.", "Error: [provider.api_error] is what it said"), chrome(false, "")), handoff.StatusCompleted},
		{"no chrome", "some shell output\n$ \n", handoff.StatusIdle},
	}
	for _, c := range cases {
		got := Provider().Classify(c.scr, "")
		if got.Status != c.want {
			t.Errorf("%s: %s (%s), want %s\n%s", c.name, got.Status, got.Reason, c.want, c.scr)
		}
	}
}

// The error's text, as the classification's Detail, is the error line
// without Kimi Code's advice under it.
func TestClassifyQuotesTheError(t *testing.T) {
	got := Provider().Classify(conformance.Capture(promptCell("hi"), apiError, chrome(false, "")), "")
	if want := "Error: [provider.api_error] 400 Request contains an invalid argument (fake)."; got.Detail != want {
		t.Fatalf("detail %q, want %q", got.Detail, want)
	}
}

// The fallback reads the newest message after the last prompt, its lines
// three columns in, and skips tool cells and the note under an
// interrupted answer.
func TestLastMessage(t *testing.T) {
	scr := conformance.Capture(promptCell("hi"), reply("First paragraph", "goes on.", "", "Second."), tool("ls", "a b"), chrome(false, ""))
	got, err := Provider().LastMessage(scr)
	if err != nil || got != "First paragraph\ngoes on.\n\nSecond." {
		t.Fatalf("got %q, %v", got, err)
	}
	cut := conformance.Capture(promptCell("hi"), []string{" ● A partial answer", "   Interrupted by user", ""}, chrome(false, ""))
	if got, err := Provider().LastMessage(cut); err != nil || got != "A partial answer" {
		t.Fatalf("interrupted: got %q, %v", got, err)
	}
}

// Shell mode is read off the box's top; the keys that clear it empty the
// composer with Ctrl-C, then leave the mode with Backspace.
func TestComposerShellMode(t *testing.T) {
	shell := conformance.Capture(promptCell("hi"), reply("Hello."), []string{" ╭ ! shell mode " + boxTopLine[len(" ╭ ! shell mode "):], " │ ! touch x" + boxed("")[len(" │ ! touch x"):], boxBottomLine, footerMode, footerCtx})
	c := Provider().Composer
	if got := c.Mode(shell); got != screen.ShellMode {
		t.Fatalf("mode %q on\n%s", got, shell)
	}
	if keys := c.ClearKeys(shell); len(keys) != 2 || keys[0] != "C-c" || keys[1] != "BSpace" {
		t.Fatalf("clear keys %q", keys)
	}
	plain := conformance.Capture(promptCell("hi"), chrome(false, "touch x"))
	if got := c.Mode(plain); got != "" {
		t.Fatalf("mode %q on a plain composer", got)
	}
}

// A paste reads whole when the composer ends with the text's end, or
// shows pi's fold with the text's size; a fold of another size is wrong.
func TestReadPaste(t *testing.T) {
	text := "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\ntwelve"
	cases := []struct {
		draft string
		text  string
		want  handoff.Paste
	}{
		{"short prompt", "short prompt", handoff.PasteWhole},
		{"[paste #1 +12 lines]", text, handoff.PasteWhole},
		{"[paste #1 +11 lines]", text, handoff.PasteWrong},
		{"[paste #2 20000 chars]", strings.Repeat("x", 19999), handoff.PasteWrong},
		{"[paste #2 20000 chars]", strings.Repeat("x", 20000), handoff.PasteWhole},
		{"", "short prompt", handoff.PasteArriving},
	}
	for _, c := range cases {
		scr := conformance.Capture(promptCell("hi"), reply("Hello."), chrome(false, c.draft))
		if got, shown := Provider().Composer.Pasted(scr, c.text); got != c.want {
			t.Errorf("%q: %v (%q), want %v", c.draft, got, shown, c.want)
		}
	}
}

// A screen of Kimi Code is recognised by its chrome; another CLI's box
// without Kimi Code's footer is not.
func TestRecognize(t *testing.T) {
	if !Provider().Recognize("", conformance.Capture(welcome, chrome(false, ""))) {
		t.Fatal("Kimi Code's composer not recognised")
	}
	if !Provider().Recognize("", conformance.Capture(promptCell("hi"), approval)) {
		t.Fatal("Kimi Code's approval not recognised")
	}
	if Provider().Recognize("", conformance.Capture(promptCell("hi"), []string{boxTopLine, boxed("> x"), boxBottomLine, " ? for help"})) {
		t.Fatal("a box without Kimi Code's footer recognised")
	}
}

package handoff_test

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// plainBox is a composer without readers: it can say nothing of what it
// holds.
type plainBox struct{}

func (plainBox) Inert(text string) string  { return text }
func (plainBox) Mode(string) string        { return "" }
func (plainBox) ClearKeys(string) []string { return nil }

// readBox reads its composer as paste and draft say.
type readBox struct {
	plainBox
	paste handoff.Paste
	draft string
}

func (b readBox) Pasted(string, string) (handoff.Paste, string) { return b.paste, "what it read" }
func (b readBox) Draft(string) string                           { return b.draft }

// What a composer holds before a paste is what its readers see there: a
// fold or text its paste reading takes for one (wrong, or this prompt
// whole), else a draft. A composer neither can read holds nothing: it is
// never taken for a full one.
func TestHeldIsWhatTheReadersSee(t *testing.T) {
	for _, c := range []struct {
		name string
		box  handoff.Composer
		held bool
		seen string
	}{
		{"no readers", plainBox{}, false, ""},
		{"a fold of another size", readBox{paste: handoff.PasteWrong}, true, "what it read"},
		{"this prompt whole", readBox{paste: handoff.PasteWhole}, true, "what it read"},
		{"a line of text", readBox{paste: handoff.PasteArriving, draft: "hello"}, true, "hello"},
		{"empty, or its placeholder", readBox{paste: handoff.PasteArriving}, false, ""},
		{"not found", readBox{paste: handoff.PasteUnread}, false, ""},
	} {
		seen, held := handoff.Held(c.box, "a screen", "the prompt")
		if held != c.held || seen != c.seen {
			t.Errorf("%s: held %v (%q), want %v (%q)", c.name, held, seen, c.held, c.seen)
		}
	}
}

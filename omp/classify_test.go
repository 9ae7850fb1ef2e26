package omp

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

func TestClassifySyntheticScreens(t *testing.T) {
	conformance.CheckSynthetic(t, Provider(), "π > work", []conformance.Synthetic{
		{Name: "fresh start", Capture: conformance.Capture(block(header...), []string{""}, chrome(false)), Status: handoff.StatusIdle},
		{Name: "a prompt sent, no byte back", Capture: conformance.Capture(block(header...), block(" Say hello"), chrome(true)), Status: handoff.StatusProcessing},
		{Name: "answered", Capture: conformance.Capture(block(header...), block(" Say hello"), []string{" Hello.", "", " Second paragraph."}, chrome(false)), Status: handoff.StatusCompleted, Message: "Hello.\n\nSecond paragraph."},
		{Name: "a draft below an answer", Capture: conformance.Capture(block(" Say hello"), []string{" Hello."}, chrome(false, "a draft", "its second line")), Status: handoff.StatusCompleted, Message: "Hello."},
		{Name: "a pasted draft below an answer", Capture: conformance.Capture(block(" Say hello"), []string{" Hello.", ""}, card("+40 lines"), chrome(false, "📄 #1")), Status: handoff.StatusCompleted, Message: "Hello."},
		{Name: "an API error", Capture: conformance.Capture(block(" Fail"), []string{rule, " ✘ 400 Request contains an invalid argument (fake).", "   Request contains an invalid argument (fake). (type=invalid_request_error)", " Dismissed when you send your next message.", rule}, chrome(false)), Status: handoff.StatusError, Detail: "400 Request contains an invalid argument (fake)."},
		{Name: "an approval", Capture: conformance.Capture(block(" Go"), []string{""}, dialog, []string{"", ""}), Status: handoff.StatusWaitingUserAnswer},
		{Name: "no chrome", Capture: "some shell output\n$ \n", Status: handoff.StatusIdle},
		{Name: "pi's screen", Capture: conformance.Capture(block(" Say hello"), []string{" Hello.", "", rule, "", rule, "/tmp/work", "↑20 ↓20 0.0%/128k (auto)      fake-model"}), Status: handoff.StatusIdle},
		{Name: "blank", Capture: "\n\n\n", Status: handoff.StatusError},
	})
}

// OMP's title or its chrome says it is OMP; pi's title and screen do not.
func TestRecognize(t *testing.T) {
	fresh := conformance.Capture(block(header...), chrome(false))
	for _, tc := range []struct {
		title, capture string
		want           bool
	}{
		{"π > work", "", true},
		{"π ⠏ work", "", true},
		{"π ! work", "", true},
		{"", fresh, true},
		{"π - work", "", false},
		{"", conformance.Capture(block(" Hello."), []string{rule, "", rule, "/tmp/work", "↑20 ↓20 0.0%/128k (auto)      fake-model"}), false},
		{"bash", "$ ls\n", false},
	} {
		if got := recognize(tc.title, tc.capture); got != tc.want {
			t.Errorf("recognize(%q, …) = %v, want %v", tc.title, got, tc.want)
		}
	}
}

// A paste shown as it is, or as a chip whose card's caption is the
// prompt's size as OMP counts it; any other fold is wrong.
func TestReadPaste(t *testing.T) {
	long := ""
	for i := 0; i < 40; i++ {
		long += "line of a long prompt\n"
	}
	long = long[:len(long)-1]
	above := block(" Hello.")
	for _, tc := range []struct {
		name, capture, text string
		want                handoff.Paste
	}{
		{"short, whole", conformance.Capture(above, chrome(false, "first line", "second line")), "first line\nsecond line", handoff.PasteWhole},
		{"short, arriving", conformance.Capture(above, chrome(false, "first line")), "first line\nsecond line", handoff.PasteArriving},
		{"nothing yet", conformance.Capture(above, chrome(false)), "first line", handoff.PasteArriving},
		{"a chip of the prompt's lines", conformance.Capture(above, card("+40 lines"), chrome(false, "📄 #1")), long, handoff.PasteWhole},
		{"a chip of another size", conformance.Capture(above, card("+39 lines"), chrome(false, "📄 #1")), long, handoff.PasteWrong},
		{"an earlier paste's card beside the chip's", conformance.Capture(above, cards("+17 lines", "+40 lines"), chrome(false, "📄 #10")), long, handoff.PasteWhole},
		{"the chip's card is not the prompt's", conformance.Capture(above, cards("+40 lines", "+17 lines"), chrome(false, "📄 #10")), long, handoff.PasteWrong},
		{"two chips", conformance.Capture(above, card("+40 lines"), chrome(false, "📄 #1 📄 #2")), long, handoff.PasteWrong},
		{"a one-line chip counts characters", conformance.Capture(above, card("3000 chars"), chrome(false, "📄 #1")), repeat("x", 3000), handoff.PasteWhole},
		{"a long count is cut", conformance.Capture(above, card("20000 cha…"), chrome(false, "📄 #1")), repeat("abcdefghij", 2000), handoff.PasteWhole},
		{"a dialog", conformance.Capture(above, dialog), "first line", handoff.PasteUnread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, sig := readPaste(tc.capture, tc.text); got != tc.want {
				t.Fatalf("readPaste = %v (%q), want %v\n%s", got, sig, tc.want, tc.capture)
			}
		})
	}
}

// OMP keeps a paste with CRLF as LF, tabs as three blanks, in NFC; the
// caption counts what it keeps.
func TestCaption(t *testing.T) {
	for text, want := range map[string]string{
		"a\r\nb":                  "+2 lines",
		"\tx":                     "4 chars",
		"e\u0301":                 "1 chars",
		"🧪":                       "2 chars",
		repeat("x", 123456):       "123456 ch…",
		repeat("a\n", 1000) + "a": "+1001 lin…",
	} {
		if got := caption(text); got != want {
			t.Errorf("caption(%.20q) = %q, want %q", text, got, want)
		}
	}
}

func repeat(s string, n int) string {
	out := make([]byte, 0, len(s)*n)
	for i := 0; i < n; i++ {
		out = append(out, s...)
	}
	return string(out)
}

// The composer screens of the real OMP, read after the paste they show:
// the prompt's own paste is whole, another is not. testdata/paste: each
// shape of testkit.PastePrompts, captured every 200 ms while it was pasted
// at a load of 60 on 2 cores; short-not-drawn is what a paste right after
// OMP drew its editor left for 12.8 s (still busy with its start-up, OMP
// had not read it): arriving, never wrong, so the driver waits for it.
func TestReadPasteOnRealScreens(t *testing.T) {
	long := "Message:\n!"
	for i := 0; i < 30; i++ {
		long += "line " + strconv.Itoa(i) + " of a long prompt\n"
	}
	shape := testkit.PastePromptText
	for _, tc := range []struct {
		file, text string
		want       handoff.Paste
	}{
		{"composer/plain-text", "Please review the parser.\nIt is slow.", handoff.PasteWhole},
		{"composer/plain-led-bang", "Message:\n!touch /tmp/omp-never", handoff.PasteWhole},
		{"composer/plain-fold-pasted", long, handoff.PasteWhole},
		{"composer/plain-fold-pasted", long + "one line more\n", handoff.PasteWrong},
		{"composer/plain-text", "Something else entirely.", handoff.PasteWrong},
		{"composer/menu-large-paste", long, handoff.PasteWrong},
		{"paste/short-not-drawn", shape("short"), handoff.PasteArriving},
		{"paste/short-whole", shape("short"), handoff.PasteWhole},
		{"paste/three-lines-whole", shape("three-lines"), handoff.PasteWhole},
		{"paste/three-lines-whole", shape("short"), handoff.PasteWrong},
		{"paste/line-20000-whole", shape("line-20000"), handoff.PasteWhole},
		{"paste/line-20000-whole", shape("wide-line"), handoff.PasteWrong},
		{"paste/lines-4k-whole", shape("lines-4k"), handoff.PasteWhole},
		{"paste/lines-60k-whole", shape("lines-60k"), handoff.PasteWhole},
		{"paste/lines-60k-whole", shape("lines-4k"), handoff.PasteWrong},
		{"paste/wide-line-whole", shape("wide-line"), handoff.PasteWhole},
	} {
		b, err := os.ReadFile(filepath.Join("testdata", tc.file+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if got, sig := readPaste(string(b), tc.text); got != tc.want {
			t.Errorf("%s with %.30q: %v (%q), want %v", tc.file, tc.text, got, sig, tc.want)
		}
	}
}

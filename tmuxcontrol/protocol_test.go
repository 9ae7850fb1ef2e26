package tmuxcontrol

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// parseAll feeds a transcript (lines separated by "\n") to a fresh parser
// and returns every message it completed.
func parseAll(transcript string) ([]Message, *Parser) {
	var p Parser
	var out []Message
	for line := range strings.SplitSeq(transcript, "\n") {
		if m := p.Parse([]byte(line)); m != nil {
			out = append(out, m)
		}
	}
	return out, &p
}

// A session as tmux 3.3a printed it (captured from a real client).
const transcript = `%begin 1795424157 269 0
%end 1795424157 269 0
%session-changed $0 main
%begin 1795424157 274 1
%0 100x30
%1 100x30
%end 1795424157 274 1
%begin 1795424157 277 1
parse error: unknown command: nosuchcmd
%error 1795424157 277 1
%output %1 hello\134 x$HOME\015\012
%window-renamed @1 a name with spaces
%layout-change @0 b25f,80x24,0,0,2 b25f,80x24,0,0,2 *
%unlinked-window-close @3
%window-close @2
%pane-mode-changed %1
%sessions-changed
%extended-output %1 42 : ok\012
%subscription-changed title $0 @0 0 %0 : ⠴ proj
%some-future-notification with args
stray line from run-shell
%exit server exited`

func TestParseTranscript(t *testing.T) {
	got, p := parseAll(transcript)
	want := []Message{
		&Reply{Guard: Guard{1795424157, 269, 0}},
		&Notification{Name: "session-changed", Args: []string{"$0"}, Text: "main"},
		&Reply{Guard: Guard{1795424157, 274, 1}, Lines: []string{"%0 100x30", "%1 100x30"}},
		&Reply{Guard: Guard{1795424157, 277, 1}, Failed: true, Lines: []string{"parse error: unknown command: nosuchcmd"}},
		&Output{Pane: "%1", Data: []byte("hello\\ x$HOME\r\n")},
		&Notification{Name: "window-renamed", Args: []string{"@1"}, Text: "a name with spaces"},
		&Notification{Name: "layout-change", Args: []string{"@0"}, Text: "b25f,80x24,0,0,2 b25f,80x24,0,0,2 *"},
		&Notification{Name: "unlinked-window-close", Args: []string{"@3"}},
		&Notification{Name: "window-close", Args: []string{"@2"}},
		&Notification{Name: "pane-mode-changed", Args: []string{"%1"}},
		&Notification{Name: "sessions-changed"},
		&Output{Pane: "%1", Data: []byte("ok\n"), Extended: true, AgeMillis: 42},
		&Notification{Name: "subscription-changed", Args: []string{"title", "$0", "@0", "0", "%0"}, Text: ": ⠴ proj"},
		&Notification{Name: "some-future-notification", Text: "with args"},
		&Notification{Text: "stray line from run-shell"},
		&Exit{Reason: "server exited"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d messages, want %d: %#v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("message %d:\n got %#v\nwant %#v", i, got[i], want[i])
		}
	}
	if p.InBlock() {
		t.Error("the parser is still inside a block")
	}
	if n := got[9].(*Notification); n.ID('%') != "%1" || n.ID('@') != "" {
		t.Errorf("ID: %q %q", n.ID('%'), n.ID('@'))
	}
}

// Command output is not escaped, so a captured screen may show anything,
// even guard lines: only the exact guard of the open block closes it.
func TestParseBodyLooksLikeProtocol(t *testing.T) {
	body := []string{
		"%end 1795424157 999 1",
		"%error 1795424157 274 0",
		"%end 1795424157 274 1 ",
		"%output %1 not a notification",
		"%begin 1 2 1",
		"%exit",
		"",
	}
	tr := "%begin 1795424157 274 1\n" + strings.Join(body, "\n") + "\n%end 1795424157 274 1\n%sessions-changed"
	got, _ := parseAll(tr)
	if len(got) != 2 {
		t.Fatalf("got %d messages, want a reply and a notification: %#v", len(got), got)
	}
	r := got[0].(*Reply)
	if !reflect.DeepEqual(r.Lines, body) || r.Failed {
		t.Fatalf("reply lines %q, want %q", r.Lines, body)
	}
	if r.Text() != strings.Join(body, "\n")+"\n" {
		t.Fatalf("Text %q", r.Text())
	}
}

func TestParseMalformedIsNeverFatal(t *testing.T) {
	for _, line := range []string{
		"", "%", "%begin", "%begin x y z", "%begin 1 2", "%begin 01 2 1", "%begin 1 2 1 4",
		"%end 1 2 1", "%error", "%output", "%output %x data", "%output nopane",
		"%extended-output %1 : no age", "%extended-output %1 5 no colon", "%window-close",
		"\x00\xff", "%%%", "%exit",
	} {
		var p Parser
		m := p.Parse([]byte(line))
		if m == nil || p.InBlock() {
			t.Errorf("%q: got %#v (in block %v), want a message outside any block", line, m, p.InBlock())
		}
	}
}

func TestDecodeOutput(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:            "plain",
		`\033[1mB\033[0m`:  "\x1b[1mB\x1b[0m",
		`a\134b`:           `a\b`,
		`\000\377`:         "\x00\xff",
		`trailing\`:        `trailing\`,
		`\12 short`:        `\12 short`,
		`\400 too big`:     `\400 too big`,
		`\0123`:            "\n3",
		"utf-8 ✓ \xff raw": "utf-8 ✓ \xff raw",
	} {
		if got := string(DecodeOutput([]byte(in))); got != want {
			t.Errorf("DecodeOutput(%q) = %q, want %q", in, got, want)
		}
	}
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	enc := EncodeOutput(all)
	if bytes.ContainsAny(enc, "\n\r\x00") {
		t.Errorf("EncodeOutput left a line break or NUL: %q", enc)
	}
	if !bytes.Equal(DecodeOutput(enc), all) {
		t.Errorf("round trip failed")
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"capture-pane":   `'capture-pane'`,
		"":               `''`,
		"it's":           `'it'\''s'`,
		"$HOME ~ ; #{x}": `'$HOME ~ ; #{x}'`,
		"a\nb":           `"a\012b"`,
		"\"$x\"\\\t":     `"\"\$x\"\\\011"`,
	} {
		got, err := Quote(in)
		if err != nil || got != want {
			t.Errorf("Quote(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := Quote("a\x00b"); !errors.Is(err, ErrBadArgument) {
		t.Errorf("NUL: %v", err)
	}
	if _, err := CommandLine(); !errors.Is(err, ErrBadArgument) {
		t.Errorf("no args: %v", err)
	}
	if _, err := CommandLine("", "x"); !errors.Is(err, ErrBadArgument) {
		t.Errorf("empty command: %v", err)
	}
	line, err := CommandLine("display-message", "-p", ";", "x")
	if err != nil || line != `'display-message' '-p' ';' 'x'` {
		t.Errorf("CommandLine = %q, %v", line, err)
	}
}

package handoff_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

func TestNewReceiptIsRandomLongAndInjectable(t *testing.T) {
	a, err := handoff.NewReceipt(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := handoff.NewReceipt(rand.Reader)
	if a == b || len(a) != handoff.ReceiptLen || a.Validate() != nil {
		t.Fatalf("two receipts %q and %q: want two different valid ones of %d characters", a, b, handoff.ReceiptLen)
	}
	// A fixed source gives a fixed receipt (deterministic tests).
	fixed := func() handoff.Receipt {
		r, err := handoff.NewReceipt(bytes.NewReader(make([]byte, 64)))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if x, y := fixed(), fixed(); x != y || x != "AAAAAAAAAAAAAAAAAAAA" {
		t.Fatalf("fixed source gave %q and %q", x, y)
	}
	if _, err := handoff.NewReceipt(bytes.NewReader(nil)); err == nil {
		t.Fatal("an exhausted random source made a receipt")
	}
	for _, bad := range []handoff.Receipt{"", "short", "has space in it 12345", "HANDOFF'; rm -rf /; echo", handoff.Receipt(strings.Repeat("A", 65))} {
		if err := bad.Validate(); !errors.Is(err, handoff.ErrInvalidConfig) {
			t.Errorf("receipt %q: want ErrInvalidConfig, got %v", bad, err)
		}
	}
}

func TestSplitReceiptReadsTheFirstLineOnly(t *testing.T) {
	cases := []struct {
		name, content, answer string
		receipt               handoff.Receipt
		found                 bool
	}{
		{"receipt line then the answer", "<!-- handoff:ABCDEFGHIJKLMNOPQRST -->\n# Title\nbody\n", "# Title\nbody\n", "ABCDEFGHIJKLMNOPQRST", true},
		{"blank lines, spacing and CRLF an agent may add", "\n  \r\n  <!--handoff: ABCDEFGHIJKLMNOPQRST-->  \r\nbody", "body", "ABCDEFGHIJKLMNOPQRST", true},
		{"the receipt alone", "<!-- handoff:ABCDEFGHIJKLMNOPQRST -->", "", "ABCDEFGHIJKLMNOPQRST", true},
		{"no receipt line", "# Title\n<!-- handoff:ABCDEFGHIJKLMNOPQRST -->\n", "# Title\n<!-- handoff:ABCDEFGHIJKLMNOPQRST -->\n", "", false},
		{"another comment", "<!-- note -->\nbody", "<!-- note -->\nbody", "", false},
		{"empty", "", "", "", false},
		{"white space only", " \n\n", " \n\n", "", false},
	}
	for _, c := range cases {
		answer, r, found := handoff.SplitReceipt(c.content)
		if answer != c.answer || r != c.receipt || found != c.found {
			t.Errorf("%s: got %q %q %v, want %q %q %v", c.name, answer, r, found, c.answer, c.receipt, c.found)
		}
	}
	if !handoff.Receipt("ABCDEFGHIJKLMNOPQRST").Matches("abcdefghijklmnopqrst") || handoff.Receipt("ABCDEFGHIJKLMNOPQRST").Matches("ABCDEFGHIJKLMNOPQRSU") {
		t.Error("Matches: want case ignored and any other receipt refused")
	}
}

func TestParseInstructionFindsTheFileAndTheReceipt(t *testing.T) {
	p := filepath.Join(t.TempDir(), "it's here", ".tmp", "agent-responses", "analyst_summary.md")
	want := handoff.Ticket{Path: p, Receipt: testReceipt}
	for name, text := range map[string]string{
		"prompt":   handoff.WithInstruction("Summarise.", p, testReceipt),
		"reminder": handoff.Reminder(p, testReceipt),
		// The last instruction counts: a prompt that quotes an earlier one.
		"quoting an earlier instruction": handoff.WithInstruction("Fix this:"+handoff.Instruction("/old/analyst_summary.md", "EARLIERRECEIPTBBBBBB"), p, testReceipt),
	} {
		if got, ok := handoff.ParseInstruction(text); !ok || got != want {
			t.Errorf("%s: got %+v %v, want %+v", name, got, ok, want)
		}
	}
	legacy := "x\n\n" + handoff.InstructionHeader + "\nWhen your work is complete, write your complete final response to this file:\n" + p +
		"\n\ncat << 'AGENT_EOF' > " + handoff.ShellQuote(p) + "\n<your complete final response>\nAGENT_EOF\n"
	for name, text := range map[string]string{"no instruction": "hello", "an instruction before receipts": legacy} {
		if got, ok := handoff.ParseInstruction(text); ok {
			t.Errorf("%s: found %+v", name, got)
		}
	}
	// A dispatch adopts the receipt of its prompt's own instruction for its
	// file, and makes a new one otherwise.
	if r, err := handoff.ReceiptFor(handoff.WithInstruction("x", p, testReceipt), p, rand.Reader); err != nil || r != testReceipt {
		t.Errorf("ReceiptFor a prompt carrying the instruction: %q %v", r, err)
	}
	if r, err := handoff.ReceiptFor(handoff.WithInstruction("x", "/elsewhere/a.md", testReceipt), p, rand.Reader); err != nil || r == testReceipt || r.Validate() != nil {
		t.Errorf("ReceiptFor a prompt carrying another file's instruction: %q %v", r, err)
	}
	// An earlier answer fed into the prompt, quoting its own instruction
	// for this file: its receipt is an earlier dispatch's, never reused.
	quoted := "Review this answer:\n" + handoff.WithInstruction("I was asked:", p, testReceipt) + "\nIs it right?"
	if r, err := handoff.ReceiptFor(quoted, p, rand.Reader); err != nil || r == testReceipt || r.Validate() != nil {
		t.Errorf("ReceiptFor a prompt quoting an earlier instruction: %q %v", r, err)
	}
}

// The third scenario: an answer that quotes the old fixed
// delimiter and follows it with a command. Run through a real shell as the
// instruction says, the whole answer reaches the file and nothing runs.
func TestAnAnswerCanNeitherEndTheHeredocNorRunCommands(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("no sh on PATH: the heredoc test needs a POSIX shell")
	}
	dir := t.TempDir()
	p := testkit.ResponseFile(t, dir, "analyst")
	injected := filepath.Join(dir, "INJECTED")
	answer := "A review of response.go.\nThe instruction ends with:\nAGENT_EOF\ntouch " + handoff.ShellQuote(injected) +
		"\nHANDOFF_EOF_\nHANDOFF_EOF_SOMEOTHERRECEIPTCCCC\n$(touch " + handoff.ShellQuote(injected) + ")\nEnd of review.\n"
	cmd := handoff.ResponseCommand(p, testReceipt, answer)
	// The command is the one the instruction shows, with the answer in
	// place of its placeholder line.
	if block := handoff.Instruction(p, testReceipt); !strings.Contains(block, strings.Replace(cmd, answer, handoff.ResponsePlaceholder+"\n", 1)) {
		t.Fatalf("the instruction does not show the command:\n%s", block)
	}
	if out, err := exec.Command(sh, "-c", cmd).CombinedOutput(); err != nil {
		t.Fatalf("sh: %v\n%s", err, out)
	}
	if _, err := os.Lstat(injected); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the answer ran a command: %s exists (%v)", injected, err)
	}
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if back, r, ok := handoff.SplitReceipt(string(got)); !ok || r != testReceipt || back != answer {
		t.Fatalf("file holds %q, want the receipt line and the whole answer %q", got, answer)
	}
}

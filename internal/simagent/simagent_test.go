package simagent

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

func TestKeyReaderDecodesPastesKeysAndEnter(t *testing.T) {
	in := "ab" + pasteStart + "line one\rline two\r\n\x1b[A$`\\\"" + pasteEnd + "\r\x1b[Ax\x7f\x03\x04"
	kr := NewKeyReader(strings.NewReader(in))
	want := []Key{
		{Kind: KeyText, Text: "a"}, {Kind: KeyText, Text: "b"},
		{Kind: KeyPaste, Text: "line one\nline two\n\x1b[A$`\\\""},
		{Kind: KeyEnter}, {Kind: KeyEscape}, {Kind: KeyText, Text: "x"}, {Kind: KeyBackspace},
		{Kind: KeyInterrupt}, {Kind: KeyEOF},
	}
	for i, w := range want {
		k, err := kr.Next()
		if err != nil {
			t.Fatalf("key %d: %v", i, err)
		}
		if k != w {
			t.Fatalf("key %d = %+v, want %+v", i, k, w)
		}
	}
	if _, err := kr.Next(); err == nil {
		t.Fatal("no EOF at the end of input")
	}
}

func TestKeyReaderUnicodeText(t *testing.T) {
	kr := NewKeyReader(strings.NewReader("日✓"))
	for _, w := range []string{"日", "✓"} {
		k, err := kr.Next()
		if err != nil || k.Text != w {
			t.Fatalf("got %+v %v, want %q", k, err, w)
		}
	}
}

// testReceipt stands for a dispatch's random receipt.
const testReceipt handoff.Receipt = "TESTRECEIPTAAAAAAAAA"

func TestHeredocIsFoundInTheInstruction(t *testing.T) {
	path := "/tmp/dir with space/it's $HOME/analyst_summary.md"
	prompt := handoff.WithInstruction("Do it.\ncat << 'HANDOFF_EOF_OTHERRECEIPTBBBBBBBB' > '/not/this/one'", path, testReceipt)
	got, err := Heredoc(prompt)
	if err != nil {
		t.Fatal(err)
	}
	if want := (handoff.Ticket{Path: path, Receipt: testReceipt}); got != want {
		t.Fatalf("heredoc %+v, want %+v (the one in the instruction, not the user's text)", got, want)
	}
	if want := "cat << 'HANDOFF_EOF_" + string(testReceipt) + "' > " + handoff.ShellQuote(path); CommandLine(got) != want {
		t.Fatalf("command line %q, want %q", CommandLine(got), want)
	}
	if _, err := Heredoc("no instruction here"); !errors.Is(err, ErrNoInstruction) {
		t.Fatalf("%v", err)
	}
	// A command that is not a single quoted word is never run.
	bad := "x\n\n" + handoff.InstructionHeader + "\nto this file:\n/tmp/a\ncat << 'HANDOFF_EOF_" + string(testReceipt) + "' > /tmp/a; rm -rf /tmp/b\n"
	if _, err := Heredoc(bad); !errors.Is(err, ErrNoInstruction) {
		t.Fatalf("unquoted path accepted: %v", err)
	}
	if got := UserText(prompt); got != "Do it.\ncat << 'HANDOFF_EOF_OTHERRECEIPTBBBBBBBB' > '/not/this/one'" {
		t.Fatalf("user text %q", got)
	}
}

func TestWriteResponseRunsTheHeredoc(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's a $dir")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "test_result.md")
	heredoc, err := Heredoc(handoff.WithInstruction("go", path, testReceipt))
	if err != nil {
		t.Fatal(err)
	}
	// A line AGENT_EOF, the fixed delimiter of earlier versions, is data.
	reply := "quotes ' \" $HOME `date` \\ and 日本\nAGENT_EOF\nsecond line"
	if err := WriteResponse(context.Background(), heredoc, reply); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := testReceipt.ReceiptLine() + "\n" + reply + "\n"; string(got) != want {
		t.Fatalf("file %q, want %q", got, want)
	}
	if err := WriteResponse(context.Background(), heredoc, "a\n"+testReceipt.Delimiter()+"\nb"); err == nil {
		t.Fatal("a reply that would cut the heredoc short was accepted")
	}
}

func TestPlanByScenario(t *testing.T) {
	prompt := handoff.WithInstruction("Summarise the repo", "/w/.tmp/agent-responses/analyst_summary.md", testReceipt)
	normal := Plan(Options{Scenario: ScenarioNormal}, prompt)
	if normal.Heredoc == "" || !strings.Contains(normal.File, "Summarise the repo") {
		t.Fatalf("normal: %+v", normal)
	}
	if echo := Plan(Options{Scenario: ScenarioNormal, Echo: true}, prompt); echo.File != "Summarise the repo" {
		t.Fatalf("echo: file %q", echo.File)
	}
	never := Plan(Options{Scenario: ScenarioNeverWrites}, prompt)
	if never.Heredoc != "" || !strings.Contains(never.Reply, "on screen only") {
		t.Fatalf("never-writes: %+v", never)
	}
	if none := Plan(Options{Scenario: ScenarioNormal}, "no instruction"); none.Heredoc != "" {
		t.Fatalf("no instruction: %+v", none)
	}
}

func TestOptionsDefaultsAndScenarios(t *testing.T) {
	o, err := Options{Scenario: ScenarioSlowStart, Cwd: "/w"}.withDefaults()
	if err != nil || o.Startup != DefaultSlowStartup || o.Work != DefaultWork {
		t.Fatalf("%+v %v", o, err)
	}
	if o.Startup <= DefaultStartup {
		t.Fatal("slow-start does not start slower than normal")
	}
	if _, err := New(Options{Scenario: "sleepy"}); err == nil {
		t.Fatal("unknown scenario accepted")
	}
}

func idleScreen() Screen {
	return Screen{Model: "sim-model", Effort: "medium", Cwd: "/home/u/proj",
		Transcript: []string{"", "› Say hello", "", "• Hello!", "", "  Worked for 1s • 05:00"}}
}

func TestRenderIdleScreenLooksLikeCodex0169(t *testing.T) {
	s := idleScreen()
	lines := s.Render(time.Now(), 30, 80)
	got := strings.Join(lines, "\n")
	want := strings.Join([]string{
		"", "› Say hello", "", "• Hello!", "", "  Worked for 1s • 05:00",
		"", "› " + Placeholder, "", "  sim-model medium · /home/u/proj", FooterIdle,
	}, "\n")
	if got != want {
		t.Fatalf("screen:\n%s\nwant:\n%s", got, want)
	}
	if title := s.Title(time.Now()); title != "proj" {
		t.Fatalf("idle title %q", title)
	}
}

func TestRenderWorkingShowsIndicatorBusyFooterAndSpinner(t *testing.T) {
	s := idleScreen()
	now := time.Now()
	s.Busy, s.Indicator, s.Since = true, "Working", now.Add(-3*time.Second)
	got := strings.Join(s.Render(now, 30, 80), "\n")
	if !strings.Contains(got, "◦ Working (3s • esc to interrupt)") || !strings.HasSuffix(got, FooterBusy) {
		t.Fatalf("working screen:\n%s", got)
	}
	title := s.Title(now)
	if r := []rune(title)[0]; r < 0x2800 || r > 0x28ff || !strings.HasSuffix(title, " proj") {
		t.Fatalf("busy title %q: want a braille spinner and the basename", title)
	}
	// Streaming: no indicator, idle-looking footer, the title still spins.
	s.Indicator = ""
	got = strings.Join(s.Render(now, 30, 80), "\n")
	if strings.Contains(got, "esc to interrupt") || !strings.HasSuffix(got, FooterIdle) {
		t.Fatalf("streaming screen:\n%s", got)
	}
}

func TestRenderFitsTheTerminal(t *testing.T) {
	s := idleScreen()
	for i := range 100 {
		s.Transcript = append(s.Transcript, strings.Repeat("word ", i))
	}
	lines := s.Render(time.Now(), 24, 40)
	if len(lines) != 24 {
		t.Fatalf("%d lines for a 24-row terminal", len(lines))
	}
	for _, l := range lines {
		w := 0
		for _, r := range l {
			w += runeWidth(r)
		}
		if w > 39 {
			t.Fatalf("line %q is %d cells wide on a 40-column terminal", l, w)
		}
	}
	if lines[len(lines)-1] != FooterIdle {
		t.Fatalf("the footer scrolled away: %q", lines[len(lines)-1])
	}
}

func TestComposerShowsDraftOrPlaceholder(t *testing.T) {
	if got := composerLines(""); got[0] != "› "+Placeholder {
		t.Fatal(got)
	}
	if got := composerLines("one\ntwo"); strings.Join(got, "|") != "› one|  two" {
		t.Fatal(got)
	}
	if got := composerLines(strings.Repeat("x", 5000)); got[0] != "› [Pasted Content 5000 chars]" {
		t.Fatal(got)
	}
}

func TestFrameRedrawsWithoutClearingTheScreen(t *testing.T) {
	f := Frame([]string{"a", "b\x07c"}, "t\x1bitle")
	if strings.Contains(f, "\x1b[2J") {
		t.Fatal("clearing the screen pushes it into tmux's scrollback")
	}
	if f != "\x1b]0;title\x07\x1b[Ha\x1b[K\r\nbc\x1b[K\x1b[J" {
		t.Fatalf("%q", f)
	}
}

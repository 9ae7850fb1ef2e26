package handoff_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

var roleFiles = map[string]string{
	"analyst":           "analyst_summary.md",
	"analyst_review":    "analyst_review.md",
	"programmer":        "programmer_summary.md",
	"programmer_review": "programmer_review.md",
	"tester":            "test_result.md",
}

func TestEachRoleResolvesToTheCorrectFile(t *testing.T) {
	work := t.TempDir()
	dir, err := filepath.Abs(filepath.Join(work, ".tmp", "agent-responses"))
	if err != nil {
		t.Fatal(err)
	}
	for role, name := range roleFiles {
		got, err := handoff.ResponsePath(work, role)
		if err != nil {
			t.Fatalf("%s: %v", role, err)
		}
		if want := filepath.Join(dir, name); got != want {
			t.Errorf("%s → %s, want %s", role, got, want)
		}
	}
	if got := handoff.Roles(); len(got) != len(roleFiles) {
		t.Errorf("Roles() = %v, want the %d roles of the spec", got, len(roleFiles))
	}
	// A relative workdir still gives an absolute path: it goes into the
	// agent's prompt, and the agent may run in another directory.
	if got, _ := handoff.ResponsePath(".", "tester"); !filepath.IsAbs(got) {
		t.Errorf("ResponsePath(\".\") = %q, want an absolute path", got)
	}
}

func TestUnknownRoleIsAClearError(t *testing.T) {
	_, err := handoff.ResponsePath(t.TempDir(), "architect")
	if !errors.Is(err, handoff.ErrUnknownRole) {
		t.Fatalf("want ErrUnknownRole, got %v", err)
	}
	for _, want := range []string{`"architect"`, "analyst", "tester"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
	// The engine refuses it before doing anything.
	_, err = fsm.Wait(context.Background(), nil, fsm.Options{Role: "architect", Workdir: t.TempDir()})
	if !errors.Is(err, handoff.ErrUnknownRole) {
		t.Errorf("Wait with an unknown role: want ErrUnknownRole, got %v", err)
	}
}

func responseFile(t *testing.T, work, role string) string {
	t.Helper()
	if err := handoff.EnsureResponseDir(work); err != nil {
		t.Fatal(err)
	}
	p, err := handoff.ResponsePath(work, role)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// The base spec deletes a stale file; the modified spec archives it, so the
// previous answer is kept.
func TestStaleFileFromPreviousRunExists(t *testing.T) {
	work := t.TempDir()
	p := responseFile(t, work, "analyst")
	if err := os.WriteFile(p, []byte("last turn's answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	a := handoff.NewArchive(work, time.Now())
	archived, err := handoff.ClearStale(p, "analyst", a)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale file still at %s", p)
	}
	if want := filepath.Join(a.Dir(), "001-analyst.stale.md"); archived != want {
		t.Errorf("archived to %s, want %s", archived, want)
	}
	if b, err := os.ReadFile(archived); err != nil || string(b) != "last turn's answer" {
		t.Errorf("archived copy holds %q (%v)", b, err)
	}
}

func TestNoStaleFileExists(t *testing.T) {
	work := t.TempDir()
	p := responseFile(t, work, "analyst")
	a := handoff.NewArchive(work, time.Now())
	archived, err := handoff.ClearStale(p, "analyst", a)
	if err != nil || archived != "" {
		t.Fatalf("ClearStale with no file = %q, %v; want \"\", nil", archived, err)
	}
	if _, err := os.Stat(a.Dir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an archive folder was created with nothing to archive")
	}
}

func TestDirectoryDoesNotExist(t *testing.T) {
	work := filepath.Join(t.TempDir(), "deep", "er")
	if err := handoff.EnsureResponseDir(work); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(work, ".tmp", "agent-responses"))
	if err != nil || !fi.IsDir() {
		t.Fatalf("response dir not created: %v", err)
	}
	// Idempotent.
	if err := handoff.EnsureResponseDir(work); err != nil {
		t.Errorf("second EnsureResponseDir: %v", err)
	}
}

func TestAnalystPromptIncludesFileInstruction(t *testing.T) {
	p := responseFile(t, t.TempDir(), "analyst")
	prompt := handoff.WithInstruction("Summarise the repository.", p)
	i := strings.Index(prompt, handoff.InstructionHeader)
	if i < 0 {
		t.Fatalf("no %s block in %q", handoff.InstructionHeader, prompt)
	}
	if !filepath.IsAbs(p) || !strings.Contains(prompt[i:], p) {
		t.Errorf("the block does not carry the absolute path %s:\n%s", p, prompt[i:])
	}
	if !strings.HasPrefix(prompt, "Summarise the repository.") {
		t.Errorf("the prompt itself was changed: %q", prompt)
	}
}

func TestAllFiveAgentRolesHaveFileInstructions(t *testing.T) {
	work := t.TempDir()
	for role, name := range roleFiles {
		p := responseFile(t, work, role)
		prompt := handoff.WithInstruction("Do the "+role+" work.", p)
		block := prompt[strings.Index(prompt, handoff.InstructionHeader):]
		if !strings.Contains(block, p) || !strings.HasSuffix(p, string(filepath.Separator)+name) {
			t.Errorf("%s: block lacks %s:\n%s", role, name, block)
		}
		for other, otherName := range roleFiles {
			if other != role && strings.Contains(block, otherName) {
				t.Errorf("%s: block names %s's file", role, other)
			}
		}
	}
}

func TestInstructionAppearsExactlyOnce(t *testing.T) {
	p := responseFile(t, t.TempDir(), "tester")
	once := handoff.WithInstruction("Run the tests.", p)
	twice := handoff.WithInstruction(once, p)
	if twice != once || strings.Count(twice, handoff.InstructionHeader) != 1 {
		t.Errorf("instruction added again:\n%s", twice)
	}
}

// The heredoc from the instruction block, run by a real shell, writes
// exactly the response to the file, even when the path has spaces, quotes
// and a dollar sign.
func TestInstructionHeredocWorksInAShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatal("no sh on PATH: the heredoc test needs a POSIX shell")
	}
	for _, dir := range []string{"plain", "with space", `it's "quoted"`, "dollar $HOME and `tick` and \\ back"} {
		t.Run(dir, func(t *testing.T) {
			work := filepath.Join(t.TempDir(), dir)
			p := responseFile(t, work, "programmer")
			block := handoff.Instruction(p)
			start := strings.Index(block, "cat << 'AGENT_EOF'")
			end := strings.LastIndex(block, "AGENT_EOF\n")
			if start < 0 || end < start {
				t.Fatalf("no heredoc in block:\n%s", block)
			}
			response := "Line one with $HOME and `date` and 'quotes'\nline two\n"
			cmd := strings.Replace(block[start:end+len("AGENT_EOF\n")], "<your complete final response>\n", response, 1)
			if outp, err := exec.Command(sh, "-c", cmd).CombinedOutput(); err != nil {
				t.Fatalf("sh -c failed: %v\n%s\ncommand:\n%s", err, outp, cmd)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("the heredoc did not write %s: %v\ncommand:\n%s", p, err, cmd)
			}
			if string(got) != response {
				t.Errorf("file holds %q, want %q", got, response)
			}
		})
	}
}

func TestSymlinkedResponseFileIsRefusedAndLeftInPlace(t *testing.T) {
	work := t.TempDir()
	p := responseFile(t, work, "analyst")
	target := filepath.Join(work, "secret.txt")
	if err := os.WriteFile(target, []byte("not an answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	_, _, err := handoff.ReadResponse(p, 1<<20)
	if !errors.Is(err, handoff.ErrResponseFile) || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("want ErrResponseFile naming the symlink, got %v", err)
	}
	if fi, err := os.Lstat(p); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was not left in place (%v)", err)
	}
	// The engine ends the wait at once with the same error.
	assertWaitStopsOnUnusableFile(t, work)
}

func TestOversizedResponseFileIsRefusedAndLeftInPlace(t *testing.T) {
	work := t.TempDir()
	p := responseFile(t, work, "analyst")
	big := strings.Repeat("x", 101)
	if err := os.WriteFile(p, []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	_, present, err := handoff.ReadResponse(p, 100)
	if !present || !errors.Is(err, handoff.ErrResponseFile) || !strings.Contains(err.Error(), "100-byte limit") {
		t.Fatalf("want present and ErrResponseFile naming the limit, got %v, %v", present, err)
	}
	if b, _ := os.ReadFile(p); string(b) != big {
		t.Errorf("the oversized file was changed")
	}
	if c, _, err := handoff.ReadResponse(p, 101); err != nil || c != big {
		t.Errorf("a file of exactly the limit must be read: %v", err)
	}
}

func TestUnreadableResponseFileIsRefusedAndLeftInPlace(t *testing.T) {
	type setup func(t *testing.T, p string)
	cases := map[string]setup{
		"a directory in its place": func(t *testing.T, p string) {
			if err := os.Mkdir(p, 0o755); err != nil {
				t.Fatal(err)
			}
		},
		"a FIFO in its place": func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	}
	// Permission bits do not stop root (CI runs as root); there the two
	// cases above stand for "unreadable".
	if os.Geteuid() != 0 {
		cases["no read permission"] = func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("answer"), 0o000); err != nil {
				t.Fatal(err)
			}
		}
	}
	for name, mk := range cases {
		t.Run(name, func(t *testing.T) {
			work := t.TempDir()
			p := responseFile(t, work, "analyst")
			mk(t, p)
			if _, _, err := handoff.ReadResponse(p, 1<<20); !errors.Is(err, handoff.ErrResponseFile) {
				t.Fatalf("want ErrResponseFile, got %v", err)
			}
			if _, err := os.Lstat(p); err != nil {
				t.Errorf("the file was not left in place: %v", err)
			}
			assertWaitStopsOnUnusableFile(t, work)
		})
	}
}

// assertWaitStopsOnUnusableFile runs a wait whose agent is quiet from the
// start over the unusable response file already in place: the first poll
// reads it and the wait ends with ErrResponseFile, file untouched.
func assertWaitStopsOnUnusableFile(t *testing.T, work string) {
	t.Helper()
	clk := vclock.New(time.Unix(1000, 0))
	p, _ := handoff.ResponsePath(work, "analyst")
	before, _ := os.Lstat(p)
	res, err := fsm.Wait(context.Background(), fixedTerminal(handoff.StatusIdle), fsm.Options{
		Role: "analyst", Workdir: work, Clock: clk, Config: smallLimit(),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if !errors.Is(err, handoff.ErrResponseFile) {
		t.Fatalf("Wait: want ErrResponseFile, got %v (%+v)", err, res)
	}
	if res.Elapsed != 0 {
		t.Errorf("Wait went on for %v instead of stopping at the first poll", res.Elapsed)
	}
	after, aerr := os.Lstat(p)
	if aerr != nil || after.Mode() != before.Mode() {
		t.Errorf("the unusable file was moved or changed (%v)", aerr)
	}
}

func smallLimit() handoff.Config {
	c := handoff.DefaultConfig()
	c.MaxResponseBytes = 100
	return c
}

type fixedTerminal handoff.Status

func (f fixedTerminal) Status(context.Context) (handoff.Status, error) { return handoff.Status(f), nil }
func (f fixedTerminal) LastOutput(context.Context) (string, error)     { return "", nil }

func TestArchiveNumbersFilesInOrderAndNeverOverwrites(t *testing.T) {
	work := t.TempDir()
	a := handoff.NewArchive(work, time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC))
	if !strings.HasPrefix(a.Dir(), filepath.Join(work, ".tmp")+string(filepath.Separator)) {
		t.Errorf("archive dir %s is not under <workdir>/.tmp", a.Dir())
	}
	// Another run in the same millisecond already took number 002.
	if err := os.MkdirAll(a.Dir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.Dir(), "002-tester.md"), []byte("theirs"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := responseFile(t, work, "tester")
	var got []string
	for i, kind := range []string{handoff.ArchiveStale, handoff.ArchiveConsumed, handoff.ArchiveEmpty, handoff.ArchiveConsumed} {
		if err := os.WriteFile(p, []byte(fmt.Sprint("answer ", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		dst, err := a.Store(p, "tester", kind)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(dst); string(b) != fmt.Sprint("answer ", i) {
			t.Errorf("%s holds %q", dst, b)
		}
		got = append(got, filepath.Base(dst))
	}
	want := []string{"001-tester.stale.md", "003-tester.md", "004-tester.empty.md", "005-tester.md"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("archived as %v, want %v", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(a.Dir(), "002-tester.md")); string(b) != "theirs" {
		t.Errorf("another run's archived file was overwritten")
	}
}

// sendAndWaitAgent is a fake agent for send-and-wait: it records the order
// of calls, checks the stale file is gone when the prompt arrives, and
// answers by writing its response file.
type sendAndWaitAgent struct {
	t        *testing.T
	path     string
	calls    []string
	sent     string
	answered bool
}

func (a *sendAndWaitAgent) Send(_ context.Context, text string) error {
	a.calls = append(a.calls, "send")
	if _, err := os.Lstat(a.path); !errors.Is(err, os.ErrNotExist) {
		a.t.Errorf("prompt sent while the stale response file is still in place")
	}
	a.sent = text
	return nil
}

func (a *sendAndWaitAgent) Status(context.Context) (handoff.Status, error) {
	a.calls = append(a.calls, "status")
	if !a.answered {
		// First look: working. Then it writes its answer and goes idle.
		a.answered = true
		return handoff.StatusProcessing, nil
	}
	if err := os.WriteFile(a.path, []byte("fresh answer"), 0o644); err != nil {
		a.t.Fatal(err)
	}
	return handoff.StatusIdle, nil
}

func (a *sendAndWaitAgent) LastOutput(context.Context) (string, error) {
	a.calls = append(a.calls, "last_output")
	return "", nil
}

func TestNormalSendAndWaitFlow(t *testing.T) {
	work := t.TempDir()
	p := responseFile(t, work, "analyst")
	if err := os.WriteFile(p, []byte("stale answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := &sendAndWaitAgent{t: t, path: p}
	archive := handoff.NewArchive(work, time.Now())
	prompt := "Analyse this." + handoff.Instruction(p) // already carries the block
	res, err := fsm.SendAndWait(context.Background(), agent, agent, prompt, fsm.Options{
		Role: "analyst", Workdir: work, Archive: archive,
		Clock:  vclock.New(time.Unix(0, 0)),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "fresh answer" || res.Source != fsm.SourceFile {
		t.Errorf("got %s %q, want the fresh file", res.Source, res.Content)
	}
	if got := strings.Join(agent.calls, ","); got != "send,status,status" {
		t.Errorf("calls %s, want send then the wait's polls", got)
	}
	if n := strings.Count(agent.sent, handoff.InstructionHeader); n != 1 || !strings.Contains(agent.sent, p) {
		t.Errorf("sent prompt carries the instruction %d times (want 1):\n%s", n, agent.sent)
	}
	entries, _ := os.ReadDir(archive.Dir())
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "001-analyst.stale.md 002-analyst.md" {
		t.Errorf("archive holds %v, want the stale file then the answer", names)
	}
	if b, _ := os.ReadFile(filepath.Join(archive.Dir(), "001-analyst.stale.md")); string(b) != "stale answer" {
		t.Errorf("stale answer not kept: %q", b)
	}
}

func TestSendAndWaitCreatesTheResponseDirectory(t *testing.T) {
	work := filepath.Join(t.TempDir(), "fresh")
	p, _ := handoff.ResponsePath(work, "tester")
	agent := &sendAndWaitAgent{t: t, path: p}
	_, err := fsm.SendAndWait(context.Background(), agent, agent, "Test it.", fsm.Options{
		Role: "tester", Workdir: work, Clock: vclock.New(time.Unix(0, 0)),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
}

type failingSender struct{}

func (failingSender) Send(context.Context, string) error { return errors.New("pane is gone") }

func TestSendAndWaitReportsASendFailureWithoutWaiting(t *testing.T) {
	term := &sendAndWaitAgent{t: t}
	_, err := fsm.SendAndWait(context.Background(), failingSender{}, term, "hi", fsm.Options{
		Role: "analyst", Workdir: t.TempDir(), Clock: vclock.New(time.Unix(0, 0)),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err == nil || !strings.Contains(err.Error(), "pane is gone") {
		t.Fatalf("want the send error, got %v", err)
	}
	if len(term.calls) != 0 {
		t.Errorf("the terminal was used after a failed send: %v", term.calls)
	}
}

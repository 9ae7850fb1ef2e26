package handoff_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/responsefile"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// testReceipt stands for a dispatch's random receipt, fixed so the tests
// are deterministic.
const testReceipt handoff.Receipt = "TESTRECEIPTAAAAAAAAA"

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

func TestAnalystPromptIncludesFileInstruction(t *testing.T) {
	p := testkit.ResponseFile(t, t.TempDir(), "analyst")
	prompt := handoff.WithInstruction("Summarise the repository.", p, testReceipt)
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
		p := testkit.ResponseFile(t, work, role)
		prompt := handoff.WithInstruction("Do the "+role+" work.", p, testReceipt)
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
	p := testkit.ResponseFile(t, t.TempDir(), "tester")
	once := handoff.WithInstruction("Run the tests.", p, testReceipt)
	twice := handoff.WithInstruction(once, p, testReceipt)
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
			p := testkit.ResponseFile(t, work, "programmer")
			block := handoff.Instruction(p, testReceipt)
			delim := testReceipt.Delimiter()
			start := strings.Index(block, "cat << '"+delim+"'")
			end := strings.LastIndex(block, "\n"+delim+"\n")
			if start < 0 || end < start {
				t.Fatalf("no heredoc in block:\n%s", block)
			}
			// A line AGENT_EOF (the fixed delimiter of earlier versions) is
			// data now.
			response := "Line one with $HOME and `date` and 'quotes'\nAGENT_EOF\nline two\n"
			cmd := strings.Replace(block[start:end+len(delim)+2], "<your complete final response>\n", response, 1)
			if outp, err := exec.Command(sh, "-c", cmd).CombinedOutput(); err != nil {
				t.Fatalf("sh -c failed: %v\n%s\ncommand:\n%s", err, outp, cmd)
			}
			got, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("the heredoc did not write %s: %v\ncommand:\n%s", p, err, cmd)
			}
			if want := testReceipt.ReceiptLine() + "\n" + response; string(got) != want {
				t.Errorf("file holds %q, want %q", got, want)
			}
			if answer, r, ok := handoff.SplitReceipt(string(got)); !ok || r != testReceipt || answer != response {
				t.Errorf("SplitReceipt = %q %q %v, want the response and the receipt", answer, r, ok)
			}
		})
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
	if a.sent == "" {
		return handoff.StatusIdle, nil // ready for a prompt
	}
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
	p := testkit.ResponseFile(t, work, "analyst")
	if err := os.WriteFile(p, []byte("stale answer"), 0o644); err != nil {
		t.Fatal(err)
	}
	agent := &sendAndWaitAgent{t: t, path: p}
	archive := responsefile.NewArchive(work, time.Now())
	prompt := "Analyse this." + handoff.Instruction(p, testReceipt) // already carries the block
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
	if got := strings.Join(agent.calls, ","); got != "status,send,status,status" {
		t.Errorf("calls %s, want a look at the agent, send, then the wait's polls", got)
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
	if strings.Join(term.calls, ",") != "status" {
		t.Errorf("the terminal was used after a failed send: %v (want only the look before it)", term.calls)
	}
}

func TestInstructionPathFindsTheFileInAPromptAndAReminder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "with space", ".tmp", "agent-responses", "analyst_summary.md")
	for name, text := range map[string]string{
		"prompt":   handoff.WithInstruction("Summarise.", p, testReceipt),
		"reminder": handoff.Reminder(p, testReceipt),
		"wrapped":  "<user_message>" + handoff.WithInstruction("Summarise.", p, testReceipt) + "</user_message>",
	} {
		if got, ok := handoff.InstructionPath(text); !ok || got != p {
			t.Errorf("%s: got %q %v, want %s", name, got, ok, p)
		}
	}
	for _, text := range []string{"no block here", handoff.InstructionHeader + "\nto this file:\nrelative/path.md\n"} {
		if got, ok := handoff.InstructionPath(text); ok {
			t.Errorf("%q: found %q", text, got)
		}
	}
}

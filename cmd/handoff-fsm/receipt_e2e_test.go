package main

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

// The first scenario, on real tmux: the first dispatch times out
// while the agent still works on it, and the second is sent at once (the
// agent queues it, as Codex and Claude Code do). The agent then writes the
// first prompt's answer into the role's file and goes quiet before it takes
// the second prompt up. The second dispatch must never return the first
// prompt's answer: it returns its own, whole.
func TestALateAnswerIsNeverTakenForTheNextPromptsOnRealTmux(t *testing.T) {
	t.Parallel()
	// Turns of about 5 s, and a 1.5 s stale screen between them (the
	// startup race of the queued prompt): long enough for the second
	// dispatch to see the first answer while the agent is quiet.
	a := startAgent(t, "--startup", "1500ms", "--work", "4s", "--stream", "300ms")
	record := filepath.Join(t.TempDir(), "second.jsonl")

	stdout, stderr, code := cli(t, "", a.sendArgs("--poll", "250ms", "--idle-grace", "20s", "--timeout", "3s", "--prompt", "FIRST task alpha")...)
	// The agent cannot have answered within 3 s; whether it was seen
	// working by then (timeout) or not yet (no response file at the
	// response deadline) depends on the machine's load: both are failures.
	if code != exitTimeout && code != exitNoFile || stdout != "" {
		t.Fatalf("first dispatch: exit %d stdout %q, want a timeout (or no response file) and nothing on stdout\n%s", code, stdout, stderr)
	}

	// Pasted at once into the agent's own queue (by default send waits for
	// the agent to be ready first): the receipt is what protects this case.
	stdout, stderr, code = cli(t, "", a.sendArgs("--poll", "250ms", "--idle-grace", "20s", "--timeout", "90s",
		"--when-busy", "queue", "--json", "--record", record, "--prompt", "SECOND task beta")...)
	if code != exitOK {
		t.Fatalf("second dispatch: exit %d, want its own answer\n%s\n%s", code, stdout, stderr)
	}
	rep := decodeReport(t, stdout)
	if !strings.Contains(rep.Content, "“SECOND task beta”") || strings.Contains(rep.Content, "FIRST") ||
		strings.Contains(rep.Content, "handoff:") || !strings.HasSuffix(rep.Content, "RESPONSE FILE INSTRUCTION.\n") {
		t.Fatalf("second dispatch returned %q, want the second prompt's whole answer without its receipt line\n%s", rep.Content, stderr)
	}

	// When the first answer was seen (the usual case), it is in the
	// archive as another prompt's, whole, with its receipt; the agent may
	// also have overwritten it with the second before any look saw it
	// quiet, which is no wrong answer either.
	mismatched := slices.ContainsFunc(rep.Transitions, func(tr trace.Transition) bool { return tr.Event == string(handoff.EventAnswerMismatched) })
	files, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.mismatch.md"))
	if mismatched != (len(files) == 1) {
		t.Fatalf("journal says mismatched %v, archive holds %v\n%s", mismatched, files, stderr)
	}
	if mismatched {
		b, err := os.ReadFile(files[0])
		if _, r, ok := handoff.SplitReceipt(string(b)); err != nil || !ok || !strings.Contains(string(b), "“FIRST task alpha”") {
			t.Fatalf("archived late answer %q (%v, receipt %q)", b, err, r)
		}
		if !strings.Contains(stderr, "answers another prompt") {
			t.Errorf("stderr does not say the file answered another prompt:\n%s", stderr)
		}
	}
	t.Logf("the first answer was seen and set aside: %v", mismatched)

	// The recording carries the receipt: its replay reaches the live outcome.
	if got := replayFile(t, record); got.Outcome != "done" || got.Content != rep.Content {
		t.Errorf("replay: %s %q, want done with %q", got.Outcome, got.Content, rep.Content)
	}
}

// The third scenario, on real tmux: an answer that quotes the old
// fixed delimiter and follows it with a command. The agent writes it with
// the instruction's heredoc through a real shell: the answer comes back
// whole and nothing in it runs.
func TestAnAnswerHoldingTheOldDelimiterComesBackWholeOnRealTmux(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	injected := filepath.Join(dir, "INJECTED")
	answer := "A review of response.go.\nIts instruction used to end with the line:\nAGENT_EOF\ntouch " + injected +
		"\nAGENT_EOF\n$(touch " + injected + ")\n`touch " + injected + "`\nEnd of the review."
	a := startAgent(t, "--startup", "300ms", "--work", "500ms", "--stream", "300ms", "--answer", answer)
	stdout, stderr, code := cli(t, "", a.sendArgs("--poll", "250ms", "--idle-grace", "10s", "--prompt", "Review response.go")...)
	if code != exitOK || stdout != answer+"\n" {
		t.Fatalf("exit %d stdout %q, want the whole answer %q\n%s", code, stdout, answer+"\n", stderr)
	}
	if _, err := os.Lstat(injected); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the answer ran as shell commands: %s exists (%v)", injected, err)
	}
}

package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/codex"
)

// bouncingAgent takes each Enter, shows Working a moment, then drops the
// turn and puts the prompt back in its composer, unsent; prompts it took
// would be logged to the returned file (none are).
func bouncingAgent(t *testing.T) (*agent, string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "prompts.jsonl")
	return startAgent(t, "--scenario", "bounces", "--prompt-log", log, "--startup", "300ms", "--work", "500ms", "--stream", "300ms"), log
}

// nothingLost fails the test unless the agent took no prompt and its
// composer still holds the one sent, whole from its first line.
func (a *agent) nothingLost(t *testing.T, log, prompt string) {
	t.Helper()
	if b, err := os.ReadFile(log); err == nil && len(b) > 0 {
		t.Errorf("the agent took a prompt: %s", b)
	}
	snap, err := a.pane.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := codex.Provider().Draft(snap.Capture); d != prompt {
		t.Errorf("the composer holds %q, want the prompt left there (%q)\n%s", d, prompt, snap.Capture)
	}
}

// A prompt that never left the agent's composer (the agent dropped the
// turn the Enter began, before the model got anything) ends as the table
// says, no response file, exit 5, and the error says why: never
// submitted, still in the composer, where it is left. --json says it too.
func TestSendSaysWhenThePromptNeverLeftTheComposer(t *testing.T) {
	t.Parallel()
	a, log := bouncingAgent(t)
	const prompt = "Review the design notes."
	stdout, stderr, code := cli(t, "", a.sendArgs(append(quickWait, "--prompt", prompt, "--json")...)...)
	if code != exitNoFile {
		t.Fatalf("exit %d, want %d (no response file)\n%s", code, exitNoFile, stderr)
	}
	for _, want := range []string{"no response file", "the prompt was never submitted: it is still in the agent's composer", "press Enter in the pane"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, stderr)
		}
	}
	if rep := decodeReport(t, stdout); rep.Outcome != "failed" || rep.Error != "no_response_file" || !rep.NotSubmitted {
		t.Errorf("--json: %+v, want failed, no_response_file, not_submitted", rep)
	}
	a.nothingLost(t, log, prompt)
}

// Through the service, `wait ID` prints the same error on stderr, nothing
// on stdout, and exits 5.
func TestWaitSaysWhenThePromptNeverLeftTheComposer(t *testing.T) {
	t.Parallel()
	dir, sock := serveDirs(t)
	startServe(t, dir, sock)
	a, log := bouncingAgent(t)
	const prompt = "Review the design notes."
	out, errOut, code := cli(t, "", a.sendArgs(append(quickWait, "--server", "unix:"+sock, "--no-wait", "--prompt", prompt)...)...)
	id := strings.TrimSpace(out)
	if code != exitOK || id == "" {
		t.Fatalf("send --no-wait: exit %d, stdout %q\n%s", code, out, errOut)
	}
	out, errOut, code = cli(t, "", "wait", "--server", "unix:"+sock, id)
	if code != exitNoFile || out != "" || !strings.Contains(errOut, "the prompt was never submitted: it is still in the agent's composer") {
		t.Fatalf("wait: exit %d, stdout %q, stderr:\n%s", code, out, errOut)
	}
	out, errOut, code = cli(t, "", "wait", "--server", "unix:"+sock, "--json", id)
	if code != exitNoFile || !strings.Contains(out, `"not_submitted":true`) {
		t.Errorf("wait --json: exit %d, stdout %s\n%s", code, out, errOut)
	}
	a.nothingLost(t, log, prompt)
}

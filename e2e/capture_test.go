package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
)

// CaptureEnv turns on TestCaptureRealScreens, which (re)writes the Codex
// classifier's real-screen fixtures.
const captureEnv = "HANDOFF_CAPTURE"

// captureReceipt is the receipt of the captured prompts: fixed, so a new
// capture differs from the last only where the CLI's screens do.
const captureReceipt handoff.Receipt = "CAPTURERECEIPTAAAAAA"

// fixtureDir is where the real screens go, relative to this package.
func fixtureDir() string {
	if d := os.Getenv("HANDOFF_CAPTURE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "codex", "testdata", "real-0.169")
}

// fixture is one manifest entry: a captured screen, its pane title, and the
// status the screen truthfully means (issue 3's semantics).
type fixture struct {
	File   string         `json:"file"`
	Title  string         `json:"title"`
	Status handoff.Status `json:"status"`
	Note   string         `json:"note"`
	// Message is the last assistant message as the model sent it, for
	// screens where the extraction must find exactly that ("" when there is
	// none or the screen shows it re-wrapped).
	Message string `json:"message,omitempty"`
	// Captured says how the screen was taken (test, pane size, config),
	// when that is more than TestCaptureRealScreens's default session.
	Captured string `json:"captured,omitempty"`
}

type capturer struct {
	t     *testing.T
	dir   string
	items []fixture
	how   string // Captured of the next shots
}

// shot captures r's pane as file with the expected status.
func (c *capturer) shot(r *rig, file string, status handoff.Status, note string) {
	c.t.Helper()
	c.shotMsg(r, file, status, note, "")
}

// shotMsg is shot for a screen whose last assistant message is msg.
func (c *capturer) shotMsg(r *rig, file string, status handoff.Status, note, msg string) {
	c.t.Helper()
	text, title, err := r.cli.Capture(context.Background())
	if err != nil {
		c.t.Fatal(err)
	}
	// Fixtures must not depend on where the test ran: the temp work folder
	// becomes a fixed path (its basename, "work", stays as Codex shows it).
	text = strings.ReplaceAll(text, r.workdir, "/tmp/handoff-e2e/work")
	if err := os.WriteFile(filepath.Join(c.dir, file), []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
	}
	c.items = append(c.items, fixture{File: file, Title: title, Status: status, Note: note, Message: msg, Captured: c.how})
	c.t.Logf("captured %s (%s) title %q", file, status, title)
}

// writeManifest merges the screens taken into the manifest: entries of
// the same files are replaced, the others (TestCaptureMoreRealScreens's)
// are kept.
func (c *capturer) writeManifest() {
	c.t.Helper()
	mergeManifest(c.t, c.dir, c.items)
}

// TestCaptureRealScreens drives the real Codex through every phase the
// classifier must read and stores each screen, with its title and expected
// status, as a fixture. Run it when the pinned Codex version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealScreens -v
func TestCaptureRealScreens(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real Codex %s screens into %s", captureEnv, realcodex.CLI.Version, fixtureDir())
	}
	c := &capturer{t: t, dir: fixtureDir()}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer c.writeManifest()

	r := newRig(t, realcodex.Options{})
	wd := r.workdir
	const short = 20 * time.Second

	time.Sleep(500 * time.Millisecond) // let the start-up art settle
	c.shot(r, "idle-fresh.txt", handoff.StatusIdle,
		"fresh start: banner, empty composer with the placeholder 'Ask Codex to do anything', status line model · cwd; title is the cwd basename")

	// A slow model: Codex shows its Working line while no byte has come.
	r.model.Script(fakemodel.Answer("Hello after a slow start.").After(4 * time.Second))
	r.submit("Say hello, slowly")
	r.waitScreen(short, "Working line", func(p, _ string) bool { return has(p, "esc to interrupt") })
	time.Sleep(time.Second)
	c.shot(r, "processing-working.txt", handoff.StatusProcessing,
		"turn running, model has not answered yet: '• Working (Ns • esc to interrupt)', spinner in the title")
	r.waitScreen(short, "first turn finished", func(p, title string) bool { return finished(p, title, "Hello after a slow start.") })
	c.shotMsg(r, "completed-answer.txt", handoff.StatusCompleted,
		"plain answer finished: '• Hello after a slow start.' then 'Worked for Ns', idle composer; title now carries the task title",
		"Hello after a slow start.")

	// Long streaming: no Working line, text grows, only the title spins.
	r.model.Script(fakemodel.Streamed(strings.Repeat("Streaming a long answer, chunk by chunk, so the screen can be read while it grows. ", 4), 60, 6*time.Second))
	r.submit("Write a long answer")
	r.waitScreen(short, "streamed text", func(p, title string) bool { return has(p, "Streaming a long answer, chunk") && spinning(title) })
	time.Sleep(1500 * time.Millisecond)
	c.shot(r, "processing-streaming.txt", handoff.StatusProcessing,
		"answer streaming in: no Working line, the screen looks idle (composer and footer shown); only the spinner in the pane title says busy")
	r.waitScreen(short, "streaming turn finished", func(p, title string) bool { return finished(p, title, "while it grows.") })
	c.shot(r, "completed-streamed.txt", handoff.StatusCompleted, "long streamed answer finished")

	// A tool running.
	r.model.Script(fakemodel.Shell("sleep 4; echo slept", "").In(wd), fakemodel.Answer("The command finished."))
	r.submit("Run a slow command")
	r.waitScreen(short, "tool running", func(p, _ string) bool { return has(p, "background terminal running") })
	time.Sleep(time.Second)
	c.shot(r, "processing-tool.txt", handoff.StatusProcessing,
		"exec_command running: '• Working (Ns • esc to interrupt) · 1 background terminal running · /ps to view · /stop to close'")
	r.waitScreen(short, "tool turn finished", func(p, title string) bool { return finished(p, title, "The command finished.") })

	// The response file is written before the turn ends: one more model
	// request follows the tool output (made slow here to catch it).
	path := testkit.ResponseFile(t, wd, "analyst")
	r.model.Script(fakemodel.WriteResponse("The analysis is complete.").In(wd), fakemodel.Answer("I wrote the response file.").After(4*time.Second))
	r.submit(handoff.WithInstruction("Analyse the project.", path, captureReceipt))
	waitFile(t, path, short)
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "processing-after-file.txt", handoff.StatusProcessing,
		"the heredoc already wrote the response file ('• Ran cat << 'HANDOFF_EOF_…' > …'), but the turn still runs: Codex waits for the model's next reply")
	r.waitScreen(short, "file turn finished", func(p, title string) bool { return finished(p, title, "I wrote the response file.") })
	c.shotMsg(r, "completed-after-file.txt", handoff.StatusCompleted, "file written and the turn finished with a final message",
		"I wrote the response file.")

	// A turn whose only output is the tool cell.
	r.model.Script(fakemodel.WriteResponse("Second analysis.").In(wd), fakemodel.Answer(""))
	r.submit(handoff.WithInstruction("Analyse again; say nothing else.", path, captureReceipt))
	r.waitScreen(short, "tool-only turn finished", func(p, title string) bool { return finished(p, title, "Analyse again; say nothing else.") })
	c.shot(r, "completed-tool-only.txt", handoff.StatusCompleted,
		"a finished turn whose only output is the tool cell '• Ran cat << 'HANDOFF_EOF_…' > …' (the final message is empty)")

	// Errors: an HTTP 500 and a failed stream, retries off.
	r.model.Script(fakemodel.HTTPError(500, "server_error", "fake internal error"))
	r.submit("This request gets HTTP 500")
	r.waitScreen(short, "500 error", func(p, title string) bool { return has(p, "■") && !spinning(title) })
	c.shot(r, "error-http-500.txt", handoff.StatusError,
		"HTTP 500 without retries: red '■ We’re currently experiencing high demand…' after the user message, then the idle composer")
	r.model.Script(fakemodel.Failed("the fake model failed this response"))
	r.submit("This request gets response.failed")
	r.waitScreen(short, "failed stream", func(p, title string) bool {
		return has(p, "the fake model failed this response") && !spinning(title)
	})
	c.shot(r, "error-stream-failed.txt", handoff.StatusError,
		"response.failed: red '■ stream disconnected before completion: …' after the last user message")

	// Codex prints a random "└ Tip: …" under some replies: ask until one
	// shows (each try is one short turn).
	tipped := false
	for i := 1; i <= 25 && !tipped; i++ {
		reply := fmt.Sprintf("Short answer number %d.", i)
		r.model.Script(fakemodel.Answer(reply))
		r.submit(fmt.Sprintf("Question number %d", i))
		r.waitScreen(short, "short answer", func(p, title string) bool { return finished(p, title, reply) })
		text, _, err := r.cli.Capture(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		plain := realcli.StripANSI(text)
		if tip := strings.LastIndex(plain, "Tip:"); tip > strings.LastIndex(plain, reply) {
			c.shotMsg(r, "completed-tip.txt", handoff.StatusCompleted,
				"a reply followed by Codex's random dim '  └ Tip: …' line: the tip is not part of the assistant's message", reply)
			tipped = true
		}
	}
	if !tipped {
		t.Log("no tip appeared in 25 turns; completed-tip.txt not captured")
	}

	// Esc while Working (nothing answered yet): interrupted, not an error.
	r.model.Script(fakemodel.Answer("never shown").After(30 * time.Second))
	r.submit("This turn gets interrupted while working")
	r.waitScreen(short, "Working line", func(p, _ string) bool { return has(p, "esc to interrupt") })
	r.keys("Escape")
	r.waitScreen(short, "interrupted", func(p, title string) bool { return has(p, "Conversation interrupted") && !spinning(title) })
	c.shot(r, "interrupted-working.txt", handoff.StatusIdle,
		"Esc before any answer: uncoloured '■ Conversation interrupted - …' after the user message, no assistant reply: idle, not error")

	// Esc while streaming: the partial answer stays.
	r.model.Script(fakemodel.Streamed(strings.Repeat("A partial answer that is cut short. ", 6), 50, 10*time.Second))
	r.submit("This turn gets interrupted while streaming")
	r.waitScreen(short, "streamed text", func(p, _ string) bool { return has(p, "A partial answer") })
	time.Sleep(time.Second)
	r.keys("Escape")
	r.waitScreen(short, "interrupted", func(p, title string) bool {
		return strings.Count(p, "Conversation interrupted") == 2 && !spinning(title)
	})
	c.shot(r, "interrupted-streaming.txt", handoff.StatusCompleted,
		"Esc while the answer streamed: the partial assistant reply follows the user message, then '■ Conversation interrupted': completed (not error)")

	// An unsent draft in the composer is not a user message.
	if err := r.cli.Paste(context.Background(), "a draft that is not sent yet"); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(short, "draft", func(p, _ string) bool { return has(p, "a draft that is not sent yet") })
	time.Sleep(300 * time.Millisecond)
	c.shot(r, "completed-draft.txt", handoff.StatusCompleted,
		"an unsent draft '› a draft that is not sent yet' in the composer (no placeholder, footer hidden) after the interrupted streamed reply: the draft is not a user message, so the partial reply is still the last word")

	// Approval: a second session that asks before escalated commands.
	a := newRig(t, realcodex.Options{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	time.Sleep(300 * time.Millisecond)
	a.model.Script(
		fakemodel.Shell("touch "+filepath.Join(a.workdir, "approved"), "").In(a.workdir).Escalated("Create a marker file?"),
		fakemodel.Answer("Created the marker file."))
	a.submit("Create a marker file")
	a.waitScreen(short, "approval prompt", func(p, title string) bool {
		return has(p, "Would you like to run the following command?") && strings.HasPrefix(title, "[ ! ]")
	})
	c.shot(a, "approval-command.txt", handoff.StatusWaitingUserAnswer,
		"approval menu: 'Would you like to run the following command?' … '› 1. Yes, proceed (y)'; title '[ ! ] Action Required | …' (alternates with '[ . ]')")
	a.waitScreen(short, "the other title", func(_, title string) bool { return strings.HasPrefix(title, "[ . ]") })
	c.shot(a, "approval-command-blink.txt", handoff.StatusWaitingUserAnswer,
		"the same approval menu captured while the title blinks to '[ . ] Action Required | …'")
	a.keys("y")
	a.waitScreen(short, "approved turn finished", func(p, title string) bool { return finished(p, title, "Created the marker file.") })
	c.shotMsg(a, "completed-approved.txt", handoff.StatusCompleted,
		"after approving: '✔ You approved codex to run …', '• Ran touch …', final message, 'Worked for'",
		"Created the marker file.")
}

// waitFile waits until path exists and is not empty.
func waitFile(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if fi, err := os.Stat(path); err == nil && fi.Size() > 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("response file %s not written within %v", path, timeout)
}

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

// codexCapturer is a capturer of Codex's screens into fixtureDir, made
// when env is set (else the test is skipped); what says which screens.
func codexCapturer(t *testing.T, env, what string) *capturer {
	t.Helper()
	if os.Getenv(env) == "" {
		t.Skipf("set %s=1 to capture %s real Codex %s screens into %s", env, what, realcodex.CLI.Version, fixtureDir())
	}
	c := &capturer{t: t, dir: fixtureDir()}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return c
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
	c := codexCapturer(t, captureEnv, "the")
	defer c.writeManifest()

	r := newRig(t, realcodex.Options{})
	wd := r.workdir
	const short = 20 * time.Second
	// The response file is written before the turn ends: one more model
	// request follows the tool output (made slow here to catch it).
	path := testkit.ResponseFile(t, wd, "analyst")
	play(c, r, short,
		captureStep{settle: 500 * time.Millisecond, shot: "idle-fresh.txt", status: handoff.StatusIdle, // the start-up art settles
			note: "fresh start: banner, empty composer with the placeholder 'Ask Codex to do anything', status line model · cwd; title is the cwd basename"},
		// A slow model: Codex shows its Working line while no byte has come.
		captureStep{replies: replies(fakemodel.Answer("Hello after a slow start.").After(4 * time.Second)), prompt: "Say hello, slowly",
			what: "Working line", until: showing("esc to interrupt"), settle: time.Second, shot: "processing-working.txt", status: handoff.StatusProcessing,
			note: "turn running, model has not answered yet: '• Working (Ns • esc to interrupt)', spinner in the title"},
		captureStep{what: "first turn finished", until: finishedWith("Hello after a slow start."), shot: "completed-answer.txt", status: handoff.StatusCompleted,
			note: "plain answer finished: '• Hello after a slow start.' then 'Worked for Ns', idle composer; title now carries the task title", msg: "Hello after a slow start."},
		// Long streaming: no Working line, text grows, only the title spins.
		captureStep{replies: replies(fakemodel.Streamed(strings.Repeat("Streaming a long answer, chunk by chunk, so the screen can be read while it grows. ", 4), 60, 6*time.Second)),
			prompt: "Write a long answer", what: "streamed text", until: func(p, title string) bool { return has(p, "Streaming a long answer, chunk") && spinning(title) },
			settle: 1500 * time.Millisecond, shot: "processing-streaming.txt", status: handoff.StatusProcessing,
			note: "answer streaming in: no Working line, the screen looks idle (composer and footer shown); only the spinner in the pane title says busy"},
		captureStep{what: "streaming turn finished", until: finishedWith("while it grows."), shot: "completed-streamed.txt", status: handoff.StatusCompleted,
			note: "long streamed answer finished"},
		// A tool running.
		captureStep{replies: replies(fakemodel.Shell("sleep 4; echo slept", "").In(wd), fakemodel.Answer("The command finished.")), prompt: "Run a slow command",
			what: "tool running", until: showing("background terminal running"), settle: time.Second, shot: "processing-tool.txt", status: handoff.StatusProcessing,
			note: "exec_command running: '• Working (Ns • esc to interrupt) · 1 background terminal running · /ps to view · /stop to close'"},
		captureStep{what: "tool turn finished", until: finishedWith("The command finished.")},
		captureStep{replies: replies(fakemodel.WriteResponse("The analysis is complete.").In(wd), fakemodel.Answer("I wrote the response file.").After(4*time.Second)),
			prompt: handoff.WithInstruction("Analyse the project.", path, captureReceipt),
			what:   "response file", until: func(string, string) bool { return fileWritten(path) }, settle: 500 * time.Millisecond,
			shot: "processing-after-file.txt", status: handoff.StatusProcessing,
			note: "the heredoc already wrote the response file ('• Ran cat << 'HANDOFF_EOF_…' > …'), but the turn still runs: Codex waits for the model's next reply"},
		captureStep{what: "file turn finished", until: finishedWith("I wrote the response file."), shot: "completed-after-file.txt", status: handoff.StatusCompleted,
			note: "file written and the turn finished with a final message", msg: "I wrote the response file."},
		// A turn whose only output is the tool cell.
		captureStep{replies: replies(fakemodel.WriteResponse("Second analysis.").In(wd), fakemodel.Answer("")),
			prompt: handoff.WithInstruction("Analyse again; say nothing else.", path, captureReceipt),
			what:   "tool-only turn finished", until: finishedWith("Analyse again; say nothing else."), shot: "completed-tool-only.txt", status: handoff.StatusCompleted,
			note: "a finished turn whose only output is the tool cell '• Ran cat << 'HANDOFF_EOF_…' > …' (the final message is empty)"},
		// Errors: an HTTP 500 and a failed stream, retries off.
		captureStep{replies: replies(fakemodel.HTTPError(500, "server_error", "fake internal error")), prompt: "This request gets HTTP 500",
			what: "500 error", until: func(p, title string) bool { return has(p, "■") && !spinning(title) }, shot: "error-http-500.txt", status: handoff.StatusError,
			note: "HTTP 500 without retries: red '■ We’re currently experiencing high demand…' after the user message, then the idle composer"},
		captureStep{replies: replies(fakemodel.Failed("the fake model failed this response")), prompt: "This request gets response.failed",
			what: "failed stream", until: func(p, title string) bool { return has(p, "the fake model failed this response") && !spinning(title) },
			shot: "error-stream-failed.txt", status: handoff.StatusError,
			note: "response.failed: red '■ stream disconnected before completion: …' after the last user message"},
	)

	// Codex prints a random "└ Tip: …" under some replies: ask until one
	// shows (each try is one short turn).
	tipped := false
	for i := 1; i <= 25 && !tipped; i++ {
		reply := fmt.Sprintf("Short answer number %d.", i)
		play(c, r, short, captureStep{replies: replies(fakemodel.Answer(reply)), prompt: fmt.Sprintf("Question number %d", i),
			what: "short answer", until: finishedWith(reply)})
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

	play(c, r, short,
		// Esc while Working (nothing answered yet): interrupted, not an error.
		// Esc only once the request reached the model: Codex shows its
		// Working line before it sends the request, and a turn cancelled
		// before that leaves the slow reply to the next one.
		captureStep{replies: replies(fakemodel.Answer("never shown").After(30 * time.Second)), prompt: "This turn gets interrupted while working",
			what: "Working line, the request sent", until: func(p, _ string) bool { return has(p, "esc to interrupt") && r.model.Pending() == 0 }},
		captureStep{keys: []string{"Escape"}, what: "interrupted", until: func(p, title string) bool { return has(p, "Conversation interrupted") && !spinning(title) },
			shot: "interrupted-working.txt", status: handoff.StatusIdle,
			note: "Esc before any answer: uncoloured '■ Conversation interrupted - …' after the user message, no assistant reply: idle, not error"},
		// Esc while streaming: the partial answer stays.
		captureStep{replies: replies(fakemodel.Streamed(strings.Repeat("A partial answer that is cut short. ", 6), 50, 10*time.Second)),
			prompt: "This turn gets interrupted while streaming", what: "streamed text", until: showing("A partial answer"), settle: time.Second},
		captureStep{keys: []string{"Escape"}, what: "interrupted", until: func(p, title string) bool {
			return strings.Count(p, "Conversation interrupted") == 2 && !spinning(title)
		}, shot: "interrupted-streaming.txt", status: handoff.StatusCompleted,
			note: "Esc while the answer streamed: the partial assistant reply follows the user message, then '■ Conversation interrupted': completed (not error)"},
		// An unsent draft in the composer is not a user message.
		captureStep{paste: "a draft that is not sent yet", what: "draft", until: showing("a draft that is not sent yet"), settle: 300 * time.Millisecond,
			shot: "completed-draft.txt", status: handoff.StatusCompleted,
			note: "an unsent draft '› a draft that is not sent yet' in the composer (no placeholder, footer hidden) after the interrupted streamed reply: the draft is not a user message, so the partial reply is still the last word"},
	)

	// Approval: a second session that asks before escalated commands.
	a := newRig(t, realcodex.Options{ApprovalPolicy: "on-request", SandboxMode: "workspace-write"})
	play(c, a, short,
		captureStep{settle: 300 * time.Millisecond},
		captureStep{replies: replies(fakemodel.Shell("touch "+filepath.Join(a.workdir, "approved"), "").In(a.workdir).Escalated("Create a marker file?"), fakemodel.Answer("Created the marker file.")),
			prompt: "Create a marker file", what: "approval prompt", until: func(p, title string) bool {
				return has(p, "Would you like to run the following command?") && strings.HasPrefix(title, "[ ! ]")
			}, shot: "approval-command.txt", status: handoff.StatusWaitingUserAnswer,
			note: "approval menu: 'Would you like to run the following command?' … '› 1. Yes, proceed (y)'; title '[ ! ] Action Required | …' (alternates with '[ . ]')"},
		captureStep{what: "the other title", until: func(_, title string) bool { return strings.HasPrefix(title, "[ . ]") },
			shot: "approval-command-blink.txt", status: handoff.StatusWaitingUserAnswer,
			note: "the same approval menu captured while the title blinks to '[ . ] Action Required | …'"},
		captureStep{keys: []string{"y"}, what: "approved turn finished", until: finishedWith("Created the marker file."),
			shot: "completed-approved.txt", status: handoff.StatusCompleted, msg: "Created the marker file.",
			note: "after approving: '✔ You approved codex to run …', '• Ran touch …', final message, 'Worked for'"},
	)
}

// finishedWith is a wait for a Codex turn that ended with last.
func finishedWith(last string) func(plain, title string) bool {
	return func(p, title string) bool { return finished(p, title, last) }
}

// take is shotMsg for play.
func (c *capturer) take(r *rig, name string, status handoff.Status, note, msg, _ string) {
	c.t.Helper()
	c.shotMsg(r, name, status, note, msg)
}

// fileWritten reports that path exists and is not empty.
func fileWritten(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Size() > 0
}

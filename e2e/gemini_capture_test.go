package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// geminiFixtureDir is where the real Gemini CLI screens go.
func geminiFixtureDir() string {
	if d := os.Getenv("HANDOFF_CAPTURE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "gemini", "testdata", "real-"+realgemini.Version)
}

// TestCaptureRealGeminiScreens drives the real Gemini CLI through every
// phase the classifier must read, in two pane sizes, and stores each screen
// (with and without colour), with its title and expected status, as a
// fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealGeminiScreens -v -timeout 30m
func TestCaptureRealGeminiScreens(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real Gemini CLI %s screens into %s", captureEnv, realgemini.Version, geminiFixtureDir())
	}
	writeManifest(t, geminiFixtureDir(), captureSizes(t, geminiFixtureDir(), captureGeminiSize), false)
}

func captureGeminiSize(t *testing.T, c *screenCapturer, w, h int) {
	const short = 45 * time.Second
	busy := func(p, _ string) bool { return geminiBusy(p) }
	quiet := func(p, title string) bool { return !geminiBusy(p) && strings.HasPrefix(title, "◇") }
	root := func(name string) string { return fixedRootUnder(t, "/tmp/handoff-e2e-gemini", name) }

	r := newGeminiRigAt(t, realgemini.Options{Width: w, Height: h}, root("main"))
	wd := r.workdir
	c.shot(r, "idle-fresh", handoff.StatusIdle,
		"fresh start: logo, 'Authenticated with gemini-api-key', tips, the composer '*   Type your message or @path/to/file' between half-block rules, the footer (workspace, sandbox, model); title '◇  Ready (work)'")

	// A model slow to send its first byte.
	r.model.Script(fakemodel.Answer("Hello after a slow start.").After(8 * time.Second))
	r.submit("Say hello, slowly")
	r.waitScreen(short, "spinner", busy)
	time.Sleep(300 * time.Millisecond)
	c.shot(r, "processing-first-byte", handoff.StatusProcessing,
		"request sent, no byte back yet: ' > Say hello, slowly', then '⠋ Thinking... (esc to cancel, 0s)'; title '✦  Working… (work)'")
	time.Sleep(3 * time.Second)
	c.shot(r, "processing-waiting", handoff.StatusProcessing, "still waiting for the first byte a few seconds later")
	r.waitScreen(short, "first turn finished", func(p, title string) bool { return geminiFinished(p, title, "Hello after a slow start.") })
	c.shot(r, "completed-answer", handoff.StatusCompleted,
		"plain answer finished: '✦ Hello after a slow start.'; title '◇  Ready (work)'", "Hello after a slow start.")

	// Long streaming.
	streamed := strings.Repeat("Streaming a long answer, chunk by chunk, so the screen can be read while it grows. ", 4)
	r.model.Script(fakemodel.Streamed(streamed, 60, 10*time.Second))
	r.submit("Write a long answer")
	r.waitScreen(short, "streamed text", func(p, _ string) bool { return has(p, "Streaming a long answer, chunk") })
	time.Sleep(2 * time.Second)
	c.shot(r, "processing-streaming", handoff.StatusProcessing,
		"answer streaming in: '✦ Streaming…' grows, the busy line below it, title Working")
	r.waitScreen(time.Minute, "streaming turn finished", func(p, title string) bool {
		return geminiFinished(p, title, "Streaming a long answer") && quiet(p, title)
	})
	c.shot(r, "completed-streamed", handoff.StatusCompleted, "long streamed answer finished", strings.TrimSpace(streamed))

	// A tool running.
	r.model.Script(fakemodel.Shell("sleep 6; echo slept", "Sleep a while"), fakemodel.Answer("The command finished."))
	r.submit("Run a slow command")
	r.waitScreen(short, "tool running", func(p, _ string) bool { return has(p, "sleep 6; echo slept") })
	time.Sleep(2 * time.Second)
	c.shot(r, "processing-tool", handoff.StatusProcessing,
		"run_shell_command running: a box '│ ⊷  Shell sleep 6; echo slept │' (the glyph spins), the busy line, title Working")
	r.waitScreen(short, "tool turn finished", func(p, title string) bool { return geminiFinished(p, title, "The command finished.") })
	c.shot(r, "completed-tool", handoff.StatusCompleted,
		"after the tool: the box with '✓  Shell …' and its output, '✦ The command finished.'", "The command finished.")

	// The response file is written before the turn ends.
	if err := responsefile.EnsureDir(wd); err != nil {
		t.Fatal(err)
	}
	path, err := handoff.ResponsePath(wd, "analyst")
	if err != nil {
		t.Fatal(err)
	}
	r.model.Script(fakemodel.WriteResponse("The analysis is complete."), fakemodel.Answer("I wrote the response file.").After(6*time.Second))
	r.submit(handoff.WithInstruction("Analyse the project.", path, captureReceipt))
	waitFile(t, path, short)
	time.Sleep(1500 * time.Millisecond)
	c.shot(r, "processing-after-file", handoff.StatusProcessing,
		"the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending (busy line, title Working)")
	r.waitScreen(short, "file turn finished", func(p, title string) bool { return geminiFinished(p, title, "I wrote the response file.") })
	c.shot(r, "completed-after-file", handoff.StatusCompleted, "file written and the turn finished with a final message",
		"I wrote the response file.")

	// An API error the CLI does not retry: HTTP 400.
	r.model.Script(fakemodel.HTTPError(400, "", "Request contains an invalid argument (fake)."))
	r.submit("This request fails: http-400")
	r.waitScreen(short, "error", func(p, title string) bool { return has(p, "API Error") && quiet(p, title) })
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "error-api-400", handoff.StatusError,
		"HTTP 400 INVALID_ARGUMENT: '✕ [API Error: {\"error\":{\"code\":400,…}}]' and 'ℹ This request failed. Press F12 for diagnostics…'", "", "[API Error:")

	// A successful turn after an error: the error is history now.
	r.model.Script(fakemodel.Answer("Back to normal."))
	r.submit("Try again")
	r.waitScreen(short, "turn after error", func(p, title string) bool { return geminiFinished(p, title, "Back to normal.") })
	c.shot(r, "completed-after-error", handoff.StatusCompleted,
		"a finished turn below an earlier API error: the error is history", "Back to normal.")

	// HTTP 500 is retried for a long time while the busy line runs.
	r.model.Script(fakemodel.Times(20, fakemodel.ServerError())...)
	r.submit("This request fails: http-500")
	r.waitScreen(short, "busy", busy)
	time.Sleep(4 * time.Second)
	c.shot(r, "processing-retrying-500", handoff.StatusProcessing,
		"HTTP 500, retried by the CLI: the busy line keeps running (a retry note may show)")
	r.keys("Escape")
	r.waitScreen(short, "interrupted", quiet)
	r.model.Clear()
	time.Sleep(time.Second)
	c.shot(r, "interrupted-retrying", handoff.StatusIdle,
		"Esc while the CLI retried: 'ℹ Request cancelled.' under the prompt, no reply after it: quiet (idle)")

	// Esc while streaming: the partial answer stays.
	r.model.Script(fakemodel.Streamed(strings.Repeat("A partial answer that is cut short. ", 8), 60, 15*time.Second))
	r.submit("This turn gets interrupted while streaming")
	r.waitScreen(short, "streamed text", func(p, _ string) bool { return has(p, "A partial answer") })
	time.Sleep(1500 * time.Millisecond)
	r.keys("Escape")
	r.waitScreen(short, "interrupted", quiet)
	time.Sleep(time.Second)
	c.shot(r, "interrupted-streaming", handoff.StatusCompleted,
		"Esc while the answer streamed: the partial '✦ A partial answer…' stays, then the cancel note: quiet (not error)")

	// An unsent draft, and a long pasted one: "[Pasted Text: N lines]".
	if err := r.cli.Paste(context.Background(), "a draft that is not sent yet"); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(short, "draft", func(p, _ string) bool { return has(p, "a draft that is not sent yet") })
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "completed-draft", handoff.StatusCompleted, "an unsent draft in the composer after the interrupted reply")
	r.keys("C-u")
	time.Sleep(500 * time.Millisecond)
	long := strings.Repeat("A long pasted prompt line.\n", 12)
	if err := r.cli.Paste(context.Background(), long); err != nil {
		t.Fatal(err)
	}
	r.waitScreen(short, "pasted text", func(p, _ string) bool { return has(p, "[Pasted Text:") })
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "completed-pasted-draft", handoff.StatusCompleted, "a long paste not sent yet: the composer shows '[Pasted Text: 12 lines]'")

	// The confirmation dialog: a session in the default approval mode.
	a := newGeminiRigAt(t, realgemini.Options{Width: w, Height: h, Ask: true}, root("ask"))
	a.model.Script(fakemodel.Shell("echo hi > "+filepath.Join(a.workdir, "approved.txt"), "Write a marker file"), fakemodel.Answer("Wrote the marker file."))
	a.submit("Write a marker file")
	a.waitScreen(short, "confirmation", func(p, _ string) bool { return has(p, "Allow execution") })
	time.Sleep(time.Second)
	c.shot(a, "waiting-confirmation", handoff.StatusWaitingUserAnswer,
		"default approval mode: a box '? Shell echo hi > …', 'Allow execution of [Shell]?', '● 1. Allow once' …; title '✋  Action Required (work)'")
	a.keys("1")
	a.waitScreen(short, "approved turn finished", func(p, title string) bool { return geminiFinished(p, title, "Wrote the marker file.") })
	c.shot(a, "completed-after-confirmation", handoff.StatusCompleted,
		"after allowing: the command ran, final message", "Wrote the marker file.")
}

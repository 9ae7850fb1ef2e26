package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// openCodeFixtureDir is where the real OpenCode screens go.
func openCodeFixtureDir() string {
	if d := os.Getenv("HANDOFF_CAPTURE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "opencode", "testdata", "real-"+realopencode.Version)
}

// TestCaptureRealOpenCodeScreens drives the real OpenCode through every
// phase the classifier must read, in two pane sizes, and stores each
// screen (with and without colour), with its title and expected status, as
// a fixture. Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealOpenCodeScreens -v -timeout 30m
func TestCaptureRealOpenCodeScreens(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real OpenCode %s screens into %s", captureEnv, realopencode.Version, openCodeFixtureDir())
	}
	writeManifest(t, openCodeFixtureDir(), captureSizes(t, openCodeFixtureDir(), captureOpenCodeSize), false)
}

func captureOpenCodeSize(t *testing.T, c *screenCapturer, w, h int) {
	const short = 45 * time.Second
	busy := func(p, _ string) bool { return openCodeBusy(p) }
	root := func(name string) string { return fixedRootUnder(t, "/tmp/handoff-e2e-opencode", name) }

	r := newOpenCodeRigAt(t, realopencode.Options{Width: w, Height: h}, root("main"))
	wd := r.workdir
	c.shot(r, "idle-fresh", handoff.StatusIdle,
		"fresh start: the logo, the composer ('┃  Ask anything…', '┃  Build · fake-model Fake', '╹▀▀▀'), the folder and version at the bottom; title 'OpenCode'")

	r.model.Script(fakemodel.Answer("Hello after a slow start.").After(8 * time.Second))
	r.submit("Say hello, slowly")
	r.waitScreen(short, "busy", busy)
	time.Sleep(300 * time.Millisecond)
	c.shot(r, "processing-first-byte", handoff.StatusProcessing,
		"request sent, no byte back yet: the prompt box, '▣  Build · fake-model' without a duration, '⬝⬝⬝⬝■■■  esc interrupt' under the composer")
	time.Sleep(3 * time.Second)
	c.shot(r, "processing-waiting", handoff.StatusProcessing, "still waiting for the first byte a few seconds later")
	r.waitScreen(short, "first turn finished", func(p, _ string) bool { return openCodeFinished(p, "Hello after a slow start.") })
	c.shot(r, "completed-answer", handoff.StatusCompleted,
		"plain answer finished: the message five columns in, '▣  Build · fake-model · 9.1s'", "Hello after a slow start.")

	streamed := strings.Repeat("Streaming a long answer, chunk by chunk, so the screen can be read while it grows. ", 4)
	r.model.Script(fakemodel.Streamed(streamed, 60, 10*time.Second))
	r.submit("Write a long answer")
	r.waitScreen(short, "streamed text", func(p, _ string) bool { return has(p, "Streaming a long answer, chunk") })
	time.Sleep(2 * time.Second)
	c.shot(r, "processing-streaming", handoff.StatusProcessing, "answer streaming in, 'esc interrupt' under the composer")
	r.waitScreen(time.Minute, "streaming turn finished", func(p, _ string) bool {
		return openCodeFinished(p, "so the screen can be read while it grows.")
	})
	c.shot(r, "completed-streamed", handoff.StatusCompleted, "long streamed answer finished", strings.TrimSpace(streamed))

	r.model.Script(fakemodel.Shell("sleep 6; echo slept", "Wait a while"), fakemodel.Answer("The command finished."))
	r.submit("Run a slow command")
	r.waitScreen(short, "tool running", func(p, _ string) bool { return has(p, "echo slept") && openCodeBusy(p) })
	time.Sleep(2 * time.Second)
	c.shot(r, "processing-tool", handoff.StatusProcessing, "bash running: '┃  ⠏ sleep 6; echo slept', 'esc interrupt'")
	r.waitScreen(short, "tool turn finished", func(p, _ string) bool { return openCodeFinished(p, "The command finished.") })
	c.shot(r, "completed-tool", handoff.StatusCompleted, "after the tool: '┃  $ sleep 6; echo slept', '┃  slept', then the message", "The command finished.")

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
		"the heredoc already wrote the response file, but the turn still runs: the model's next reply is pending")
	r.waitScreen(short, "file turn finished", func(p, _ string) bool { return openCodeFinished(p, "I wrote the response file.") })
	c.shot(r, "completed-after-file", handoff.StatusCompleted, "file written and the turn finished with a final message", "I wrote the response file.")

	r.model.Script(fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
	r.submit("This request fails: http-400")
	r.waitScreen(short, "error", func(p, _ string) bool { return has(p, "invalid argument (fake)") && !openCodeBusy(p) })
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "error-api-400", handoff.StatusError,
		"HTTP 400: a red box '┃  Request contains an invalid argument (fake).' and the footer without a duration", "", "Request contains an invalid argument (fake).")

	r.model.Script(fakemodel.Answer("Back to normal."))
	r.submit("Try again")
	r.waitScreen(short, "turn after error", func(p, _ string) bool { return openCodeFinished(p, "Back to normal.") })
	c.shot(r, "completed-after-error", handoff.StatusCompleted, "a finished turn below an earlier API error: the error is history", "Back to normal.")

	a := newOpenCodeRigAt(t, realopencode.Options{Width: w, Height: h, Ask: true}, root("ask"))
	a.model.Script(fakemodel.Shell("echo hi > "+filepath.Join(a.workdir, "approved.txt"), "Write a marker file"), fakemodel.Answer("Wrote the marker file."))
	a.submit("Write a marker file")
	a.waitScreen(short, "confirmation", func(p, _ string) bool { return has(p, "Permission required") })
	time.Sleep(time.Second)
	c.shot(a, "waiting-confirmation", handoff.StatusWaitingUserAnswer,
		"bash asks: '△ Permission required', '# Shell command', the command, 'Allow once   Allow always   Reject', 'enter confirm'")
	a.keys("Enter")
	a.waitScreen(short, "approved turn finished", func(p, _ string) bool { return openCodeFinished(p, "Wrote the marker file.") })
	c.shot(a, "completed-after-confirmation", handoff.StatusCompleted, "after allowing: the command ran, final message", "Wrote the marker file.")
}

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
	"github.com/handoff-fsm/handoff-fsm/qwen"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

// qwenFixtureDir is where the real Qwen Code screens go.
func qwenFixtureDir() string {
	if d := os.Getenv("HANDOFF_CAPTURE_DIR"); d != "" {
		return d
	}
	return filepath.Join("..", "qwen", "testdata", "real-"+realqwen.Version)
}

// TestCaptureRealQwenScreens drives the real Qwen Code through every phase
// the classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealQwenScreens -v -timeout 30m
func TestCaptureRealQwenScreens(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real Qwen Code %s screens into %s", captureEnv, realqwen.Version, qwenFixtureDir())
	}
	writeManifest(t, qwenFixtureDir(), captureSizes(t, qwenFixtureDir(), captureQwenSize), false)
}

func captureQwenSize(t *testing.T, c *screenCapturer, w, h int) {
	const short = 45 * time.Second
	busy := func(p, _ string) bool { return qwenBusy(p) }
	quiet := func(p, title string) bool { return !qwenBusy(p) && !qwen.TitleSpinning(title) }
	root := func(name string) string { return fixedRootUnder(t, "/tmp/handoff-e2e-qwen", name) }

	r := newQwenRigAt(t, realqwen.Options{Width: w, Height: h}, root("main"))
	wd := r.workdir
	c.shot(r, "idle-fresh", handoff.StatusIdle,
		"fresh start: logo and the '>_ Qwen Code (v0.24.4)' box, tips, the composer '*   Type your message or @path/to/file' between rules, the footer; title 'Qwen - work'")

	r.model.Script(fakemodel.Answer("Hello after a slow start.").After(8 * time.Second))
	r.submit("Say hello, slowly")
	r.waitScreen(short, "spinner", busy)
	time.Sleep(300 * time.Millisecond)
	c.shot(r, "processing-first-byte", handoff.StatusProcessing,
		"request sent, no byte back yet: '> Say hello, slowly', then '⠋ <phrase>... (0s · esc to cancel)'; title '◐︎ Qwen - work'")
	time.Sleep(3 * time.Second)
	c.shot(r, "processing-waiting", handoff.StatusProcessing, "still waiting for the first byte a few seconds later")
	r.waitScreen(short, "first turn finished", func(p, title string) bool { return qwenFinished(p, title, "Hello after a slow start.") })
	c.shot(r, "completed-answer", handoff.StatusCompleted,
		"plain answer finished: '◆︎ Hello after a slow start.'; title 'Qwen - work'", "Hello after a slow start.")

	streamed := strings.Repeat("Streaming a long answer, chunk by chunk, so the screen can be read while it grows. ", 4)
	r.model.Script(fakemodel.Streamed(streamed, 60, 10*time.Second))
	r.submit("Write a long answer")
	r.waitScreen(short, "streamed text", func(p, _ string) bool { return has(p, "Streaming a long answer, chunk") })
	time.Sleep(2 * time.Second)
	c.shot(r, "processing-streaming", handoff.StatusProcessing, "answer streaming in, the busy line below it, title spinning")
	r.waitScreen(time.Minute, "streaming turn finished", func(p, title string) bool {
		return qwenFinished(p, title, "so the screen can be read while it grows.") && quiet(p, title)
	})
	c.shot(r, "completed-streamed", handoff.StatusCompleted, "long streamed answer finished", strings.TrimSpace(streamed))

	// Qwen Code refuses a command that starts with sleep ("Blocked: sleep
	// 6 followed by …"): perl waits instead.
	r.model.Script(fakemodel.Shell("perl -e 'select(undef,undef,undef,6)'; echo slept", "Wait a while"), fakemodel.Answer("The command finished."))
	r.submit("Run a slow command")
	r.waitScreen(short, "tool running", func(p, _ string) bool { return has(p, "echo slept") && qwenBusy(p) })
	time.Sleep(2 * time.Second)
	c.shot(r, "processing-tool", handoff.StatusProcessing, "run_shell_command running: '⊶ Shell perl …; echo slept', the busy line, title spinning")
	r.waitScreen(short, "tool turn finished", func(p, title string) bool { return qwenFinished(p, title, "The command finished.") })
	c.shot(r, "completed-tool", handoff.StatusCompleted, "after the tool: '✓ Shell …', '◆︎ The command finished.'", "The command finished.")

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
	r.waitScreen(short, "file turn finished", func(p, title string) bool { return qwenFinished(p, title, "I wrote the response file.") })
	c.shot(r, "completed-after-file", handoff.StatusCompleted, "file written and the turn finished with a final message", "I wrote the response file.")

	r.model.Script(fakemodel.HTTPError(400, "invalid_request_error", "Request contains an invalid argument (fake)."))
	r.submit("This request fails: http-400")
	r.waitScreen(short, "error", func(p, title string) bool { return has(p, "API Error") && quiet(p, title) })
	time.Sleep(500 * time.Millisecond)
	c.shot(r, "error-api-400", handoff.StatusError,
		"HTTP 400: '✕ [API Error: 400 Request contains an invalid argument (fake).] (Press Ctrl+Y to retry)'", "", "[API Error: 400")

	r.model.Script(fakemodel.Answer("Back to normal."))
	r.submit("Try again")
	r.waitScreen(short, "turn after error", func(p, title string) bool { return qwenFinished(p, title, "Back to normal.") })
	c.shot(r, "completed-after-error", handoff.StatusCompleted, "a finished turn below an earlier API error: the error is history", "Back to normal.")

	r.model.Script(fakemodel.Streamed(strings.Repeat("A partial answer that is cut short. ", 8), 60, 15*time.Second))
	r.submit("This turn gets interrupted while streaming")
	r.waitScreen(short, "streamed text", func(p, _ string) bool { return has(p, "A partial answer") })
	time.Sleep(1500 * time.Millisecond)
	r.keys("Escape")
	r.waitScreen(short, "interrupted", quiet)
	r.model.Clear()
	time.Sleep(time.Second)
	c.shot(r, "interrupted-streaming", handoff.StatusCompleted,
		"Esc while the answer streamed: the partial answer stays, then '●︎ Request cancelled.'; the prompt is put back in the composer as a draft: quiet (not error)")

	a := newQwenRigAt(t, realqwen.Options{Width: w, Height: h, Ask: true}, root("ask"))
	a.model.Script(fakemodel.Shell("echo hi > "+filepath.Join(a.workdir, "approved.txt"), "Write a marker file"), fakemodel.Answer("Wrote the marker file."))
	a.submit("Write a marker file")
	a.waitScreen(short, "confirmation", func(p, _ string) bool { return has(p, "Allow execution") })
	time.Sleep(time.Second)
	c.shot(a, "waiting-confirmation", handoff.StatusWaitingUserAnswer,
		"default approval mode: '? Shell echo hi > …', 'Allow execution of: 'echo'?', '› 1. Yes, allow once' …, 'Waiting for user confirmation...'")
	a.keys("1")
	a.waitScreen(short, "approved turn finished", func(p, title string) bool { return qwenFinished(p, title, "Wrote the marker file.") })
	c.shot(a, "completed-after-confirmation", handoff.StatusCompleted, "after allowing: the command ran, final message", "Wrote the marker file.")
}

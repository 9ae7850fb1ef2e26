package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realkilo"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/kilo"
	"github.com/handoff-fsm/handoff-fsm/opencode"
)

// questionFoot is the foot of OpenCode's question dialog, Kilo Code's too.
const questionFoot = "esc dismiss"

// TestCaptureRealQuestionScreens takes the question dialog that replaces
// OpenCode's composer, in two pane sizes, with and without colour: asked
// by the model's question tool in OpenCode, and by Kilo Code itself when
// the first snapshot of a large git folder is slow. Run it when a pin
// changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealQuestionScreens -v -timeout 60m
func TestCaptureRealQuestionScreens(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture OpenCode's and Kilo Code's question dialogs", captureEnv)
	}
	ocDir := filepath.Join("..", "opencode", "testdata", "real-"+opencode.Version, "question")
	kiloDir := filepath.Join("..", "kilo", "testdata", "real-"+kilo.Version, "snapshot-question")
	// One CLI at a time, each ended before the next starts (a subtest's
	// cleanup): Kilo's start alone takes 20–25 CPU-s.
	writeManifest(t, ocDir, captureSizes(t, ocDir, captureOpenCodeQuestion), true)
	writeManifest(t, kiloDir, captureSizes(t, kiloDir, captureKiloSnapshotQuestion), true)
}

// captureOpenCodeQuestion has the model call OpenCode's question tool.
func captureOpenCodeQuestion(t *testing.T, c *screenCapturer, w, h int) {
	r := newOpenCodeRigAt(t, realopencode.Options{Common: realcli.Common{Width: w, Height: h}}, fixedRootUnder(t, "/tmp/handoff-e2e-question", "opencode"))
	r.model.Script(fakemodel.ToolUse("question", map[string]any{"questions": []any{map[string]any{
		"header": "Pick a colour", "question": "Which colour should the button be?",
		"options": []any{
			map[string]any{"label": "Blue", "description": "The house colour."},
			map[string]any{"label": "Green", "description": "The go colour."},
		},
	}}}, ""), fakemodel.Answer("Blue it is."))
	r.submit("Ask me which colour.")
	asking := func(pl, _ string) bool { return has(pl, questionFoot) }
	r.waitScreen(3*time.Minute, "the question", asking)
	time.Sleep(2 * time.Second)
	holds(r, "the question", asking)
	c.shot(r, "waiting-question", handoff.StatusWaitingUserAnswer,
		"the model called its question tool (one question, two options): a '┃' box in place of the composer and hint line, the question, "+
			"'1. Blue' … '3. Type your own answer', '↑↓ select  enter submit  esc dismiss'; the turn's footer above it without a duration")
}

// captureKiloSnapshotQuestion starts Kilo with snapshots on in a git work
// folder and submits a prompt: before any request it asks "Do you want to
// disable Snapshots for this repository?". Kilo asks when its snapshot
// takes over KILO_SNAPSHOT_TRACK_TIMEOUT_MS (10 s by default: a folder of
// 40,000 files at a load average of 20 showed it, on an idle machine took
// 6 s and did not); 1 ms makes it ask in any folder, whatever the load.
func captureKiloSnapshotQuestion(t *testing.T, c *screenCapturer, w, h int) {
	root := fixedRootUnder(t, "/tmp/handoff-e2e-question", "kilo")
	gitFolder(t, filepath.Join(root, "work"), 100)
	opts := realkilo.Options{Common: realcli.Common{Width: w, Height: h}}
	r := openCodeShapedRig(t, realkilo.CLI, root, &opts.Common, func(ctx context.Context) (*realcli.Session, error) {
		cfg := realkilo.Config(opts)
		cfg["snapshot"] = true
		return realcli.Start(ctx, realkilo.CLI, realcli.Launch{Common: opts.Common,
			Env: append(realkilo.Env(opts), "KILO_SNAPSHOT_TRACK_TIMEOUT_MS=1"), JSON: map[string]any{realkilo.ConfigFile: cfg}})
	})
	r.model.Script(fakemodel.Answer("Hello after the snapshot."))
	r.submit("Say hello.")
	asking := func(pl, _ string) bool { return has(pl, "Disable for this project") && has(pl, questionFoot) }
	r.waitScreen(3*time.Minute, "the snapshot question", asking)
	time.Sleep(2 * time.Second)
	holds(r, "the snapshot question", asking)
	c.shot(r, "waiting-snapshot", handoff.StatusWaitingUserAnswer,
		"snapshots on (KILO_SNAPSHOT_TRACK_TIMEOUT_MS=1) in a git work folder: before any request Kilo asks its own question in place of the composer, "+
			"'It is taking a long time to initialize the snapshot system…', 'Do you want to disable Snapshots for this repository?', "+
			"'1. Continue with snapshots', '2. Disable for this project', '↑↓ select  enter submit  esc dismiss'")
}

// gitFolder makes dir a git repository of n committed files of 4 KB.
func gitFolder(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		sub := filepath.Join(dir, fmt.Sprintf("d%03d", i/100))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		body := strings.Repeat(fmt.Sprintf("line %d of a file\n", i), 200)
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("f%05d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.email=e2e@example.com", "-c", "user.name=e2e", "commit", "-qm", "files"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

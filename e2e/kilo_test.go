package e2e

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realkilo"
)

// Kilo Code draws OpenCode's screen: its phases are told apart as
// OpenCode's are, its turn's footer names its agent, "Code".

// TestCaptureRealKiloScreens drives the real Kilo Code through every phase
// the classifier must read, in two pane sizes, and stores each screen (with
// and without colour), with its title and expected status, as a fixture.
// Run it when the pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealKiloScreens -v -timeout 60m
func TestCaptureRealKiloScreens(t *testing.T) { kiloScript(t).capture(t) }

// kiloDone is the footer of Kilo's finished turn: "▣  Code · fake-model · 4.2s".
var kiloDone = openCodeTurnDone("Code")

// kiloScript is OpenCode's capture script with Kilo's start, its agent in
// the finished turn's footer and in the notes, and its logo and title; and
// a draft and a long paste not sent, which the look before a paste must
// read as held (OpenCode's capture does not take them yet: at a load of
// 30 its first answer outlasted the script's patience).
func kiloScript(t *testing.T) captureScript {
	s := scriptOf(t, "opencode")
	s.provider, s.start = "kilo", nil
	s.finished = func(p, _, last string) bool { return openCodeFinishedAs(kiloDone, p, last) }
	notes := map[string]string{}
	for name, note := range s.Notes {
		// The footer "▣  Code · …"; the agent line "┃  Code  · …".
		notes[name] = strings.NewReplacer("▣  Build", "▣  Code", "Build · ", "Code  · ", "the logo", "the Kilo logo, a tip",
			"title 'OpenCode'", "title 'Kilo CLI'").Replace(note)
	}
	s.PastedShown = "[Pasted ~12 lines]"
	notes["completed-draft"] = "an unsent draft in the composer after the last turn: '┃  a draft that is not sent yet'"
	notes["completed-pasted-draft"] = "a long paste not sent yet: the composer shows '[Pasted ~12 lines]'"
	s.Notes = notes
	return fromSubject(s)
}

// Kilo Code in a team (one test: its start costs 20–25 CPU-s): it has no
// command hook (plug-ins, as OpenCode: up says so); it answers a prompt
// dispatched by send, dies, and up restarts it with --continue, which goes
// on with the conversation it had: the prompt shows again. down leaves no
// process behind.
func TestRealTeamResumeOfKilo(t *testing.T) {
	parallel(t)
	tm := startTeam(t, []teamAgentSpec{{role: "analyst", provider: "kilo"}})
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	tm.up(ctx, t, `analyst +%\d+ +kilo .* started .*none \(kilo has no command hook\)`)
	panes := paneIDs(ctx, t, tm.srv)
	tm.models["analyst"].Script(fakemodel.WriteResponse("Hello from the analyst."), fakemodel.Answer("Done."))
	out, errs, code := handoffCLI(ctx, tm.exe, tm.work, "send", "--socket", tm.srv.Socket, "--target", panes["analyst"], "--provider", "kilo",
		"--role", "analyst", "--workdir", tm.work, "--poll", "250ms", "--idle-grace", realkilo.CLI.DispatchGrace().String(), "--timeout", "5m",
		"--prompt", "Say hello as the analyst.")
	if code != 0 || strings.TrimSpace(out) != "Hello from the analyst." {
		t.Fatalf("send: exit %d, stdout %q\n%s", code, out, errs)
	}
	tm.killResumeDown(ctx, t, map[string]string{"analyst": "Say hello as the analyst"}, 3*time.Minute, nil)
}

// TestCaptureRealKiloConfirmation takes Kilo's permission dialog and the
// turn after it in both sizes, waiting as long as a loaded machine needs
// (the capture script gives a dialog 45 s, which Kilo outlasted at a load
// average of 50), and merges them into the manifest:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run TestCaptureRealKiloConfirmation -v -timeout 60m
func TestCaptureRealKiloConfirmation(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture Kilo's permission dialog into %s", captureEnv, kiloScript(t).dir())
	}
	const patient = 5 * time.Minute
	s := kiloScript(t)
	screens := captureSizes(t, s.dir(), func(t *testing.T, c *screenCapturer, w, h int) {
		s.confirm(t, c, s.start(t, w, h, true, fixedRootUnder(t, "/tmp/handoff-e2e-kilo", "ask")), patient)
	})
	writeManifest(t, s.dir(), screens, true)
}

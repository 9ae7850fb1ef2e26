package e2e

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/qwen"
)

// The capture tests of the CLIs that run captureScript.turns: each drives
// the real CLI through every phase its classifier must read, in two pane
// sizes, and stores each screen (with and without colour), with its title
// and expected status, as a fixture. What the screens show is in
// testdata/capture-scripts.json. Run one when its pinned version changes:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run 'TestCaptureScripts/pi$' -v -timeout 30m

// TestCaptureScripts takes each CLI's screens, one subtest per CLI of
// testdata/capture-scripts.json (Kilo Code's capture is its own,
// TestCaptureRealKiloScreens).
func TestCaptureScripts(t *testing.T) {
	for _, name := range slices.Sorted(maps.Keys(captureData(t))) {
		t.Run(name, func(t *testing.T) { scriptOf(t, name).capture(t) })
	}
}

// TestCaptureScriptTerminals takes Gemini CLI's and Qwen Code's screens in
// the terminals of captureTerminals, each into its own folder
// (real-<version>/<name>/, with its manifest); a name after the CLI's
// picks one:
//
//	HANDOFF_CAPTURE=1 go test ./e2e -run 'TestCaptureScriptTerminals/gemini/xterm-256color-default$' -v -timeout 30m
func TestCaptureScriptTerminals(t *testing.T) {
	for _, name := range []string{"gemini", "qwen"} {
		t.Run(name, func(t *testing.T) { scriptOf(t, name).inTerminals(t) })
	}
}

// captureHooks is what a CLI's capture does its own way: how it is
// started (Gemini CLI and Qwen Code in an approval mode), how its phases
// are told apart where its classifier's signals are not read, the screens
// it takes of its own (more). A CLI not here has none of these.
func captureHooks() map[string]captureScript {
	return map[string]captureScript{
		"cline":    {more: captureClineNotice},
		"copilot":  {busy: copilotBusy, finished: copilotFinished, more: copilotMore},
		"gemini":   {startIn: startGemini, autoEdit: "auto_edit", busy: geminiBusy, quiet: geminiQuiet, finished: geminiFinished, more: captureGeminiRetry},
		"opencode": {busy: openCodeBusy, finished: openCodeFinished},
		// Qwen Code's busy line wraps in a narrow pane; the title spins all
		// the same.
		"qwen": {startIn: startQwen, autoEdit: "auto-edit", busy: func(p, title string) bool { return qwenBusy(p) || qwen.TitleSpinning(title) }, finished: qwenFinished},
	}
}

// The capture data names the fixtures it made: every CLI in
// testdata/capture-scripts.json has a live.Subject to start it, and every
// screen it notes is in the committed manifest, Kilo Code's (OpenCode's
// script with Kilo's start) too. (The notes themselves may differ: a manifest's
// note is corrected where a screen turned out other than planned, as
// droid's processing-streaming.) It runs no CLI.
func TestCaptureScriptsNameTheirFixtures(t *testing.T) {
	for _, name := range append(slices.Sorted(maps.Keys(captureData(t))), "kilo") {
		t.Run(name, func(t *testing.T) {
			var s captureScript
			if name == "kilo" {
				s = kiloScript(t)
			} else {
				s = scriptOf(t, name)
			}
			if s.start == nil {
				t.Fatalf("no live.Subject named %q", name)
			}
			dir := filepath.Join("..", s.provider, "testdata", "real-"+s.version)
			taken := map[string]bool{}
			for _, sc := range conformance.LoadScreens(t, dir) {
				taken[strings.TrimSuffix(strings.TrimSuffix(filepath.Base(sc.File), ".txt"), ".plain")] = true
			}
			for screen := range s.Notes {
				if !taken[screen] {
					t.Errorf("%s: noted in the script, not in %s/manifest.json", screen, dir)
				}
			}
		})
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/codex"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
)

// captureMoreEnv turns on TestCaptureMoreRealScreens.
const captureMoreEnv = "HANDOFF_CAPTURE_MORE"

// moreHow starts the manifest's note on how TestCaptureMoreRealScreens
// took a screen; the pane and the config follow.
const moreHow = "TestCaptureMoreRealScreens (e2e/capture_more_test.go), real Codex 0.169 in tmux against internal/fakemodel (OpenAI Responses), capture-pane -p -e -J -S -200, "

// mergeManifest writes items into dir's manifest.json: an entry for the same
// file is replaced, new files are added at the end, the others are kept.
func mergeManifest(t *testing.T, dir string, items []fixture) {
	t.Helper()
	path := filepath.Join(dir, "manifest.json")
	var all []fixture
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &all); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
	}
	for _, it := range items {
		replaced := false
		for i := range all {
			if all[i].File == it.File {
				all[i], replaced = it, true
			}
		}
		if !replaced {
			all = append(all, it)
		}
	}
	b, err := json.MarshalIndent(all, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// modelLine is a readiness check for panes too narrow to show the cwd in
// the status line: the line shows the model.
func modelLine(text, _ string) bool {
	for _, l := range strings.Split(realcli.StripANSI(text), "\n") {
		if strings.Contains(strings.ToLower(l), realcodex.DefaultModel) && strings.Contains(l, " · ") {
			return true
		}
	}
	return false
}

// TestCaptureMoreRealScreens adds screens to the fixtures that
// TestCaptureRealScreens does not take: configuration warnings, the /status
// panel, long wrapped prompts, narrow and wide panes and a resumed session.
// Each screen is checked with the classifier before it is stored, and the
// manifest is merged (entries of other files are kept):
//
//	HANDOFF_CAPTURE_MORE=1 go test ./e2e -run TestCaptureMoreRealScreens -v
func TestCaptureMoreRealScreens(t *testing.T) {
	if os.Getenv(captureMoreEnv) == "" {
		t.Skipf("set %s=1 to capture more real Codex %s screens into %s", captureMoreEnv, realcodex.CLI.Version, fixtureDir())
	}
	c := &capturer{t: t, dir: fixtureDir()}
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer func() { mergeManifest(t, c.dir, c.items) }()
	const short = 20 * time.Second
	// check makes the last screen independent of where the test ran (the
	// cwd wrapped over two lines in narrow panes, CODEX_HOME in the warnings
	// view: the temp root's name becomes a fixed one) and classifies it.
	check := func(r *rig) {
		t.Helper()
		it := c.items[len(c.items)-1]
		path := filepath.Join(c.dir, it.File)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		root := filepath.Base(filepath.Dir(filepath.Dir(r.workdir)))
		b = []byte(strings.ReplaceAll(string(b), root, "TestCaptureMoreRealScreens0"))
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got := codex.Provider().Classify(string(b), it.Title)
		if got.Status != it.Status {
			sig, _ := json.Marshal(got.Signals)
			t.Errorf("%s: classified %q (%s), want %q\nsignals: %s\nscreen:\n%s", it.File, got.Status, got.Reason, it.Status, sig, realcli.StripANSI(string(b)))
		}
	}
	only := os.Getenv("HANDOFF_CAPTURE_ONLY") // a part's name, to capture one part

	part := func(name string) bool { return only == "" || strings.Contains(only, name) }

	// answered has r's model answer prompt with answer and takes the
	// finished turn as name.
	answered := func(r *rig, prompt, answer, name, note string) {
		r.model.Script(fakemodel.Answer(answer))
		r.submit(prompt)
		r.waitScreen(short, "turn finished", func(p, title string) bool { return finished(p, title, answer) })
		c.shotMsg(r, name, handoff.StatusCompleted, note, answer)
		check(r)
	}

	// warned starts Codex in a w×h pane whose config has an unknown
	// top-level key (Codex counts it as a warning in its footer) and takes
	// the fresh screen as name.
	warned := func(w, h int, name, note string) *rig {
		c.how = moreHow + strconv.Itoa(w) + "x" + strconv.Itoa(h) + " pane, config.toml with the unknown top-level key handoff_unknown_key"
		r := newRig(t, realcodex.Options{Common: realcli.Common{Width: w, Height: h}, Ready: modelLine, TopConfig: "handoff_unknown_key = true\n"})
		time.Sleep(800 * time.Millisecond)
		c.shot(r, name, handoff.StatusIdle, note)
		check(r)
		return r
	}

	if part("config") {
		// An unknown key in config.toml: Codex warns about it.
		c.how = moreHow + "120x40 pane, config.toml with the unknown top-level key handoff_unknown_key"
		r := newRig(t, realcodex.Options{TopConfig: "handoff_unknown_key = true\n"})
		time.Sleep(800 * time.Millisecond)
		c.shot(r, "idle-config-warning.txt", handoff.StatusIdle,
			"started with an unknown top-level key in config.toml: Codex's configuration warning on an idle fresh screen")
		check(r)
		answered(r, "Answer once", "Answered despite the warning.", "completed-config-warning.txt",
			"a finished turn in a session started with the configuration warning")
	}

	if part("status") {
		c.how = moreHow + "120x40 pane, default config; /status typed after one turn"
		r := newRig(t, realcodex.Options{})
		r.model.Script(fakemodel.Answer("First answer."))
		r.submit("First question")
		r.waitScreen(short, "turn finished", func(p, title string) bool { return finished(p, title, "First answer.") })
		r.keys("/status")
		time.Sleep(400 * time.Millisecond)
		r.keys("Enter")
		r.waitScreen(short, "status panel", func(p, _ string) bool { return has(p, "Model provider:", "Context window:") })
		time.Sleep(400 * time.Millisecond)
		c.shot(r, "completed-status-panel.txt", handoff.StatusCompleted,
			"the /status panel (a boxed card: model, directory, permissions, account, limits) printed after a finished turn; the slash command is not a user message")
		check(r)
	}

	if part("narrow") {
		// 80x24, the unknown key too: the warning counter has no room
		// next to the footer hint.
		r := warned(80, 24, "idle-narrow-warning.txt",
			"80x24 pane, unknown config key: fresh screen with the warning counter '⚠ 1 warning · f2 to view' in the footer")
		long := "Please read this long request carefully. " + strings.Repeat("It goes on and on so that the composer and the history must wrap it over several lines of a narrow pane. ", 5) + "End of the long request."
		r.model.Script(fakemodel.Answer("Short reply to a long request.").After(4 * time.Second))
		r.submit(long)
		r.waitScreen(short, "Working line", func(p, _ string) bool { return has(p, "esc to interrupt") })
		time.Sleep(time.Second)
		c.shot(r, "processing-narrow-long-prompt.txt", handoff.StatusProcessing,
			"80x24 pane: a long prompt wrapped over many lines, '• Working (Ns • esc to interrupt)' below it, spinner in the title")
		check(r)
		r.waitScreen(short, "turn finished", func(p, title string) bool { return finished(p, title, "Short reply to a long request.") })
		c.shotMsg(r, "completed-narrow-long-prompt.txt", handoff.StatusCompleted,
			"80x24 pane: the long wrapped prompt answered, 'Worked for', composer and the footer with the warning counter", "Short reply to a long request.")
		check(r)
		r.keys("F2")
		time.Sleep(800 * time.Millisecond)
		c.shot(r, "completed-narrow-warnings-view.txt", handoff.StatusCompleted,
			"80x24 pane after F2 ('f2 to view'): the configuration warnings shown, the finished turn still the last word")
		check(r)
	}

	if part("tiny") {
		// 60x20: even less room for the footer and the warning counter.
		r := warned(60, 20, "idle-tiny-warning.txt",
			"60x20 pane, unknown config key: fresh screen; footer hints and the warning counter squeezed (or dropped) under the composer")
		answered(r, "Answer in a tiny pane", "Tiny pane answer.", "completed-tiny-warning.txt",
			"60x20 pane with the configuration warning: a finished turn")
	}

	if part("wide") {
		c.how = moreHow + "220x50 pane, default config"
		r := newRig(t, realcodex.Options{Common: realcli.Common{Width: 220, Height: 50}})
		time.Sleep(800 * time.Millisecond)
		c.shot(r, "idle-wide.txt", handoff.StatusIdle, "220x50 pane: fresh screen, banner, composer, status line")
		check(r)
		long := strings.Repeat("A wide pane still wraps a long enough prompt; this sentence repeats to fill it. ", 6)
		r.model.Script(fakemodel.Streamed(strings.Repeat("A wide streamed answer that fills the long lines of this pane. ", 12), 40, 5*time.Second))
		r.submit(long)
		r.waitScreen(short, "streamed text", func(p, title string) bool { return has(p, "A wide streamed answer") && spinning(title) })
		time.Sleep(time.Second)
		c.shot(r, "processing-wide-streaming.txt", handoff.StatusProcessing,
			"220x50 pane: the answer streams in after a wrapped prompt; only the title's spinner says busy")
		check(r)
		r.waitScreen(short, "turn finished", func(p, title string) bool { return finished(p, title, "lines of this pane.") })
		c.shot(r, "completed-wide.txt", handoff.StatusCompleted, "220x50 pane: the streamed answer finished")
		check(r)
	}

	if part("resume") {
		c.how = moreHow + "120x40 pane; one turn, Codex closed, then started again as `codex resume --last` with the same CODEX_HOME"
		r := newRig(t, realcodex.Options{})
		r.model.Script(fakemodel.Answer("Answer before the restart."))
		r.submit("Question before the restart")
		r.waitScreen(short, "turn finished", func(p, title string) bool { return finished(p, title, "Answer before the restart.") })
		home := r.cli.Home
		if err := r.cli.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := realcodex.Start(context.Background(), realcodex.Options{Common: realcli.Common{Bin: realcodex.CLI.Require(t), Workdir: r.workdir, Home: home, BaseURL: r.model.URL}, Args: []string{"resume", "--last"}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		rr := &rig{t: t, model: r.model, cli: s, workdir: r.workdir, provider: "codex", grace: r.grace}
		rr.waitScreen(short, "resumed conversation", func(p, _ string) bool { return has(p, "Answer before the restart.") })
		time.Sleep(800 * time.Millisecond)
		c.shot(rr, "completed-resumed.txt", handoff.StatusCompleted,
			"'codex resume --last' after a finished turn: the earlier conversation is replayed above a ready composer; its reply is the last word")
		check(rr)
		rr.model.Script(fakemodel.Answer("Answer after the restart.").After(3 * time.Second))
		rr.submit("Question after the restart")
		rr.waitScreen(short, "Working line", func(p, _ string) bool { return has(p, "esc to interrupt") })
		time.Sleep(time.Second)
		c.shot(rr, "processing-resumed.txt", handoff.StatusProcessing, "a turn running in the resumed session")
		check(rr)
		rr.waitScreen(short, "turn finished", func(p, title string) bool { return finished(p, title, "Answer after the restart.") })
		c.shotMsg(rr, "completed-resumed-turn.txt", handoff.StatusCompleted, "a finished turn in the resumed session", "Answer after the restart.")
		check(rr)
	}
}

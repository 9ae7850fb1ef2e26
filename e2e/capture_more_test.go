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
	c := codexCapturer(t, captureMoreEnv, "more")
	defer c.writeManifest()
	m := checked{c}
	const short = 20 * time.Second
	only := os.Getenv("HANDOFF_CAPTURE_ONLY") // a part's name, to capture one part

	part := func(name string) bool { return only == "" || strings.Contains(only, name) }

	// answered has r's model answer prompt with answer and takes the
	// finished turn as name.
	answered := func(prompt, answer, name, note string) captureStep {
		return captureStep{replies: replies(fakemodel.Answer(answer)), prompt: prompt, what: "turn finished", until: finishedWith(answer),
			shot: name, status: handoff.StatusCompleted, note: note, msg: answer}
	}
	// fresh takes a fresh start as name once the start-up art settled.
	fresh := func(name, note string) captureStep {
		return captureStep{settle: 800 * time.Millisecond, shot: name, status: handoff.StatusIdle, note: note}
	}
	working := func(prompt, name, note string) captureStep {
		return captureStep{prompt: prompt, what: "Working line", until: showing("esc to interrupt"), settle: time.Second,
			shot: name, status: handoff.StatusProcessing, note: note}
	}
	// warned starts Codex in a w×h pane whose config has an unknown
	// top-level key (Codex counts it as a warning in its footer).
	warned := func(w, h int) *rig {
		c.how = moreHow + strconv.Itoa(w) + "x" + strconv.Itoa(h) + " pane, config.toml with the unknown top-level key handoff_unknown_key"
		return newRig(t, realcodex.Options{Common: realcli.Common{Width: w, Height: h}, Ready: modelLine, TopConfig: "handoff_unknown_key = true\n"})
	}

	if part("config") {
		// An unknown key in config.toml: Codex warns about it.
		c.how = moreHow + "120x40 pane, config.toml with the unknown top-level key handoff_unknown_key"
		play(m, newRig(t, realcodex.Options{TopConfig: "handoff_unknown_key = true\n"}), short,
			fresh("idle-config-warning.txt", "started with an unknown top-level key in config.toml: Codex's configuration warning on an idle fresh screen"),
			answered("Answer once", "Answered despite the warning.", "completed-config-warning.txt",
				"a finished turn in a session started with the configuration warning"))
	}

	if part("status") {
		c.how = moreHow + "120x40 pane, default config; /status typed after one turn"
		play(m, newRig(t, realcodex.Options{}), short,
			captureStep{replies: replies(fakemodel.Answer("First answer.")), prompt: "First question", what: "turn finished", until: finishedWith("First answer.")},
			captureStep{keys: []string{"/status"}, settle: 400 * time.Millisecond},
			captureStep{keys: []string{"Enter"}, what: "status panel", until: showing("Model provider:", "Context window:"), settle: 400 * time.Millisecond,
				shot: "completed-status-panel.txt", status: handoff.StatusCompleted,
				note: "the /status panel (a boxed card: model, directory, permissions, account, limits) printed after a finished turn; the slash command is not a user message"})
	}

	if part("narrow") {
		// 80x24, the unknown key too: the warning counter has no room
		// next to the footer hint.
		long := "Please read this long request carefully. " + strings.Repeat("It goes on and on so that the composer and the history must wrap it over several lines of a narrow pane. ", 5) + "End of the long request."
		play(m, warned(80, 24), short,
			fresh("idle-narrow-warning.txt", "80x24 pane, unknown config key: fresh screen with the warning counter '⚠ 1 warning · f2 to view' in the footer"),
			captureStep{replies: replies(fakemodel.Answer("Short reply to a long request.").After(4 * time.Second))},
			working(long, "processing-narrow-long-prompt.txt",
				"80x24 pane: a long prompt wrapped over many lines, '• Working (Ns • esc to interrupt)' below it, spinner in the title"),
			captureStep{what: "turn finished", until: finishedWith("Short reply to a long request."), shot: "completed-narrow-long-prompt.txt", status: handoff.StatusCompleted,
				note: "80x24 pane: the long wrapped prompt answered, 'Worked for', composer and the footer with the warning counter", msg: "Short reply to a long request."},
			captureStep{keys: []string{"F2"}, settle: 800 * time.Millisecond, shot: "completed-narrow-warnings-view.txt", status: handoff.StatusCompleted,
				note: "80x24 pane after F2 ('f2 to view'): the configuration warnings shown, the finished turn still the last word"})
	}

	if part("tiny") {
		// 60x20: even less room for the footer and the warning counter.
		play(m, warned(60, 20), short,
			fresh("idle-tiny-warning.txt", "60x20 pane, unknown config key: fresh screen; footer hints and the warning counter squeezed (or dropped) under the composer"),
			answered("Answer in a tiny pane", "Tiny pane answer.", "completed-tiny-warning.txt", "60x20 pane with the configuration warning: a finished turn"))
	}

	if part("wide") {
		c.how = moreHow + "220x50 pane, default config"
		long := strings.Repeat("A wide pane still wraps a long enough prompt; this sentence repeats to fill it. ", 6)
		play(m, newRig(t, realcodex.Options{Common: realcli.Common{Width: 220, Height: 50}}), short,
			fresh("idle-wide.txt", "220x50 pane: fresh screen, banner, composer, status line"),
			captureStep{replies: replies(fakemodel.Streamed(strings.Repeat("A wide streamed answer that fills the long lines of this pane. ", 12), 40, 5*time.Second)),
				prompt: long, what: "streamed text", until: func(p, title string) bool { return has(p, "A wide streamed answer") && spinning(title) }, settle: time.Second,
				shot: "processing-wide-streaming.txt", status: handoff.StatusProcessing,
				note: "220x50 pane: the answer streams in after a wrapped prompt; only the title's spinner says busy"},
			captureStep{what: "turn finished", until: finishedWith("lines of this pane."), shot: "completed-wide.txt", status: handoff.StatusCompleted,
				note: "220x50 pane: the streamed answer finished"})
	}

	if part("resume") {
		c.how = moreHow + "120x40 pane; one turn, Codex closed, then started again as `codex resume --last` with the same CODEX_HOME"
		r := newRig(t, realcodex.Options{})
		play(m, r, short, captureStep{replies: replies(fakemodel.Answer("Answer before the restart.")), prompt: "Question before the restart",
			what: "turn finished", until: finishedWith("Answer before the restart.")})
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
		play(m, rr, short,
			captureStep{what: "resumed conversation", until: showing("Answer before the restart."), settle: 800 * time.Millisecond,
				shot: "completed-resumed.txt", status: handoff.StatusCompleted,
				note: "'codex resume --last' after a finished turn: the earlier conversation is replayed above a ready composer; its reply is the last word"},
			captureStep{replies: replies(fakemodel.Answer("Answer after the restart.").After(3 * time.Second))},
			working("Question after the restart", "processing-resumed.txt", "a turn running in the resumed session"),
			captureStep{what: "turn finished", until: finishedWith("Answer after the restart."), shot: "completed-resumed-turn.txt", status: handoff.StatusCompleted,
				note: "a finished turn in the resumed session", msg: "Answer after the restart."})
	}
}

// checked is a Codex capturer that checks every screen it takes: the
// screen is made independent of where the test ran (the cwd wrapped over
// two lines in narrow panes, CODEX_HOME in the warnings view: the temp
// root's name becomes a fixed one) and classified as its manifest says.
type checked struct{ c *capturer }

// take is capturer.take, then the check.
func (m checked) take(r *rig, name string, status handoff.Status, note, msg, detail string) {
	c, t := m.c, m.c.t
	t.Helper()
	c.take(r, name, status, note, msg, detail)
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

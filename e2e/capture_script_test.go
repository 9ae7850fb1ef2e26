package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// captureScript is what differs between CLIs when their real screens are
// captured: what each screen shows (data, in testdata/capture-scripts.json),
// what a CLI does its own way (captureHooks), the rest from its
// live.Subject (see fromSubject). turns, the script itself, is written
// once; a new provider adds an entry to the data, not another copy.
type captureScript struct {
	// provider names the CLI. Its live.Subject gives the version (the
	// fixtures' folder is <provider>/testdata/real-<version>,
	// HANDOFF_CAPTURE_DIR wins), the failed request (apiError, its first
	// API error) and the key that approves a command (approve).
	provider, version string
	// start runs the CLI in a w×h pane with its work folder and HOME under
	// root; ask starts it in the mode that asks before running a command.
	// Unset, the subject starts it (subjectRig).
	start func(t *testing.T, w, h int, ask bool, root string) *rig
	// busy reports a running turn; quiet reports that nothing runs (unset,
	// not busy); finished reports a turn that ended with the message last.
	// Without busy, the CLI's classifier's signals say (turnSignals).
	busy, quiet func(plain, title string) bool
	finished    func(plain, title, last string) bool
	// apiError is the failed request the CLI shows at once; approve is
	// the key that allows a command.
	apiError fakemodel.Reply
	approve  string
	// captureTexts is what the screens show and are, from
	// testdata/capture-scripts.json.
	captureTexts
	// more, when set, takes the CLI's own screens on the same rig after the
	// turn that follows the error, before the interrupted stream.
	more func(t *testing.T, s captureScript, c *screenCapturer, r *rig)
	// sub, when set, is a subfolder of the fixtures' folder for screens
	// taken in another environment (a terminal, an approval mode), with a
	// manifest of its own; captured then says how on every screen.
	sub, captured string
	// startIn, for a CLI with approval modes (Gemini CLI, Qwen Code),
	// starts it in an environment (see in); autoEdit is the name of its
	// auto-edit mode.
	startIn  approvalStart
	autoEdit string
}

// captureTexts is what a CLI's screens show in the script's phases, and
// what each screen is: data, one entry a CLI in
// testdata/capture-scripts.json (see scriptOf).
type captureTexts struct {
	// ErrorShown is on the screen once the failed request is shown;
	// ErrorDetail is what the classifier's Detail quotes then (unset, the
	// subject's).
	ErrorShown  string `json:"error_shown"`
	ErrorDetail string `json:"error_detail,omitempty"`
	// DialogShown is on the screen while the CLI (started to ask) asks
	// about a shell command.
	DialogShown string `json:"dialog_shown"`
	// PastedShown, when set, is what the composer shows for a long paste
	// not sent yet; the script then also takes unsent drafts.
	PastedShown string `json:"pasted_shown,omitempty"`
	// SlowShell is a shell command that takes about 6 s and ends with
	// "echo slept" (some CLIs refuse a command that starts with sleep);
	// unset, "sleep 6; echo slept".
	SlowShell string `json:"slow_shell,omitempty"`
	// NoInterrupt leaves out the stream interrupted with Esc (OpenCode's
	// reads as an error: docs/providers.md says why).
	NoInterrupt bool `json:"no_interrupt,omitempty"`
	// Notes says, per screen name, what the screen shows (the manifest's
	// note). Every screen the script takes must have one.
	Notes map[string]string `json:"notes"`
}

// captureFile holds every CLI's captureTexts, by provider name.
const captureFile = "testdata/capture-scripts.json"

// captureData reads captureFile.
func captureData(t *testing.T) map[string]captureTexts {
	t.Helper()
	b, err := os.ReadFile(captureFile)
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]captureTexts
	if err := json.Unmarshal(b, &all); err != nil {
		t.Fatalf("%s: %v", captureFile, err)
	}
	return all
}

// scriptOf is the named CLI's capture script: its texts from
// testdata/capture-scripts.json, what it does its own way from
// captureHooks, the rest from its live.Subject.
func scriptOf(t *testing.T, name string) captureScript {
	t.Helper()
	texts, ok := captureData(t)[name]
	if !ok {
		t.Fatalf("%s has no capture script for %s", captureFile, name)
	}
	s := captureHooks()[name]
	s.provider, s.captureTexts = name, texts
	return fromSubject(s)
}

// fromSubject is s with what it leaves unset taken from its provider's
// live.Subject, the descriptor the conformance cases and doctor drive the
// CLI with: so what a capture starts, fails and approves is what those
// cases do. A provider without a subject keeps its zero start, which
// capture reports.
func fromSubject(s captureScript) captureScript {
	sub, ok := live.Find(s.provider)
	if !ok {
		return s
	}
	s.version, s.approve = sub.CLI.Version, sub.Approve
	s.apiError = sub.APIErrors[0].Replies[0]
	if s.ErrorDetail == "" {
		s.ErrorDetail = sub.APIErrors[0].Detail
	}
	if s.SlowShell == "" {
		s.SlowShell = "sleep 6; echo slept"
	}
	if s.startIn != nil {
		s = s.in(terminalEnv{})
	}
	if s.start == nil {
		s.start = func(t *testing.T, w, h int, ask bool, root string) *rig {
			return subjectRig(t, sub, realcli.Common{Width: w, Height: h}, live.Setup{Ask: ask}, root)
		}
	}
	if s.busy == nil {
		name := s.provider
		s.busy = func(p, _ string) bool { return readSignals(name, p).busy() }
		s.finished = func(p, _, last string) bool { return readSignals(name, p).finished(p, last) }
	}
	if busy := s.busy; s.quiet == nil {
		s.quiet = func(p, title string) bool { return !busy(p, title) }
	}
	return s
}

// subjectRig starts the CLI of sub, set up as setup asks, on a fake model
// of its API, in common's pane with the work folder and HOME under root.
// Everything ends in t.Cleanup.
func subjectRig(t *testing.T, sub live.Subject, common realcli.Common, setup live.Setup, root string) *rig {
	t.Helper()
	r := startRig(t, sub.CLI, sub.API, root, &common,
		func(ctx context.Context) (*realcli.Session, error) { return sub.Start(ctx, common, setup) })
	if sub.Prepare != nil {
		// The side call it answers (a session's title) comes with the
		// first prompt, after the start.
		sub.Prepare(r.model)
	}
	return r
}

// turnSignals is what the capture's waits read of a classifier's signals
// (pi, Kimi Code, OMP, Cline, droid), in their JSON form (the one a trace
// shows): the busy line, droid's steer placeholder, the chrome.
type turnSignals struct {
	BusyLine int    `json:"busy_line"`
	Steer    bool   `json:"steer"`
	Chrome   string `json:"chrome"`
}

// readSignals classifies a plain screen with the named provider.
func readSignals(name, plain string) turnSignals {
	var s turnSignals
	p, ok := provider.Find(name)
	if !ok {
		return s
	}
	b, err := json.Marshal(p.Classify(plain, "").Signals)
	if err == nil {
		_ = json.Unmarshal(b, &s)
	}
	return s
}

// busy: the busy line above the composer, or droid's steer placeholder.
func (s turnSignals) busy() bool { return s.BusyLine != 0 || s.Steer }

// finished: a turn that ended with last on the screen: nothing busy, the
// composer ready.
func (s turnSignals) finished(plain, last string) bool {
	return !s.busy() && s.Chrome == screen.ChromeComposer && strings.Contains(plain, last)
}

// dir is where the screens go.
func (s captureScript) dir() string {
	d := os.Getenv("HANDOFF_CAPTURE_DIR")
	if d == "" {
		d = filepath.Join("..", s.provider, "testdata", "real-"+s.version)
	}
	return filepath.Join(d, s.sub)
}

// capture runs the script in both pane sizes and writes the manifest. It
// runs only with HANDOFF_CAPTURE=1: when the pinned version changes.
func (s captureScript) capture(t *testing.T) {
	if s.start == nil {
		t.Fatalf("no live.Subject named %q starts the capture", s.provider)
	}
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real %s %s screens into %s", captureEnv, s.provider, s.version, s.dir())
	}
	screens := captureSizes(t, s.dir(), s.turns)
	for i := range screens {
		screens[i].Captured = s.captured
	}
	writeManifest(t, s.dir(), screens, false)
}

// shot captures r's pane as name, with the script's note for it.
func (s captureScript) shot(c *screenCapturer, r *rig, name string, status handoff.Status, extra ...string) {
	c.t.Helper()
	note, ok := s.Notes[name]
	if !ok {
		c.t.Fatalf("the capture script has no note for %s", name)
	}
	c.shot(r, name, status, note, extra...)
}

// noted takes a script's screens with the script's notes.
type noted struct {
	s captureScript
	c *screenCapturer
}

// take is captureScript.shot for play: the note is the script's.
func (n noted) take(r *rig, name string, status handoff.Status, _, msg, detail string) {
	n.c.t.Helper()
	n.s.shot(n.c, r, name, status, msg, detail)
}

// turns drives one CLI through the phases every classifier must read: a
// fresh start, a slow first byte, streaming, a tool, a response file
// written before the turn ends, an API error and the turn after it, an
// interrupted stream, then (in the mode that asks) a confirmation dialog.
func (s captureScript) turns(t *testing.T, c *screenCapturer, w, h int) {
	const short = 45 * time.Second
	// A fixed work folder: the CLI may show (and wrap) its path.
	root := func(name string) string { return fixedRootUnder(t, "/tmp/handoff-e2e-"+s.provider, name) }
	done := func(last string) func(p, title string) bool {
		return func(p, title string) bool { return s.finished(p, title, last) }
	}
	n := noted{s, c}

	r := s.start(t, w, h, false, root("main"))
	play(n, r, short,
		captureStep{shot: "idle-fresh", status: handoff.StatusIdle},
		captureStep{replies: replies(fakemodel.Answer("Hello after a slow start.").After(8 * time.Second)), prompt: "Say hello, slowly",
			what: "spinner", until: s.busy, settle: 300 * time.Millisecond, shot: "processing-first-byte", status: handoff.StatusProcessing},
		captureStep{settle: 3 * time.Second, shot: "processing-waiting", status: handoff.StatusProcessing},
		captureStep{what: "first turn finished", until: done("Hello after a slow start."), shot: "completed-answer", status: handoff.StatusCompleted,
			msg: "Hello after a slow start."})

	streamed := strings.Repeat("Streaming a long answer, chunk by chunk, so the screen can be read while it grows. ", 4)
	const streaming = 10 * time.Second
	submitted := time.Now()
	play(n, r, short, captureStep{replies: replies(fakemodel.Streamed(streamed, 60, streaming)), prompt: "Write a long answer",
		what: "streamed text", until: showing("Streaming a long answer, chunk"), settle: 2 * time.Second,
		shot: "processing-streaming", status: handoff.StatusProcessing})
	// Some CLIs hide their busy line for a moment while a long reply
	// streams: the end is not looked for before the last chunk is sent.
	time.Sleep(time.Until(submitted.Add(streaming)))
	r.waitScreen(time.Minute, "streaming turn finished", func(p, title string) bool {
		return s.finished(p, title, "Streaming a long answer") && s.quiet(p, title)
	})
	// Qwen Code in a short pane may leave the finished reply cut where its
	// viewport ended: the manifest gives the message only when the screen
	// shows all of it (each of its sentences ends in "grows.").
	msg := strings.TrimSpace(streamed)
	all := func(p, _ string) bool { return strings.Count(p, "grows.") >= strings.Count(streamed, "grows.") }
	if !r.shows(5*time.Second, all) {
		msg = ""
		c.t.Logf("completed-streamed: the screen shows the reply cut; taken without its message")
	}
	s.shot(c, r, "completed-streamed", handoff.StatusCompleted, msg)

	// The response file is written before the turn ends.
	path := testkit.ResponseFile(t, r.workdir, "analyst")
	play(n, r, short,
		captureStep{replies: replies(fakemodel.Shell(s.SlowShell, "Wait a while"), fakemodel.Answer("The command finished.")), prompt: "Run a slow command",
			what: "tool running", until: func(p, title string) bool { return has(p, "echo slept") && s.busy(p, title) }, settle: 2 * time.Second,
			shot: "processing-tool", status: handoff.StatusProcessing},
		captureStep{what: "tool turn finished", until: done("The command finished."), shot: "completed-tool", status: handoff.StatusCompleted,
			msg: "The command finished."},
		captureStep{replies: replies(fakemodel.WriteResponse("The analysis is complete."), fakemodel.Answer("I wrote the response file.").After(6*time.Second)),
			prompt: handoff.WithInstruction("Analyse the project.", path, captureReceipt),
			what:   "response file", until: func(string, string) bool { return fileWritten(path) }, settle: 1500 * time.Millisecond,
			shot: "processing-after-file", status: handoff.StatusProcessing},
		captureStep{what: "file turn finished", until: done("I wrote the response file."), shot: "completed-after-file", status: handoff.StatusCompleted,
			msg: "I wrote the response file."},
		captureStep{replies: replies(s.apiError), prompt: "This request fails: http-400",
			what: "error", until: func(p, title string) bool { return has(p, s.ErrorShown) && s.quiet(p, title) }, settle: 500 * time.Millisecond,
			shot: "error-api-400", status: handoff.StatusError, detail: s.ErrorDetail},
		// A successful turn after an error: the error is history now.
		captureStep{replies: replies(fakemodel.Answer("Back to normal.")), prompt: "Try again", what: "turn after error", until: done("Back to normal."),
			shot: "completed-after-error", status: handoff.StatusCompleted, msg: "Back to normal."})

	if s.more != nil {
		s.more(t, s, c, r)
	}
	if !s.NoInterrupt {
		// Sentences that do not repeat: droid drops a reply that repeats
		// a short sentence over and over, and asks the model again.
		play(n, r, short,
			captureStep{replies: replies(fakemodel.Streamed("A partial answer that is cut short. It goes on about one thing, then another, and a third; "+
				"a fourth follows, and a fifth one closes the list of things it goes on about while it streams in slowly, word by word, "+
				"over several seconds, until the user stops it.", 60, 15*time.Second)),
				prompt: "This turn gets interrupted while streaming", what: "streamed text", until: showing("A partial answer"), settle: 1500 * time.Millisecond},
			// Esc: the partial answer stays.
			captureStep{keys: []string{"Escape"}, what: "interrupted", until: s.quiet, clear: true, settle: time.Second,
				shot: "interrupted-streaming", status: handoff.StatusCompleted})
	}
	if s.PastedShown != "" {
		// An unsent draft in the composer, then a long pasted one.
		play(n, r, short,
			captureStep{paste: "a draft that is not sent yet", what: "draft", until: showing("a draft that is not sent yet"), settle: 500 * time.Millisecond,
				shot: "completed-draft", status: handoff.StatusCompleted},
			captureStep{keys: []string{"C-u"}, settle: 500 * time.Millisecond},
			captureStep{paste: strings.Repeat("A long pasted prompt line.\n", 12), what: "pasted text", until: showing(s.PastedShown), settle: 500 * time.Millisecond,
				shot: "completed-pasted-draft", status: handoff.StatusCompleted})
	}
	s.confirm(t, c, s.start(t, w, h, true, root("ask")), short)
}

// confirm takes, on a rig started to ask, the dialog before a command
// that writes a marker file, allows it and takes the finished turn; each
// wait lasts up to patience.
func (s captureScript) confirm(t *testing.T, c *screenCapturer, a *rig, patience time.Duration) {
	play(noted{s, c}, a, patience,
		captureStep{replies: replies(fakemodel.Shell("echo hi > "+filepath.Join(a.workdir, "approved.txt"), "Write a marker file"), fakemodel.Answer("Wrote the marker file.")),
			prompt: "Write a marker file", what: "confirmation", until: showing(s.DialogShown), settle: time.Second,
			shot: "waiting-confirmation", status: handoff.StatusWaitingUserAnswer},
		captureStep{keys: []string{s.approve}, what: "approved turn finished", until: func(p, title string) bool { return s.finished(p, title, "Wrote the marker file.") },
			shot: "completed-after-confirmation", status: handoff.StatusCompleted, msg: "Wrote the marker file."})
}

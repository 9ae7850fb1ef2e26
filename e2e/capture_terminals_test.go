package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcline"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/internal/realpi"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// termProfile is what the terminal and mode capture needs of one CLI. Its
// waits read the screen's text only (never the classifier under test): a
// classifier that misreads a terminal must not stop the capture that shows
// it.
type termProfile struct {
	provider, version string
	// start runs the CLI in a w×h pane told it runs in term, in the
	// approval mode given ("" the harness's default, askMode the one that
	// asks before a command).
	start func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig
	// askMode is the mode that asks before a shell command; modes are the
	// modes users run the CLI in.
	askMode string
	modes   []string
	busy    func(plain, title string) bool
	// finished reports a turn that ended with last on the screen.
	finished func(plain, title, last string) bool
	// shell is a command of about 5 s ending in "echo slept" for mode
	// ("" the default), as a model reply (in a mode that may ask, one it
	// asks for); toolShown is on the screen while it runs.
	shell     func(r *rig, mode string) fakemodel.Reply
	toolShown string
	// apiError is a failed request shown at once; errorShown is then on
	// the screen, errorDetail starts the classifier's Detail.
	apiError                fakemodel.Reply
	errorShown, errorDetail string
	// dialogShown is on the screen while a command waits for approval;
	// approve is the key that allows it.
	dialogShown, approve string
}

// termSize is the pane of the terminal and mode captures: the narrow one,
// where lines wrap and footers are cut.
var termSize = [2]int{80, 24}

// TestCaptureTerminals drives each real CLI through its main phases in
// every terminal of realcli.Terminals, and in each approval mode its users
// run it in, and stores the screens (with and without colour) in
// <provider>/testdata/real-<version>/term-<terminal> and mode-<mode>, each
// folder with its manifest: the providers' real-screen tests read them
// (conformance.Dirs). HANDOFF_CAPTURE_CLI picks CLIs (codex, claude,
// opencode, pi, droid, copilot, cline, kimi, omp, comma-separated; all by default), HANDOFF_CAPTURE_ONLY folders by name:
//
//	HANDOFF_CAPTURE=1 HANDOFF_CAPTURE_CLI=pi go test ./e2e -run TestCaptureTerminals -v -timeout 60m
func TestCaptureTerminals(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real screens per terminal and approval mode", captureEnv)
	}
	clis := os.Getenv("HANDOFF_CAPTURE_CLI")
	only := os.Getenv("HANDOFF_CAPTURE_ONLY")
	for _, p := range []termProfile{codexTerms, claudeTerms, openCodeTerms, piTerms, droidTerms, copilotTerms, clineTerms, kimiTerms, ompTerms} {
		// Names, not substrings: "copilot" holds "pi".
		if clis != "" && !slices.Contains(strings.FieldsFunc(clis, func(r rune) bool { return r == ',' || r == ' ' }), p.provider) {
			continue
		}
		t.Run(p.provider, func(t *testing.T) {
			base := filepath.Join("..", p.provider, "testdata", "real-"+p.version)
			for _, term := range realcli.Terminals {
				folder := "term-" + term.Name()
				if only != "" && !strings.Contains(only, folder) {
					continue
				}
				t.Run(folder, func(t *testing.T) {
					p.captureTerminal(t, filepath.Join(base, folder), term)
				})
			}
			for _, mode := range p.modes {
				folder := "mode-" + mode
				if only != "" && !strings.Contains(only, folder) {
					continue
				}
				t.Run(folder, func(t *testing.T) {
					p.captureMode(t, filepath.Join(base, folder), mode)
				})
			}
		})
	}
}

// userTerminal is the terminal of the mode captures: a tmux pane as tmux
// starts it, without COLORTERM.
var userTerminal = realcli.Terminals[0]

func (p termProfile) root(t *testing.T, name string) string {
	return fixedRootUnder(t, "/tmp/handoff-e2e-"+p.provider+"-terms", name)
}

func (p termProfile) capturer(t *testing.T, dir string) *screenCapturer {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return &screenCapturer{t: t, dir: dir, size: fmt.Sprintf("%dx%d", termSize[0], termSize[1])}
}

// captureTerminal takes a fresh start, a turn waiting for its first byte
// and its answer, a running tool and its end, an API error and the turn
// after it, then (in the mode that asks) a command waiting for approval
// and the turn after it.
func (p termProfile) captureTerminal(t *testing.T, dir string, term realcli.Terminal) {
	const short = 45 * time.Second
	c := p.capturer(t, dir)
	defer func() { writeManifest(t, dir, c.items, false) }()
	in := " (" + describe(term) + ")"
	w, h := termSize[0], termSize[1]

	r := p.start(t, w, h, "", term, p.root(t, "main"))
	p.settle(c, r, in)
	c.shot(r, "idle-fresh", handoff.StatusIdle, "fresh start, empty composer"+in)

	r.model.Script(fakemodel.Answer("Hello after a slow start.").After(6 * time.Second))
	r.submit("Say hello, slowly")
	r.waitScreen(short, "busy", p.busy)
	time.Sleep(1500 * time.Millisecond)
	holds(r, "busy", p.busy)
	c.shot(r, "processing-first-byte", handoff.StatusProcessing, "request sent, no byte back yet"+in)
	r.waitScreen(short, "first turn finished", func(pl, title string) bool { return p.finished(pl, title, "Hello after a slow start.") })
	c.shot(r, "completed-answer", handoff.StatusCompleted, "plain answer finished"+in, "Hello after a slow start.")

	r.model.Script(p.shell(r, ""), fakemodel.Answer("The command finished."))
	r.submit("Run a slow command")
	running := func(pl, title string) bool { return has(pl, p.toolShown) && p.busy(pl, title) }
	r.waitScreen(short, "tool running", running)
	time.Sleep(1500 * time.Millisecond)
	holds(r, "tool running", running)
	c.shot(r, "processing-tool", handoff.StatusProcessing, "a shell command running"+in)
	r.waitScreen(short, "tool turn finished", func(pl, title string) bool { return p.finished(pl, title, "The command finished.") })
	c.shot(r, "completed-tool", handoff.StatusCompleted, "after the command, the final message"+in, "The command finished.")

	r.model.Script(p.apiError)
	r.submit("This request fails")
	r.waitScreen(short, "error", func(pl, title string) bool { return has(pl, p.errorShown) && !p.busy(pl, title) })
	time.Sleep(time.Second)
	c.shot(r, "error-api", handoff.StatusError, "the request failed: the API error is the turn's end"+in, "", p.errorDetail)

	r.model.Script(fakemodel.Answer("Back to normal."))
	r.submit("Try again")
	r.waitScreen(short, "turn after error", func(pl, title string) bool { return p.finished(pl, title, "Back to normal.") })
	c.shot(r, "completed-after-error", handoff.StatusCompleted, "a finished turn below an earlier API error"+in, "Back to normal.")

	a := p.start(t, w, h, p.askMode, term, p.root(t, "ask"))
	p.confirm(t, c, a, in)
}

// confirm runs a command that asks for approval, takes the dialog, allows
// it and takes the finished turn.
func (p termProfile) confirm(t *testing.T, c *screenCapturer, a *rig, in string) {
	const short = 45 * time.Second
	a.model.Script(p.shell(a, p.askMode), fakemodel.Answer("The command finished."))
	a.submit("Run a slow command")
	asking := func(pl, _ string) bool { return has(pl, p.dialogShown) }
	a.waitScreen(short, "confirmation", asking)
	time.Sleep(time.Second)
	holds(a, "confirmation", asking)
	c.shot(a, "waiting-confirmation", handoff.StatusWaitingUserAnswer, "the command waits for approval"+in)
	a.keys(p.approve)
	a.waitScreen(short, "approved turn finished", func(pl, title string) bool { return p.finished(pl, title, "The command finished.") })
	c.shot(a, "completed-after-confirmation", handoff.StatusCompleted, "after allowing: the command ran, final message"+in, "The command finished.")
}

// captureMode takes a fresh start in mode, then a command: its approval
// dialog if the mode asks, else the command running; then the end.
func (p termProfile) captureMode(t *testing.T, dir, mode string) {
	const short = 45 * time.Second
	c := p.capturer(t, dir)
	defer func() { writeManifest(t, dir, c.items, false) }()
	in := " (mode " + mode + ", " + describe(userTerminal) + ")"
	r := p.start(t, termSize[0], termSize[1], mode, userTerminal, p.root(t, "mode"))
	p.settle(c, r, in)
	c.shot(r, "idle-fresh", handoff.StatusIdle, "fresh start, empty composer"+in)
	r.model.Script(p.shell(r, mode), fakemodel.Answer("The command finished."))
	r.submit("Run a slow command")
	r.waitScreen(short, "command", func(pl, title string) bool {
		return has(pl, p.dialogShown) || (has(pl, p.toolShown) && p.busy(pl, title))
	})
	// A dialog can follow the command's first busy frame.
	time.Sleep(2 * time.Second)
	text, _, err := r.cli.CapturePlain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if has(text, p.dialogShown) {
		c.shot(r, "waiting-confirmation", handoff.StatusWaitingUserAnswer, "the command waits for approval"+in)
		r.keys(p.approve)
	} else {
		holds(r, "command running", func(pl, title string) bool { return has(pl, p.toolShown) && p.busy(pl, title) })
		c.shot(r, "processing-tool", handoff.StatusProcessing, "the command runs without asking"+in)
		// On a loaded machine the dialog may come later than the look
		// above (Copilot CLI draws the command's cell first).
		r.waitScreen(short, "turn finished or a dialog", func(pl, title string) bool {
			return has(pl, p.dialogShown) || p.finished(pl, title, "The command finished.")
		})
		if text, _, err = r.cli.CapturePlain(context.Background()); err != nil {
			t.Fatal(err)
		}
		if has(text, p.dialogShown) {
			c.shot(r, "waiting-confirmation", handoff.StatusWaitingUserAnswer, "the command waits for approval"+in)
			r.keys(p.approve)
		}
	}
	r.waitScreen(short, "turn finished", func(pl, title string) bool { return p.finished(pl, title, "The command finished.") })
	c.shot(r, "completed-tool", handoff.StatusCompleted, "after the command, the final message"+in, "The command finished.")
}

// settle waits until a fresh start no longer looks busy: Codex spins its
// title for a moment after its composer shows (a screen that is not idle
// yet, taken as processing-starting when caught).
func (p termProfile) settle(c *screenCapturer, r *rig, in string) {
	text, title, err := r.cli.CapturePlain(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	if p.busy(text, title) {
		c.shot(r, "processing-starting", handoff.StatusProcessing, "fresh start, still starting: the composer shows but the CLI says it is busy"+in)
	}
	r.waitScreen(45*time.Second, "a quiet start", func(pl, title string) bool { return !p.busy(pl, title) })
	time.Sleep(500 * time.Millisecond)
	holds(r, "a quiet start", func(pl, title string) bool { return !p.busy(pl, title) })
}

// holds fails the capture unless cond still holds: a phase that ended
// while the capture waited must not be stored under its name.
func holds(r *rig, what string, cond func(plain, title string) bool) {
	r.t.Helper()
	text, title, err := r.cli.CapturePlain(context.Background())
	if err != nil {
		r.t.Fatal(err)
	}
	if !cond(text, title) {
		r.fail("%s no longer on the screen", what)
	}
}

// describe says what a terminal sets, for the manifest's notes.
func describe(t realcli.Terminal) string {
	t = t.OrDefault()
	s := "TERM=" + t.Term
	if t.ColorTerm != "" {
		s += " COLORTERM=" + t.ColorTerm
	} else {
		s += ", no COLORTERM"
	}
	if t.NoColor {
		s += ", NO_COLOR=1"
	}
	return s
}

var codexTerms = termProfile{
	provider: "codex", version: "0.169",
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		opts := realcodex.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Mode: mode}
		if mode == "ask" {
			opts = realcodex.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}
		}
		// The status line cannot show the whole work folder at 80 columns.
		opts.Ready = modelLine
		return newCodexRigAt(t, opts, root)
	},
	askMode: "ask",
	modes:   []string{realcodex.ModeBypass, realcodex.ModeApproveForMe, realcodex.ModeDefault},
	busy: func(p, title string) bool {
		return spinning(title) || has(p, "esc to interrupt")
	},
	finished: finished,
	// An escalated command where Codex may ask (bypassing, it refuses
	// one without showing it).
	shell: func(r *rig, mode string) fakemodel.Reply {
		s := fakemodel.Shell("sleep 5; echo slept", "").In(r.workdir)
		if mode == "ask" || mode == realcodex.ModeDefault {
			s = s.Escalated("Run a slow command?")
		}
		return s
	},
	// Codex runs the command as a background terminal: its text shows
	// once it ended.
	toolShown:   "background terminal",
	apiError:    fakemodel.HTTPError(500, "server_error", "fake internal error"),
	errorShown:  "■",
	dialogShown: "Would you like to run the following command?",
	approve:     "y",
}

var claudeTerms = termProfile{
	provider: "claude", version: realclaude.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		return newClaudeRigAt(t, realclaude.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Permissions: mode}, root)
	},
	askMode:  realclaude.Ask,
	modes:    []string{realclaude.Bypass, realclaude.AcceptEdits, realclaude.Ask},
	busy:     func(p, _ string) bool { return has(p, "esc to interrupt") },
	finished: func(p, _, last string) bool { return claudeFinished(p, last) },
	// Claude Code runs read-only commands (sleep, echo) without asking:
	// where it may ask, the command writes a file.
	shell: func(r *rig, mode string) fakemodel.Reply {
		if mode != "" && mode != realclaude.Bypass {
			return fakemodel.Shell("sleep 5; echo slept > "+filepath.Join(r.workdir, "approved.txt"), "Write a marker file")
		}
		return fakemodel.Shell("sleep 5; echo slept", "Sleep a while")
	},
	toolShown:   "echo slept",
	apiError:    fakemodel.ServerError(),
	errorShown:  "API Error: 500",
	errorDetail: "API Error: 500",
	dialogShown: "Do you want to proceed?",
	approve:     "1",
}

// OpenCode's modes: bash allowed in its config (the harness's default),
// asked for, and --auto with bash asked for (so the flag is what grants
// it).
const (
	openCodeAllow = "allow"
	openCodeAsk   = "ask"
	openCodeAuto  = "auto"
)

var openCodeTerms = termProfile{
	provider: "opencode", version: realopencode.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		opts := realopencode.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == openCodeAsk || mode == openCodeAuto, Auto: mode == openCodeAuto}
		return newOpenCodeRigAt(t, opts, root)
	},
	askMode:     openCodeAsk,
	modes:       []string{openCodeAllow, openCodeAsk, openCodeAuto},
	busy:        func(p, _ string) bool { return openCodeBusy(p) },
	finished:    func(p, _, last string) bool { return openCodeFinished(p, last) },
	shell:       func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") },
	toolShown:   "echo slept",
	apiError:    openCodeCapture.apiError,
	errorShown:  openCodeCapture.errorShown,
	errorDetail: openCodeCapture.errorDetail,
	dialogShown: openCodeCapture.dialogShown,
	approve:     openCodeCapture.approve,
}

// piAsk is pi with the asking extension (pi itself never asks).
const piAsk = "ask"

var piTerms = termProfile{
	provider: "pi", version: realpi.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		return newPiRigAt(t, realpi.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == piAsk}, root)
	},
	askMode: piAsk,
	// The working line, read as text.
	busy: func(p, _ string) bool { return has(p, "Working...") },
	finished: func(p, _, last string) bool {
		return has(p, last) && !has(p, "Working...") && strings.LastIndex(p, last) > strings.LastIndex(p, "Run a slow command")
	},
	shell:       func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") },
	toolShown:   "echo slept",
	apiError:    piCapture.apiError,
	errorShown:  piCapture.errorShown,
	errorDetail: piCapture.errorDetail,
	dialogShown: piCapture.dialogShown,
	approve:     piCapture.approve,
}

// droidAsk and droidHigh are droid's autonomy levels tried: Off (its
// default, every command asked for) and --auto high.
const (
	droidAsk  = "auto-off"
	droidHigh = "auto-high"
)

var droidTerms = termProfile{
	provider: "droid", version: realdroid.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		return newDroidRigAt(t, realdroid.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == droidAsk}, root)
	},
	askMode: droidAsk,
	modes:   []string{droidAsk, droidHigh},
	// The working line or the steer placeholder, read as text.
	busy: func(p, _ string) bool { return has(p, "(Press ESC to stop)") || has(p, "Enter to steer") },
	finished: func(p, _, last string) bool {
		return has(p, last) && !has(p, "(Press ESC to stop)") && !has(p, "Enter to steer") && strings.LastIndex(p, last) > strings.LastIndex(p, "Run a slow command")
	},
	shell:       func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") },
	toolShown:   "echo slept",
	apiError:    droidCapture.apiError,
	errorShown:  droidCapture.errorShown,
	errorDetail: droidCapture.errorDetail,
	dialogShown: droidCapture.dialogShown,
	approve:     droidCapture.approve,
}

// Kimi Code's permission modes: the default (every command asked for),
// --yolo (Ask When Needed) and --auto (Never Ask, the harness's).
const (
	kimiAsk  = "default"
	kimiYolo = "yolo"
	kimiAuto = "auto"
)

var kimiTerms = termProfile{
	provider: "kimi", version: realkimi.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		o := realkimi.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == kimiAsk}
		if mode == kimiYolo {
			o.Args = []string{"--yolo"}
		}
		return newKimiRigAt(t, o, root)
	},
	askMode: kimiAsk,
	modes:   []string{kimiAsk, kimiYolo, kimiAuto},
	busy:    func(p, _ string) bool { return kimiSignals(p).BusyLine != 0 },
	finished: func(p, _, last string) bool {
		return kimiFinished(p, last) && strings.LastIndex(p, last) > strings.LastIndex(p, "Run a slow command")
	},
	shell:       func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") },
	toolShown:   "echo slept",
	apiError:    kimiCapture.apiError,
	errorShown:  kimiCapture.errorShown,
	errorDetail: kimiCapture.errorDetail,
	dialogShown: kimiCapture.dialogShown,
	approve:     kimiCapture.approve,
}

// ompTerms: OMP in its approval modes, yolo (its default, the harness's:
// nothing asked) and always-ask (every command asked for, realomp's Ask).
var ompTerms = fromCapture(ompCapture, termProfile{
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		return newOmpRigAt(t, realomp.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == "always-ask"}, root)
	},
	askMode: "always-ask",
	modes:   []string{"yolo", "always-ask"},
	finished: func(p, _, last string) bool {
		return ompFinished(p, last) && strings.LastIndex(p, last) > strings.LastIndex(p, "Run a slow command")
	},
})

// fromCapture is p with what the CLI's capture script c already says:
// its name and version, its busy screen, its API error and approval
// dialog; and the shell command of about 5 s the terminal captures run.
func fromCapture(c captureScript, p termProfile) termProfile {
	p.provider, p.version, p.busy = c.provider, c.version, c.busy
	p.apiError, p.errorShown, p.errorDetail = c.apiError, c.errorShown, c.errorDetail
	p.dialogShown, p.approve = c.dialogShown, c.approve
	p.shell = func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") }
	p.toolShown = "echo slept"
	return p
}

// Copilot CLI's approval modes: --allow-all-tools (the harness's), no flag
// (it asks before each command), --yolo.
const (
	copilotAllowAllTools = "allow-all-tools"
	copilotAsk           = "ask"
	copilotYolo          = "yolo"
)

var copilotTerms = termProfile{
	provider: "copilot", version: realcopilot.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		opts := realcopilot.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == copilotAsk, Yolo: mode == copilotYolo}
		return newCopilotRigAt(t, opts, root)
	},
	askMode:     copilotAsk,
	modes:       []string{copilotAllowAllTools, copilotAsk, copilotYolo},
	busy:        func(p, _ string) bool { return copilotBusy(p) },
	finished:    func(p, _, last string) bool { return copilotFinished(p, last) },
	shell:       func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") },
	toolShown:   "echo slept",
	apiError:    copilotCapture.apiError,
	errorShown:  copilotCapture.errorShown,
	errorDetail: copilotCapture.errorDetail,
	dialogShown: copilotCapture.dialogShown,
	approve:     copilotCapture.approve,
}

// Cline's modes: auto-approve on (its default) and off (--auto-approve
// false), which asks before each tool call.
const (
	clineAuto = "auto-approve"
	clineAsk  = "ask"
)

var clineTerms = termProfile{
	provider: "cline", version: realcline.CLI.Version,
	start: func(t *testing.T, w, h int, mode string, term realcli.Terminal, root string) *rig {
		return newClineRigAt(t, realcline.Options{Common: realcli.Common{Width: w, Height: h, Terminal: term}, Ask: mode == clineAsk}, root)
	},
	askMode: clineAsk,
	modes:   []string{clineAuto, clineAsk},
	// The busy line, read as text: a spinner frame first on a line.
	busy: func(p, _ string) bool { return clineSpinnerLine(p) },
	finished: func(p, _, last string) bool {
		return has(p, last) && !clineSpinnerLine(p) && strings.LastIndex(p, last) > strings.LastIndex(p, "Run a slow command")
	},
	shell:       func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") },
	toolShown:   "echo slept",
	apiError:    clineCapture.apiError,
	errorShown:  clineCapture.errorShown,
	errorDetail: clineCapture.errorDetail,
	dialogShown: clineCapture.dialogShown,
	approve:     clineCapture.approve,
}

// clineSpinnerLine reports a line that starts with a braille spinner frame
// ("⠙ Thinking... (esc to cancel)", "⠼ run_commands(…)").
func clineSpinnerLine(plain string) bool {
	for _, ln := range strings.Split(plain, "\n") {
		if _, ok := screen.SpinnerGlyph(strings.TrimSpace(ln)); ok {
			return true
		}
	}
	return false
}

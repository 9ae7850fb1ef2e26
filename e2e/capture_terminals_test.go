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
	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
	"github.com/handoff-fsm/handoff-fsm/internal/realkilo"
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// termProfile is what the terminal and mode capture needs of one CLI. Its
// waits read the screen's text only (never the classifier under test): a
// classifier that misreads a terminal must not stop the capture that shows
// it.
type termProfile struct {
	provider, version string
	// start runs the CLI in the pane and terminal of c, in the approval
	// mode given ("" the harness's default, askMode the one that asks
	// before a command).
	start func(t *testing.T, c realcli.Common, mode, root string) *rig
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
	// patience, when set, is how long each phase may take instead of
	// 45 s (see wait).
	patience time.Duration
}

// wait is how long the capture waits for each phase: 45 s, or the
// profile's patience for a CLI slow to start a turn under load.
func (p termProfile) wait() time.Duration {
	if p.patience > 0 {
		return p.patience
	}
	return 45 * time.Second
}

// termsOf is p for the CLI of script, with what p leaves unset taken from
// it (the provider, its version, the failed request and what the screen
// shows then, the dialog and the key that approves; without busy, the
// script's waits, the message after the last prompt) or common to these CLIs: a sleep of 5 s
// as the command, started by the live.Subject (in p.askMode, it asks),
// finished when the message is last and nothing is busy.
func termsOf(script captureScript, p termProfile) termProfile {
	p.provider, p.version = script.provider, script.version
	p.apiError, p.errorShown, p.errorDetail = script.apiError, script.ErrorShown, script.ErrorDetail
	p.dialogShown, p.approve = script.DialogShown, script.approve
	if p.shell == nil {
		p.shell = func(*rig, string) fakemodel.Reply { return fakemodel.Shell("sleep 5; echo slept", "Wait a while") }
		p.toolShown = "echo slept"
	}
	if sub, ok := live.Find(p.provider); ok && p.start == nil {
		ask := p.askMode
		p.start = func(t *testing.T, c realcli.Common, mode, root string) *rig {
			return subjectRig(t, sub, c, live.Setup{Ask: mode == ask}, root)
		}
	}
	if p.busy == nil {
		p.busy = script.busy
		p.finished = func(pl, title, last string) bool {
			return script.finished(pl, title, last) && lastAfterPrompt(pl, last)
		}
	}
	if busy := p.busy; p.finished == nil {
		p.finished = func(pl, title, last string) bool {
			return has(pl, last) && !busy(pl, title) && lastAfterPrompt(pl, last)
		}
	}
	return p
}

// lastAfterPrompt reports last on the screen after the script's prompt.
func lastAfterPrompt(plain, last string) bool {
	return strings.LastIndex(plain, last) > strings.LastIndex(plain, "Run a slow command")
}

// termSize is the pane of the terminal and mode captures: the narrow one,
// where lines wrap and footers are cut.
var termSize = [2]int{80, 24}

// pane is the options of a CLI in a termSize pane told it runs in term.
func pane(term realcli.Terminal) realcli.Common {
	return realcli.Common{Width: termSize[0], Height: termSize[1], Terminal: term}
}

// TestCaptureTerminals drives each real CLI through its main phases in
// every terminal of realcli.Terminals, and in each approval mode its users
// run it in, and stores the screens (with and without colour) in
// <provider>/testdata/real-<version>/term-<terminal> and mode-<mode>, each
// folder with its manifest: the providers' real-screen tests read them
// (conformance.Dirs). HANDOFF_CAPTURE_CLI picks CLIs (codex, claude,
// opencode, pi, droid, copilot, cline, kimi, omp, continue, kilo, comma-separated; all by default), HANDOFF_CAPTURE_ONLY folders by name:
//
//	HANDOFF_CAPTURE=1 HANDOFF_CAPTURE_CLI=pi go test ./e2e -run TestCaptureTerminals -v -timeout 60m
func TestCaptureTerminals(t *testing.T) {
	if os.Getenv(captureEnv) == "" {
		t.Skipf("set %s=1 to capture real screens per terminal and approval mode", captureEnv)
	}
	clis := os.Getenv("HANDOFF_CAPTURE_CLI")
	only := os.Getenv("HANDOFF_CAPTURE_ONLY")
	scripted := func(name string, p termProfile) termProfile { return termsOf(scriptOf(t, name), p) }
	for _, p := range []termProfile{codexTerms, claudeTerms, scripted("opencode", openCodeTerms), scripted("pi", piTerms), scripted("droid", droidTerms),
		scripted("copilot", copilotTerms), scripted("cline", clineTerms), scripted("kimi", kimiTerms), scripted("omp", ompTerms),
		scripted("continue", continueTerms), termsOf(kiloScript(t), kiloTerms)} {
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
	short := p.wait()
	c := p.capturer(t, dir)
	defer func() { writeManifest(t, dir, c.items, false) }()
	in := " (" + describe(term) + ")"

	r := p.start(t, pane(term), "", p.root(t, "main"))
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

	a := p.start(t, pane(term), p.askMode, p.root(t, "ask"))
	p.confirm(t, c, a, in)
}

// confirm runs a command that asks for approval, takes the dialog, allows
// it and takes the finished turn.
func (p termProfile) confirm(t *testing.T, c *screenCapturer, a *rig, in string) {
	short := p.wait()
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
	short := p.wait()
	c := p.capturer(t, dir)
	defer func() { writeManifest(t, dir, c.items, false) }()
	in := " (mode " + mode + ", " + describe(userTerminal) + ")"
	r := p.start(t, pane(userTerminal), mode, p.root(t, "mode"))
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
	r.waitScreen(p.wait(), "a quiet start", func(pl, title string) bool { return !p.busy(pl, title) })
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
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		opts := realcodex.Options{Common: c, Mode: mode}
		if mode == "ask" {
			opts = realcodex.Options{Common: c, ApprovalPolicy: "on-request", SandboxMode: "workspace-write"}
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
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		return newClaudeRigAt(t, realclaude.Options{Common: c, Permissions: mode}, root)
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

// The approval modes the captures try, per CLI (their folders' names).
const (
	// OpenCode and Kilo Code: bash allowed in its config (the harness's
	// default), asked for, and --auto with bash asked for (so the flag is
	// what grants it).
	openCodeAllow, openCodeAsk, openCodeAuto = "allow", "ask", "auto"
	// pi with the asking extension (pi itself never asks).
	piAsk = "ask"
	// droid's autonomy levels: Off (its default, every command asked for)
	// and --auto high.
	droidAsk, droidHigh = "auto-off", "auto-high"
	// Kimi Code's permission modes: the default (every command asked for),
	// --yolo (Ask When Needed) and --auto (Never Ask, the harness's).
	kimiAsk, kimiYolo, kimiAuto = "default", "yolo", "auto"
	// Copilot CLI's: --allow-all-tools (the harness's), no flag (it asks
	// before each command), --yolo.
	copilotAllowAllTools, copilotAsk, copilotYolo = "allow-all-tools", "ask", "yolo"
	// Cline's: auto-approve on (its default) and off (--auto-approve
	// false), which asks before each tool call.
	clineAuto, clineAsk = "auto-approve", "ask"
	// Continue's: --auto (the harness's: every tool allowed) and its
	// default, which asks before each command.
	continueAuto, continueAsk = "auto", "ask"
)

var openCodeTerms = termProfile{
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		return newOpenCodeRigAt(t, realopencode.Options{Common: c, Ask: mode == openCodeAsk || mode == openCodeAuto, Auto: mode == openCodeAuto}, root)
	},
	askMode: openCodeAsk,
	modes:   []string{openCodeAllow, openCodeAsk, openCodeAuto},
}

// kiloTerms: Kilo Code in OpenCode's three modes; its waits are its
// capture script's (kiloScript: OpenCode's, with Kilo's footer).
var kiloTerms = termProfile{
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		o := realkilo.Options{Common: c, Ask: mode == openCodeAsk || mode == openCodeAuto, Auto: mode == openCodeAuto}
		return openCodeShapedRig(t, realkilo.CLI, root, &o.Common, func(ctx context.Context) (*realcli.Session, error) { return realkilo.Start(ctx, o) })
	},
	askMode: openCodeAsk,
	modes:   []string{openCodeAllow, openCodeAsk, openCodeAuto},
	// A fresh Kilo's first request came over 45 s after the prompt at a
	// load average of 46 (the capture in tmux-256color with NO_COLOR
	// timed out waiting for the dialog, the model asked nothing yet).
	patience: 3 * time.Minute,
}

var piTerms = termProfile{
	askMode: piAsk,
	// The working line, read as text.
	busy: func(p, _ string) bool { return has(p, "Working...") },
}

var droidTerms = termProfile{
	askMode: droidAsk,
	modes:   []string{droidAsk, droidHigh},
	// The working line or the steer placeholder, read as text.
	busy: func(p, _ string) bool { return has(p, "(Press ESC to stop)") || has(p, "Enter to steer") },
}

var kimiTerms = termProfile{
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		o := realkimi.Options{Common: c, Ask: mode == kimiAsk}
		if mode == kimiYolo {
			o.Args = []string{"--yolo"}
		}
		return newKimiRigAt(t, o, root)
	},
	askMode: kimiAsk,
	modes:   []string{kimiAsk, kimiYolo, kimiAuto},
}

// ompTerms: OMP in its approval modes, yolo (its default, the harness's:
// nothing asked) and always-ask (every command asked for, realomp's Ask).
var ompTerms = termProfile{
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		return newOmpRigAt(t, realomp.Options{Common: c, Ask: mode == "always-ask"}, root)
	},
	askMode: "always-ask",
	modes:   []string{"yolo", "always-ask"},
}

var copilotTerms = termProfile{
	start: func(t *testing.T, c realcli.Common, mode, root string) *rig {
		return newCopilotRigAt(t, realcopilot.Options{Common: c, Ask: mode == copilotAsk, Yolo: mode == copilotYolo}, root)
	},
	askMode: copilotAsk,
	modes:   []string{copilotAllowAllTools, copilotAsk, copilotYolo},
}

// continueTerms: Continue in --auto and in its default mode; busy is its
// working line ("( 2s • esc to interrupt )"), read as text.
var continueTerms = termProfile{
	askMode: continueAsk,
	modes:   []string{continueAuto, continueAsk},
	busy:    func(p, _ string) bool { return has(p, "esc to interrupt") },
}

var clineTerms = termProfile{
	askMode: clineAsk,
	modes:   []string{clineAuto, clineAsk},
	// The busy line, read as text: a spinner frame first on a line.
	busy: clineSpinnerLine,
}

// clineSpinnerLine reports a line that starts with a braille spinner frame
// ("⠙ Thinking... (esc to cancel)", "⠼ run_commands(…)").
func clineSpinnerLine(plain, _ string) bool {
	for _, ln := range strings.Split(plain, "\n") {
		if _, ok := screen.SpinnerGlyph(strings.TrimSpace(ln)); ok {
			return true
		}
	}
	return false
}

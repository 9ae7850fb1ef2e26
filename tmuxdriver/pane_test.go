package tmuxdriver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func TestSendArrivesIntact(t *testing.T) {
	srv := testServer(t)
	var many []string
	for i := range 300 {
		many = append(many, "line "+strings.Repeat("x", i%70))
	}
	cases := map[string]string{
		"quotes, dollars, backslashes": `He said "don't" $HOME ${PATH} $(rm -rf /) \n \\ \` + "`whoami`" + ` 'single' ; & | > <`,
		"unicode":                      "héllo wörld ✓ 日本語 🚀 › • ◦ ⠴ — emoji and wide glyphs",
		"10,000 characters":            strings.Repeat("0123456789", 1000),
		"many lines":                   strings.Join(many, "\n"),
		"tabs and blank lines":         "first\n\n\tindented\n   spaced\n\nlast",
		"response file instruction":    handoff.WithInstruction("Do the thing.", "/tmp/dir with space/it's/analyst_summary.md", "TESTRECEIPTAAAAAAAAA"),
	}
	for name, text := range cases {
		t.Run(name, func(t *testing.T) {
			p, out := echoPane(t, srv)
			got := delivered(t, p, out, text)
			// Agents drop trailing line breaks from a submitted message.
			if want := strings.TrimRight(text, "\n"); got != want {
				t.Fatalf("the agent received %d bytes, want %d intact\n got: %q\nwant: %q",
					len(got), len(want), truncate(got), truncate(want))
			}
			if _, err := os.Stat(out + ".2"); err == nil {
				t.Fatalf("the prompt was submitted twice")
			}
		})
	}
	bufs, err := srv.Run(context.Background(), nil, "list-buffers")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(bufs) != "" {
		t.Fatalf("tmux buffers left behind:\n%s", bufs)
	}
}

func truncate(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

func TestSendLeavesCopyModeFirst(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv)
	// Someone scrolled back in the agent's pane.
	if _, err := srv.Run(context.Background(), nil, "copy-mode", "-t", p.Target()); err != nil {
		t.Fatal(err)
	}
	if snap, err := p.Observe(context.Background()); err != nil || !snap.InMode {
		t.Fatalf("the pane is not in copy mode (%v), so the test proves nothing", err)
	}
	if got := delivered(t, p, out, "through copy mode"); got != "through copy mode" {
		t.Fatalf("got %q", got)
	}
}

func TestSendCRLFArrivesAsLF(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv)
	if got := delivered(t, p, out, "one\r\ntwo\r\nthree"); got != "one\ntwo\nthree" {
		t.Fatalf("got %q", got)
	}
}

func TestSendPressesEnterAgainWhenTheAgentSwallowedIt(t *testing.T) {
	srv := testServer(t)
	// The agent takes an Enter within 2 s of a paste as part of the paste,
	// and the driver presses Enter right after pasting: the first Enter is
	// swallowed, so only the verification's second Enter can submit.
	p, out := echoPane(t, srv, "AGENT_SWALLOW=2s")
	quick := quickEnter(t, srv, p.Target(), 2500*time.Millisecond)
	if err := quick.Send(context.Background(), "multi\nline prompt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out + ".swallowed"); err != nil {
		t.Fatalf("the first Enter was not swallowed, so the test proves nothing: %v", err)
	}
	if got := readWhenPresent(t, out+".1"); got != "multi\nline prompt" {
		t.Fatalf("got %q", got)
	}
}

// Gemini CLI under load swallows more than one Enter after a paste (here
// the agent takes the first two as new lines, whenever they come): Send
// goes on pressing Enter while the screen shows only a new empty line.
func TestSendPressesEnterUntilTakenWhenTheAgentSwallowsTwo(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv, "AGENT_SWALLOW_ENTERS=2")
	quick := quickEnter(t, srv, p.Target(), 500*time.Millisecond)
	if got := delivered(t, quick, out, "a prompt"); got != "a prompt" {
		t.Fatalf("got %q", got)
	}
	b, err := os.ReadFile(out + ".swallowed")
	if n := strings.Count(string(b), "yes"); err != nil || n != 2 {
		t.Fatalf("%d Enters swallowed (%v), want the agent's two", n, err)
	}
	if _, err := os.Stat(out + ".2"); err == nil {
		t.Fatal("the prompt was submitted twice")
	}
}

func TestSendDoesNotPressEnterTwiceWhenSubmitted(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv)
	for i, text := range []string{"first prompt", "second prompt"} {
		if err := p.Send(context.Background(), text); err != nil {
			t.Fatal(err)
		}
		if got := readWhenPresent(t, out+"."+string(rune('1'+i))); got != text {
			t.Fatalf("prompt %d: got %q", i+1, got)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(out + ".3"); err == nil {
		t.Fatal("an extra Enter submitted an empty third prompt")
	}
}

func TestObserveReadsScreenTitleAndLivenessInOneTmuxCall(t *testing.T) {
	srv := testServer(t)
	p, _ := echoPane(t, srv)
	// A tmux that counts its invocations.
	dir := t.TempDir()
	count := filepath.Join(dir, "calls")
	wrapper := filepath.Join(dir, "tmux")
	script := "#!/bin/sh\necho x >> " + handoff.ShellQuote(count) + "\nexec tmux \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	counted := srv
	counted.Binary = wrapper
	cp, err := tmuxdriver.New(tmuxdriver.Options{Server: counted, Target: p.Target(), Classifier: testClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := cp.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Title != "idle" || !strings.Contains(snap.Capture, "READY>") || snap.Dead || snap.PID == 0 ||
		!strings.HasPrefix(snap.Command, "tmuxdriver") {
		t.Fatalf("snapshot = %+v", snap)
	}
	if snap.Classification.Status != handoff.StatusIdle {
		t.Fatalf("status %q, want idle", snap.Classification.Status)
	}
	calls, _ := os.ReadFile(count)
	if n := strings.Count(string(calls), "x"); n != 1 {
		t.Fatalf("one poll ran %d tmux processes, want 1", n)
	}
}

func TestTitleDecidesWhenScreenLooksIdle(t *testing.T) {
	srv := testServer(t)
	id := newWindow(t, srv, `printf '\033]0;busy\007READY>\n'; exec sleep 60`)
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}, AllowShell: true})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the busy title", func() bool {
		st, err := p.Status(context.Background())
		return err == nil && st == handoff.StatusProcessing
	})
}

func TestDeadPaneIsAnErrorSayingSo(t *testing.T) {
	srv := testServer(t)
	if _, err := srv.Run(context.Background(), nil, "set-option", "-g", "remain-on-exit", "on"); err != nil {
		t.Fatal(err)
	}
	p, _ := windowPane(t, srv, "exit 3")
	// tmux knows the exit status nearly always; on a loaded machine a
	// process that dies at once can be reaped before tmux records it, and
	// the pane is then dead without one. Dead is what counts; when a status
	// is reported it must be the right one.
	st, err := statusWhen(t, p, "the pane to die", func(err error) bool { return errors.Is(err, tmuxdriver.ErrPaneDead) })
	if !errors.Is(err, tmuxdriver.ErrPaneDead) || st != handoff.StatusError {
		t.Fatalf("status %q, err %v; want error status and ErrPaneDead", st, err)
	}
	if strings.Contains(err.Error(), "status") && !strings.Contains(err.Error(), "exited with status 3") {
		t.Fatalf("err %v; want the exit status 3 when one is reported", err)
	}
	if err := p.Send(context.Background(), "hello"); !errors.Is(err, tmuxdriver.ErrPaneDead) {
		t.Fatalf("send to a dead pane: %v", err)
	}
}

func TestKilledPaneIsGone(t *testing.T) {
	srv := testServer(t)
	p, _ := echoPane(t, srv)
	if _, err := srv.Run(context.Background(), nil, "kill-pane", "-t", p.Target()); err != nil {
		t.Fatal(err)
	}
	st, err := p.Status(context.Background())
	if !errors.Is(err, tmuxdriver.ErrTargetNotFound) || st != handoff.StatusError || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("status %q, err %v; want error status and ErrTargetNotFound saying the pane is gone", st, err)
	}
}

func TestAgentBackAtAShell(t *testing.T) {
	srv := testServer(t)
	p, id := windowPane(t, srv, "exec sh")
	// tmux starts the command through its default shell, which then execs
	// sh: either is a shell.
	st, err := statusWhen(t, p, "the pane to run sh", func(err error) bool { return err != nil && strings.Contains(err.Error(), "running sh") })
	if !errors.Is(err, tmuxdriver.ErrAgentExited) || st != handoff.StatusError {
		t.Fatalf("status %q, err %v; want ErrAgentExited naming the shell", st, err)
	}
	if err := p.Send(context.Background(), "echo pwned > /tmp/should-not-exist"); !errors.Is(err, tmuxdriver.ErrAgentExited) {
		t.Fatalf("send into a shell: %v; it must refuse", err)
	}
	allowed, _ := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}, AllowShell: true})
	if _, err := allowed.Status(context.Background()); err != nil {
		t.Fatalf("AllowShell: %v", err)
	}
}

func TestMissingServerIsAClearError(t *testing.T) {
	requireTmux(t)
	srv := tmuxdriver.Server{Socket: "handoff-test-none-" + randomName(t)}
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: "main", Classifier: testClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Status(context.Background()); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Fatalf("status: %v, want ErrServerNotRunning", err)
	}
	if err := p.Send(context.Background(), "hi"); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Fatalf("send: %v, want ErrServerNotRunning", err)
	}
	if _, err := p.LastOutput(context.Background()); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Fatalf("last output: %v, want ErrServerNotRunning", err)
	}
	byPath := tmuxdriver.Server{SocketPath: filepath.Join(t.TempDir(), "no-such-socket")}
	p2, _ := tmuxdriver.New(tmuxdriver.Options{Server: byPath, Target: "main", Classifier: testClassifier{}})
	if _, err := p2.Status(context.Background()); !errors.Is(err, tmuxdriver.ErrServerNotRunning) {
		t.Fatalf("socket path: %v, want ErrServerNotRunning", err)
	}
}

func TestMissingTargetIsAClearError(t *testing.T) {
	srv := testServer(t)
	for _, target := range []string{"nosuch", "main:7", "%999", "main:0.5"} {
		p, _ := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: target, Classifier: testClassifier{}})
		if _, err := p.Status(context.Background()); !errors.Is(err, tmuxdriver.ErrTargetNotFound) {
			t.Errorf("%s: %v, want ErrTargetNotFound", target, err)
		}
		if err := p.Send(context.Background(), "hi"); !errors.Is(err, tmuxdriver.ErrTargetNotFound) {
			t.Errorf("%s: send: %v, want ErrTargetNotFound", target, err)
		}
	}
}

func TestSocketPathServer(t *testing.T) {
	requireTmux(t)
	sock := filepath.Join(t.TempDir(), "tmux.sock")
	srv := tmuxdriver.Server{SocketPath: sock}
	if _, err := srv.Run(context.Background(), nil, "new-session", "-d", "-s", "main", "sleep 3600"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Kill(context.Background()) })
	p, out := echoPane(t, srv)
	if got := delivered(t, p, out, "over -S"); got != "over -S" {
		t.Fatalf("got %q", got)
	}
}

func TestTmuxMissingIsAClearError(t *testing.T) {
	srv := tmuxdriver.Server{Socket: "x", Binary: filepath.Join(t.TempDir(), "tmux-not-here")}
	p, _ := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: "main", Classifier: testClassifier{}})
	if _, err := p.Status(context.Background()); !errors.Is(err, tmuxdriver.ErrTmuxNotFound) {
		t.Fatalf("%v, want ErrTmuxNotFound", err)
	}
	onPath := tmuxdriver.Server{Socket: "x", Binary: "tmux-not-installed-anywhere"}
	if _, err := onPath.Run(context.Background(), nil, "ls"); !errors.Is(err, tmuxdriver.ErrTmuxNotFound) {
		t.Fatalf("%v, want ErrTmuxNotFound", err)
	}
}

func TestHungTmuxTimesOut(t *testing.T) {
	p := hungTmux(t)
	if _, err := p.Status(context.Background()); !errors.Is(err, tmuxdriver.ErrTmuxTimeout) {
		t.Fatalf("%v, want ErrTmuxTimeout", err)
	}
}

func TestLastOutputUsesTheClassifiersLastMessage(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv)
	delivered(t, p, out, "twelve bytes")
	var got string
	waitFor(t, "the reply on screen", func() bool {
		var err error
		got, err = p.LastOutput(context.Background())
		return err == nil
	})
	if got != "got 12 bytes" {
		t.Fatalf("last output %q", got)
	}
}

func TestOptionsAreChecked(t *testing.T) {
	if _, err := tmuxdriver.New(tmuxdriver.Options{Classifier: testClassifier{}}); err == nil {
		t.Error("no target accepted")
	}
	if _, err := tmuxdriver.New(tmuxdriver.Options{Target: "x"}); err == nil || !strings.Contains(err.Error(), "classifier is required") {
		t.Fatalf("no classifier: %v, want an error asking for one (the driver names no provider)", err)
	}
	both := tmuxdriver.Server{Socket: "a", SocketPath: "/b"}
	if _, err := tmuxdriver.New(tmuxdriver.Options{Target: "x", Classifier: testClassifier{}, Server: both}); err == nil {
		t.Error("both -L and -S accepted")
	}
}

func TestFailedPasteLeavesNoBuffer(t *testing.T) {
	srv := testServer(t)
	p, _ := echoPane(t, srv)
	// A tmux whose paste goes to a pane that does not exist: the buffer is
	// loaded, the paste fails, and the buffer must still be deleted.
	dir := t.TempDir()
	wrapper := filepath.Join(dir, "tmux")
	script := `#!/bin/sh
case " $* " in
*" paste-buffer "*)
	i=0; n=$#
	for a do
		i=$((i+1))
		[ $i -eq 1 ] && set --
		if [ $i -eq $n ]; then set -- "$@" "%999"; else set -- "$@" "$a"; fi
	done ;;
esac
exec tmux "$@"
`
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := srv
	broken.Binary = wrapper
	bp, err := tmuxdriver.New(tmuxdriver.Options{Server: broken, Target: p.Target(), Classifier: testClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := bp.Send(context.Background(), "lost prompt"); !errors.Is(err, tmuxdriver.ErrTargetNotFound) {
		t.Fatalf("send with a failing paste: %v, want ErrTargetNotFound", err)
	}
	bufs, err := srv.Run(context.Background(), nil, "list-buffers", "-F", "#{buffer_name}")
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(bufs) != "" {
		t.Fatalf("a failed paste left buffers behind: %q", bufs)
	}
}

func TestErrorScreenSaysWhatTheAgentShowed(t *testing.T) {
	srv := testServer(t)
	// An error screen, drawn by printf; the classifier quotes its error
	// line in Detail, and the driver must pass that on.
	screen := `working\nERROR: stream disconnected before completion: boom\n\n  ? for shortcuts\n`
	p, _ := windowPane(t, srv, "printf '"+screen+"'; exec sleep 600")
	// An empty pane is an error too (nothing on the screen): wait until the
	// screen is drawn before asking for the status.
	waitFor(t, "the error screen to be drawn", func() bool {
		snap, err := p.Observe(context.Background())
		return err == nil && strings.Contains(snap.Capture, "for shortcuts")
	})
	st, err := p.Status(context.Background())
	if !errors.Is(err, tmuxdriver.ErrScreenError) || !strings.Contains(err.Error(), "stream disconnected before completion: boom") {
		t.Fatalf("status %q, err %v: want ErrScreenError quoting the error line", st, err)
	}
}

// A live pane that shows nothing at all (a full-screen agent between two
// frames) is ErrBlankScreen, which the engine takes as no observation
// (handoff.ErrNothingShown), not the agent's error; once something is
// drawn the classifier reads it.
func TestABlankLivePaneIsAFailedLookNotAnError(t *testing.T) {
	srv := testServer(t)
	dir := t.TempDir()
	flag := filepath.Join(dir, "draw")
	// Not a shell (a pane back at a shell is gone): perl clears the screen,
	// waits for the flag, then draws a prompt.
	p, _ := windowPane(t, srv, "exec perl -e '$|=1; print \"\\e[2J\\e[H\"; select(undef,undef,undef,0.05) until -e $ARGV[0]; print \"READY> \"; sleep 600' "+handoff.ShellQuote(flag))
	waitFor(t, "perl to run in the pane", func() bool {
		snap, err := p.Observe(context.Background())
		return err == nil && snap.Command == "perl"
	})
	st, err := p.Status(context.Background())
	if !errors.Is(err, tmuxdriver.ErrBlankScreen) || !errors.Is(err, handoff.ErrNothingShown) || errors.Is(err, tmuxdriver.ErrScreenError) || errors.Is(err, handoff.ErrTerminalGone) || st != "" {
		t.Fatalf("blank pane: status %q, err %v; want a failed look (ErrBlankScreen)", st, err)
	}
	if err := os.WriteFile(flag, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the prompt to be drawn", func() bool {
		st, err := p.Status(context.Background())
		return err == nil && st == handoff.StatusIdle
	})
}

// A prompt holding ESC (here a bracketed-paste end followed by text that
// would be typed as keys) is refused before anything reaches the pane:
// the next prompt arrives alone.
func TestSendRefusesControlCharactersAndPastesNothing(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv)
	err := p.Send(context.Background(), "look\x1b[201~!touch /tmp/x\r")
	if !errors.Is(err, handoff.ErrPromptRefused) || !strings.Contains(err.Error(), "byte 4") {
		t.Fatalf("send = %v, want a refusal naming byte 4", err)
	}
	if got := delivered(t, p, out, "the next prompt"); got != "the next prompt" {
		t.Fatalf("the agent received %q: the refused prompt reached it", got)
	}
}

// After the paste and before Enter the driver looks at the composer: one
// that switched to another mode is cleared and nothing is submitted; the
// error says what it showed. With the lead line the same prompt is a
// plain message and arrives whole.
func TestSendLooksAtTheComposerBeforeEnter(t *testing.T) {
	srv := testServer(t)
	p, out := echoPane(t, srv)
	bare, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: p.Target(), Classifier: testClassifier{}, Composer: testComposer{}})
	if err != nil {
		t.Fatal(err)
	}
	err = bare.Send(context.Background(), "!touch /tmp/x")
	if !errors.Is(err, handoff.ErrComposerMode) || !strings.Contains(err.Error(), "shell mode") {
		t.Fatalf("send = %v, want ErrComposerMode naming the shell mode", err)
	}
	led, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: p.Target(), Classifier: testClassifier{}, Composer: testComposer{lead: true}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := delivered(t, led, out, "!touch /tmp/x"), handoff.PromptLead+"\n!touch /tmp/x"; got != want {
		t.Fatalf("the agent received %q, want %q (the refused paste must have been cleared)", got, want)
	}
}

// quickEnter is a pane of srv whose driver presses Enter 1 ms after the
// paste and verifies for verify: an agent that takes that Enter as part of
// the paste makes the driver press again.
func quickEnter(t *testing.T, srv tmuxdriver.Server, target string, verify time.Duration) *tmuxdriver.Pane {
	t.Helper()
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: target, Classifier: testClassifier{},
		EnterDelay: time.Millisecond, VerifyTimeout: verify})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// hungTmux is a pane on a tmux binary that never answers, called with a
// 100 ms timeout.
func hungTmux(t *testing.T) *tmuxdriver.Pane {
	t.Helper()
	hung := filepath.Join(t.TempDir(), "tmux")
	if err := os.WriteFile(hung, []byte("#!/bin/sh\nexec sleep 30\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	srv := tmuxdriver.Server{Socket: "hfrel-none", Binary: hung, Timeout: 100 * time.Millisecond}
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: "main", Classifier: testClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// windowPane starts shellCmd in a new window of srv and returns a Pane on
// it, and its id.
func windowPane(t *testing.T, srv tmuxdriver.Server, shellCmd string) (*tmuxdriver.Pane, string) {
	t.Helper()
	id := newWindow(t, srv, shellCmd)
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	return p, id
}

// statusWhen reads p's status until done holds of the error read (what
// the test waits for, named by what), and returns that reading.
func statusWhen(t *testing.T, p *tmuxdriver.Pane, what string, done func(error) bool) (handoff.Status, error) {
	t.Helper()
	var st handoff.Status
	var err error
	waitFor(t, what, func() bool {
		st, err = p.Status(context.Background())
		return done(err)
	})
	return st, err
}

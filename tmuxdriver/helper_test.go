package tmuxdriver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/screen"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// The test binary doubles as a tiny agent for the panes: run with
// TMUXDRIVER_TEST_AGENT set, it is an "echo agent" instead of the tests.
func TestMain(m *testing.M) {
	if os.Getenv("TMUXDRIVER_TEST_AGENT") != "" {
		os.Exit(echoAgent())
	}
	os.Exit(m.Run())
}

// echoAgent behaves like an agent TUI just enough for the driver: raw mode,
// bracketed paste on, the composer shown on screen, Enter submits. Each
// submitted prompt is written to $AGENT_OUT.N (N = 1, 2, …), and the screen
// then shows "reply: got N bytes". With $AGENT_SWALLOW set to a duration, an
// Enter that arrives that soon after a paste is taken as part of the paste
// (a newline in the composer), as Codex and Gemini CLI do; with
// $AGENT_SWALLOW_ENTERS=N the first N Enters after a paste are, whenever
// they come (Gemini CLI under load); $AGENT_OUT.swallowed gets a line each
// time it happened. The title is "busy" while composing and "idle" otherwise.
// A paste that starts with '!' into the empty composer switches it to a
// shell mode, as Claude Code's does: the screen shows "SHELL MODE", and
// Escape empties the composer and leaves the mode. With $AGENT_FOLD set,
// a paste shows as "[Pasted Content N chars]" (N its characters, plus
// $AGENT_FOLD_OFF), after "Pasting… K KB" lines for $AGENT_PASTING; an
// Enter that comes while it still shows "Pasting…" submits the fold's
// text itself, as Qwen Code did; the title stays "idle" while composing.
// With $AGENT_HOLD naming a file, it reads no key while that file exists
// (its screen drawn): a CLI still busy with its start-up, or starved.
// With $AGENT_THINK set to a duration, an Enter that submits a prompt is
// worked on that long (a CPU kept busy, nothing drawn, keys still read)
// before the turn shows: a CLI thawed or starved at work on a turn it has
// not drawn. An Enter on an empty composer submits an empty message at once.
// With $AGENT_ESC_KEEPS set, Escape in the shell mode only leaves the mode
// and keeps the composer's text or fold, as droid's does; a second one
// empties it. With $AGENT_STOP_ON_ESC set, it stops itself (SIGSTOP) right
// after it reads its first Escape, before it does or draws anything: an
// agent a loaded machine stops. $AGENT_OUT.idle-escape gets a line for each
// Escape read on an empty composer in no mode: there a real CLI's clear
// keys do something else (Esc Esc opens droid's rewind).
func echoAgent() int {
	ctx := context.Background()
	tty := os.Stdin
	restore, err := simagent.RawMode(ctx, tty)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer restore()
	out := os.Getenv("AGENT_OUT")
	swallow, _ := time.ParseDuration(os.Getenv("AGENT_SWALLOW"))
	swallowN, _ := strconv.Atoi(os.Getenv("AGENT_SWALLOW_ENTERS"))
	swallowed := 0
	fold := os.Getenv("AGENT_FOLD") != ""
	foldOff, _ := strconv.Atoi(os.Getenv("AGENT_FOLD_OFF"))
	pasting, _ := time.ParseDuration(os.Getenv("AGENT_PASTING"))
	lose := os.Getenv("AGENT_LOSE") != ""
	think, _ := time.ParseDuration(os.Getenv("AGENT_THINK"))
	escKeeps := os.Getenv("AGENT_ESC_KEEPS") != ""
	// Typed text stays a draft in the composer, the agent idle, as a
	// CLI's composer holds a line a person typed.
	drafts := os.Getenv("AGENT_DRAFTS") != ""
	shell := false // the composer is in its shell mode
	shown := ""    // what the composer shows: its text, or its fold
	stopOnEsc := os.Getenv("AGENT_STOP_ON_ESC") != ""
	w := os.Stdout
	fmt.Fprint(w, "\x1b[?2004h\x1b]0;idle\x07READY>\r\n")
	keys := simagent.NewKeyReader(tty)
	type next struct {
		k   simagent.Key
		err error
	}
	ch := make(chan next)
	hold := os.Getenv("AGENT_HOLD")
	go func() {
		for hold != "" {
			if _, err := os.Stat(hold); err != nil {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for {
			k, err := keys.Next()
			ch <- next{k, err}
			if err != nil {
				return
			}
		}
	}()
	var composer strings.Builder
	var lastPaste time.Time
	n := 0
	submit := func() error {
		n++
		text := strings.TrimRight(composer.String(), "\n")
		composer.Reset()
		shell, shown = false, ""
		// Write then rename: the test must never read a half-written file.
		dst := fmt.Sprintf("%s.%d", out, n)
		if err := os.WriteFile(dst+".tmp", []byte(text), 0o644); err != nil {
			return err
		}
		if err := os.Rename(dst+".tmp", dst); err != nil {
			return err
		}
		fmt.Fprintf(w, "\x1b[H\x1b[2J\x1b]0;idle\x07reply: got %d bytes\r\nREADY>\r\n", len(text))
		return nil
	}
	for {
		got := <-ch
		k, err := got.k, got.err
		if err != nil {
			return 0
		}
		switch k.Kind {
		case simagent.KeyInterrupt, simagent.KeyEOF:
			fmt.Fprint(w, "\x1b[?2004l")
			return 0
		case simagent.KeyEscape:
			if stopOnEsc {
				stopOnEsc = false
				stopSelf()
			}
			if composer.Len() == 0 && !shell {
				note(out + ".idle-escape")
			}
			if shell && escKeeps {
				shell = false
				fmt.Fprint(w, "\x1b[H\x1b[2J\x1b]0;idle\x07READY>\r\n"+strings.ReplaceAll(shown, "\n", "\r\n"))
				continue
			}
			shell = false
			composer.Reset()
			shown = ""
			fmt.Fprint(w, "\x1b[H\x1b[2J\x1b]0;idle\x07READY>\r\n")
		case simagent.KeyPaste, simagent.KeyText:
			if composer.Len() == 0 && strings.HasPrefix(k.Text, "!") {
				shell = true
				fmt.Fprint(w, "SHELL MODE\r\n")
			}
			composer.WriteString(k.Text)
			shown += k.Text
			if k.Kind == simagent.KeyPaste {
				lastPaste = time.Now()
				swallowed = 0
			}
			if fold && k.Kind == simagent.KeyPaste {
				placeholder := fmt.Sprintf("[Pasted Content %d chars]", utf8.RuneCountInString(k.Text)+foldOff)
				early := false
				row := 2 // under READY>, or under SHELL MODE
				if shell {
					row = 3
				}
				for kb := 0; !early && time.Since(lastPaste) < pasting; kb++ {
					fmt.Fprintf(w, "\x1b[%d;1H\x1b[KPasting… %d KB\r\n", row, kb*4)
					select {
					case got := <-ch:
						early = got.k.Kind == simagent.KeyEnter
					case <-time.After(250 * time.Millisecond):
					}
				}
				if early {
					composer.Reset()
					composer.WriteString(placeholder)
					if err := submit(); err != nil {
						fmt.Fprintln(os.Stderr, err)
						return 1
					}
					continue
				}
				if lose {
					// The composer lost from sight: a screen the rules cannot read.
					fmt.Fprintf(w, "\x1b[1;1H\x1b[KREADY> (redrawing)\x1b[%d;1H\x1b[K", row)
					continue
				}
				fmt.Fprintf(w, "\x1b[%d;1H\x1b[K%s\r\n", row, placeholder)
				shown = placeholder
				continue
			}
			if drafts && k.Kind == simagent.KeyText {
				fmt.Fprint(w, strings.ReplaceAll(k.Text, "\n", "\r\n"))
				continue
			}
			fmt.Fprint(w, "\x1b]0;busy\x07"+strings.ReplaceAll(k.Text, "\n", "\r\n"))
		case simagent.KeyEnter:
			if swallow > 0 && time.Since(lastPaste) < swallow || swallowed < swallowN {
				swallowed++
				composer.WriteString("\n")
				fmt.Fprint(w, "\r\n")
				note(out + ".swallowed")
				continue
			}
			for start := time.Now(); composer.Len() > 0 && time.Since(start) < think; {
				// At work on the turn: a CPU busy, nothing drawn.
			}
			if err := submit(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
	}
}

// note adds a line to the file at path, for the test to count.
func note(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err == nil {
		_, _ = f.WriteString("yes\n")
		_ = f.Close()
	}
}

// testClassifier reads the echo agent's screen: busy title → processing, a
// READY> prompt → idle, a line "ERROR: …" → error quoting it, anything else
// → processing.
type testClassifier struct{}

func (testClassifier) Classify(capture, title string) handoff.Classification {
	for line := range strings.SplitSeq(capture, "\n") {
		if msg, ok := strings.CutPrefix(line, "ERROR: "); ok {
			return handoff.Classification{Status: handoff.StatusError, Reason: "error line", Detail: msg}
		}
	}
	switch {
	case title == "busy":
		return handoff.Classification{Status: handoff.StatusProcessing, Reason: "busy title"}
	case strings.Contains(capture, "READY>"):
		return handoff.Classification{Status: handoff.StatusIdle, Reason: "prompt"}
	}
	return handoff.Classification{Status: handoff.StatusProcessing, Reason: "no prompt"}
}

func (testClassifier) LastMessage(capture string) (string, error) {
	lines := strings.Split(capture, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if msg, ok := strings.CutPrefix(lines[i], "reply: "); ok {
			return msg, nil
		}
	}
	return "", fmt.Errorf("no reply on screen")
}

// testComposer is the echo agent's composer: '!' first opens its shell
// mode, which the screen shows as "SHELL MODE"; Escape clears it.
type testComposer struct{ lead bool }

func (c testComposer) Inert(text string) string {
	if c.lead && strings.HasPrefix(text, "!") {
		return handoff.PromptLead + "\n" + text
	}
	return text
}

func (testComposer) Mode(capture string) string {
	// Only the screen since the agent last drew its prompt: a capture with
	// scrollback holds earlier screens too.
	if i := strings.LastIndex(capture, "READY>"); i >= 0 {
		capture = capture[i:]
	}
	if strings.Contains(capture, "SHELL MODE") {
		return "shell mode"
	}
	return ""
}

func (testComposer) ClearKeys(string) []string { return []string{"Escape"} }

// foldComposer is the echo agent's composer with $AGENT_FOLD set: it reads
// the fold and its size, and "Pasting…" while the paste arrives.
type foldComposer struct{ testComposer }

func (foldComposer) Pasted(capture, text string) (handoff.Paste, string) {
	return echoForm().Read(capture, text)
}

// Draft reads the first line the composer holds under READY>: the echo
// agent draws no placeholder.
func (foldComposer) Draft(capture string) string { return echoForm().Draft(capture) }

// echoForm is the echo agent's composer with $AGENT_FOLD set, as a
// screen.PasteForm.
func echoForm() screen.PasteForm {
	return screen.PasteForm{
		Folds:    []screen.Fold{{Pattern: regexp.MustCompile(`\[Pasted Content (\d+) chars\]`), Size: utf8.RuneCountInString}},
		Arriving: regexp.MustCompile(`^Pasting…`),
		Composer: func(capture string) ([]string, bool) {
			i := strings.LastIndex(capture, "READY>\n")
			if i < 0 {
				return nil, false
			}
			return strings.Split(capture[i+len("READY>\n"):], "\n"), true
		},
	}
}

// requireTmux: testkit.RequireTmux.
func requireTmux(t testing.TB) { t.Helper(); testkit.RequireTmux(t) }

// testServer starts a private tmux server (its own socket) with one idle
// session "main", and kills exactly that server when the test ends.
func testServer(t testing.TB) tmuxdriver.Server {
	t.Helper()
	requireTmux(t)
	p, err := tmuxdriver.StartPrivate(context.Background(), tmuxdriver.PrivateOptions{Prefix: "handoff-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(context.Background()); err != nil {
			t.Errorf("kill private tmux server: %v", err)
		}
	})
	return p.Server
}

func randomName(t testing.TB) string {
	return fmt.Sprintf("%d-%d", os.Getpid(), time.Now().UnixNano()%1e9)
}

// newWindow opens a window on srv running shellCmd and returns its pane id.
func newWindow(t testing.TB, srv tmuxdriver.Server, shellCmd string) string {
	t.Helper()
	out, err := srv.Run(context.Background(), nil, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "main:", shellCmd)
	if err != nil {
		t.Fatalf("new-window: %v", err)
	}
	return strings.TrimSpace(out)
}

// echoPane starts the echo agent in a new window and returns a Pane on it
// and the prefix of the files it writes what it receives to.
func echoPane(t testing.TB, srv tmuxdriver.Server, env ...string) (*tmuxdriver.Pane, string) {
	t.Helper()
	return echoPaneVia(t, srv, "", env...)
}

// echoPaneVia is echoPane with the agent run by via, a command line put
// before it ("timeout 600": the agent is then its child; tmux resumes a
// pane's own process the moment it stops, not a child).
func echoPaneVia(t testing.TB, srv tmuxdriver.Server, via string, env ...string) (*tmuxdriver.Pane, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "received")
	cmd := "exec env TMUXDRIVER_TEST_AGENT=1 AGENT_OUT=" + handoff.ShellQuote(out) + " " +
		strings.Join(env, " ") + " " + via + " " + handoff.ShellQuote(exe)
	id := newWindow(t, srv, cmd)
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the echo agent's prompt", func() bool {
		snap, err := p.Observe(context.Background())
		return err == nil && strings.Contains(snap.Capture, "READY>") && snap.Title == "idle"
	})
	return p, out
}

// delivered sends prompt through p and returns what the echo agent
// (echoPane, writing to out) received as its first message.
func delivered(t testing.TB, p *tmuxdriver.Pane, out, prompt string) string {
	t.Helper()
	if err := p.Send(context.Background(), prompt); err != nil {
		t.Fatalf("send: %v", err)
	}
	return readWhenPresent(t, out+".1")
}

// waitFor: testkit.WaitFor.
func waitFor(t testing.TB, what string, cond func() bool) { t.Helper(); testkit.WaitFor(t, what, cond) }

// readWhenPresent waits for a file and returns its content.
func readWhenPresent(t testing.TB, path string) string {
	t.Helper()
	var b []byte
	waitFor(t, path, func() bool {
		var err error
		b, err = os.ReadFile(path)
		return err == nil
	})
	return string(b)
}

package tmuxdriver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// foldPane starts the echo agent folding each paste into "[Pasted Content
// N chars]" (env adds to its settings) and a Pane that reads the fold,
// with short pauses: only the composer's reading may hold Enter back.
func foldPane(t *testing.T, srv tmuxdriver.Server, env ...string) (*tmuxdriver.Pane, string) {
	t.Helper()
	return foldPaneVia(t, srv, "", env...)
}

// foldPaneVia is foldPane with the agent run by via (see echoPaneVia).
func foldPaneVia(t *testing.T, srv tmuxdriver.Server, via string, env ...string) (*tmuxdriver.Pane, string) {
	t.Helper()
	echo, out := echoPaneVia(t, srv, via, append([]string{"AGENT_FOLD=1"}, env...)...)
	p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: echo.Target(), Classifier: testClassifier{}, Composer: foldComposer{},
		EnterDelay: time.Millisecond, VerifyTimeout: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return p, out
}

// noSecondMessage fails the test if the agent receives a second message
// within a second.
func noSecondMessage(t *testing.T, out string) {
	t.Helper()
	time.Sleep(time.Second)
	if b, err := os.ReadFile(out + ".2"); err == nil {
		t.Fatalf("the agent received a second message: %q", b)
	}
}

// An agent that reads a paste for 1.5 s ("Pasting… N KB") and submits its
// placeholder when Enter comes before it is done (as Qwen Code did) gets
// the Enter only once the fold with the prompt's size shows: the prompt
// arrives whole, once.
func TestSendWaitsUntilThePasteIsWhole(t *testing.T) {
	deliveredOnce(t, "a prompt the agent reads slowly, with ünïcode", "AGENT_PASTING=1500ms")
}

// A fold of another size than the prompt's is not the prompt: Send fails
// with ErrPasteIncomplete quoting it, clears the composer, and presses no
// Enter.
func TestSendRefusesAFoldOfAnotherSize(t *testing.T) {
	srv := testServer(t)
	p, out := foldPane(t, srv, "AGENT_FOLD_OFF=3")
	prompt := "forty-two characters of prompt, or so!!!!"
	err := p.Send(context.Background(), prompt)
	if !errors.Is(err, handoff.ErrPasteIncomplete) || !strings.Contains(err.Error(), "[Pasted Content 44 chars]") ||
		!strings.Contains(err.Error(), "cleared its composer (Escape)") {
		t.Fatalf("send = %v, want ErrPasteIncomplete quoting the fold and saying the composer was cleared", err)
	}
	time.Sleep(time.Second)
	if b, err := os.ReadFile(out + ".1"); err == nil {
		t.Fatalf("the agent received %q, want nothing", b)
	}
}

// An agent whose composer was read during the paste ("Pasting… N KB")
// and then went out of sight (a screen the rules cannot read, as a CLI
// redrawing its composer or breaking the paste draws) is not a CLI the
// rules cannot read: Send waits for the paste, then fails with
// ErrPasteIncomplete and presses no Enter.
func TestSendPressesNoEnterWhenTheComposerIsLostFromSight(t *testing.T) {
	p, out := foldPane(t, testServer(t), "AGENT_PASTING=500ms", "AGENT_LOSE=1")
	err := p.Send(context.Background(), "a prompt whose composer goes out of sight")
	if !errors.Is(err, handoff.ErrPasteIncomplete) || !strings.Contains(err.Error(), "pressed no Enter") {
		t.Fatalf("send = %v, want ErrPasteIncomplete saying no Enter was pressed", err)
	}
	time.Sleep(time.Second)
	if b, err := os.ReadFile(out + ".1"); err == nil {
		t.Fatalf("the agent received %q, want nothing", b)
	}
}

// An agent that read the Enter and works on the turn for 3 s, its CPU
// busy, before it draws anything (as Gemini CLI thawed after a freeze)
// shows the prompt whole and no turn all that while: Send does not take
// that for an Enter ignored and presses no second one.
func TestSendPressesNoSecondEnterWhileTheAgentWorks(t *testing.T) {
	deliveredOnce(t, "a prompt the agent works on before it draws its turn", "AGENT_THINK=3s")
}

// deliveredOnce sends prompt to the folding echo agent (foldPane, with
// env) and fails the test unless it received the prompt whole and no
// second message.
func deliveredOnce(t *testing.T, prompt string, env ...string) {
	t.Helper()
	p, out := foldPane(t, testServer(t), env...)
	if got := delivered(t, p, out, prompt); got != prompt {
		t.Fatalf("the agent received %q, want the prompt whole", got)
	}
	noSecondMessage(t, out)
}

// An agent that reads nothing for seconds as the prompt is pasted (busy,
// or starved by a loaded machine) shows nothing meanwhile, then reads the
// paste at once. Send presses Enter only once the fold shows, and not
// again while the agent has not read it: the prompt is submitted once.
// (Not SIGSTOP: tmux resumes a pane's stopped process at once.)
func TestSendPressesEnterOnceWhileTheAgentReadsNothing(t *testing.T) {
	prompt := "a prompt pasted while the agent reads nothing"
	if got := deliveredToABusyAgent(t, prompt, 2500*time.Millisecond); got != prompt {
		t.Fatalf("the agent received %q, want the prompt whole", got)
	}
}

// An agent that has not read the paste when PasteWait ends (a CLI still
// busy with its start-up on a loaded machine: OMP left a paste unread for
// 11-13 s) is waited for: the paste is still in its terminal, it reads it
// whole when it comes to it, and gets one Enter.
func TestSendWaitsForAnAgentThatHasNotReadThePaste(t *testing.T) {
	prompt := "a prompt the agent reads only after the paste's wait"
	if got := deliveredToABusyAgent(t, prompt, tmuxdriver.PasteWait(prompt)+2*time.Second); got != prompt {
		t.Fatalf("the agent received %q, want the prompt whole", got)
	}
}

// deliveredToABusyAgent sends prompt to the folding echo agent, which
// reads no key until busy has passed since the send began, and returns
// what it received; it fails the test if Send fails or the agent
// receives a second message.
func deliveredToABusyAgent(t *testing.T, prompt string, busy time.Duration) string {
	t.Helper()
	srv := testServer(t)
	hold := filepath.Join(t.TempDir(), "hold")
	if err := os.WriteFile(hold, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, out := foldPane(t, srv, "AGENT_HOLD="+handoff.ShellQuote(hold))
	released := make(chan error, 1)
	go func() {
		time.Sleep(busy)
		released <- os.Remove(hold)
	}()
	got := delivered(t, p, out, prompt)
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	noSecondMessage(t, out)
	return got
}

// The last look (Pane.Unsent): a prompt pasted with no Enter reads as
// still in the composer, quoting its fold; another prompt does not, nor
// the prompt once an Enter submitted it.
func TestUnsentReadsThePromptLeftInTheComposer(t *testing.T) {
	srv := testServer(t)
	p, out := foldPane(t, srv)
	prompt := "a prompt whose Enter never came"
	if _, err := srv.Run(context.Background(), strings.NewReader(prompt), "load-buffer", "-b", "unsent", "-", ";",
		"paste-buffer", "-p", "-d", "-b", "unsent", "-t", p.Target()); err != nil {
		t.Fatal(err)
	}
	var seen string
	waitFor(t, "the fold in the composer", func() bool {
		var unsent bool
		var err error
		seen, unsent, err = p.Unsent(context.Background(), prompt)
		return err == nil && unsent
	})
	if want := fmt.Sprintf("[Pasted Content %d chars]", len(prompt)); seen != want {
		t.Errorf("unsent, quoting %q; want the fold %q", seen, want)
	}
	if _, unsent, err := p.Unsent(context.Background(), prompt+" and more"); err != nil || unsent {
		t.Errorf("another prompt reads as unsent (%v, %v)", unsent, err)
	}
	if _, err := os.Stat(out + ".1"); err == nil {
		t.Fatal("the agent took the prompt before any Enter")
	}
	if err := p.SendKeys(context.Background(), "Enter"); err != nil {
		t.Fatal(err)
	}
	readWhenPresent(t, out+".1")
	if _, unsent, err := p.Unsent(context.Background(), prompt); err != nil || unsent {
		t.Errorf("a prompt submitted reads as unsent (%v, %v)", unsent, err)
	}
}

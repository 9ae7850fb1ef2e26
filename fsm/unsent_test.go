package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// composerAgent stays idle and never writes its response file, and its
// composer holds whatever its test says: the prompt it was sent, unsent,
// or nothing. It counts the last looks at it.
type composerAgent struct {
	status  handoff.Status
	sent    string
	unsent  bool
	looks   int
	lookErr error
	asked   string // the text the last look was asked about
	gone    bool   // the pane is gone: every look is a terminal error
}

func (a *composerAgent) Send(_ context.Context, text string) error { a.sent = text; return nil }
func (a *composerAgent) Status(context.Context) (handoff.Status, error) {
	if a.gone {
		return handoff.StatusError, fmt.Errorf("pane %%1 is gone: %w", handoff.ErrTerminalGone)
	}
	return a.status, nil
}
func (a *composerAgent) LastOutput(context.Context) (string, error) { return "", nil }
func (a *composerAgent) Unsent(_ context.Context, text string) (string, bool, error) {
	a.looks++
	a.asked = text
	return "[Pasted Content 66327 chars]", a.unsent && text == a.sent, a.lookErr
}

func sendToComposer(t *testing.T, a *composerAgent, send bool) error {
	t.Helper()
	work, _, clk := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.IdleGrace = 5 * time.Second
	opts := fsm.Options{Config: cfg, Role: "analyst", Workdir: work, Clock: clk, Logger: quiet()}
	var err error
	if send {
		_, err = fsm.SendAndWait(context.Background(), a, a, "Review the design.", opts)
	} else {
		_, err = fsm.Wait(context.Background(), a, opts)
	}
	return err
}

// A dispatch that fails while its prompt still sits in the agent's
// composer says the prompt was never submitted, and keeps the table's
// ending (no_response_file, exit 5).
func TestAFailedDispatchWhosePromptNeverLeftTheComposerSaysSo(t *testing.T) {
	a := &composerAgent{status: handoff.StatusIdle, unsent: true}
	err := sendToComposer(t, a, true)
	if !errors.Is(err, handoff.ErrNotSubmitted) || !errors.Is(err, handoff.ErrNoResponseFile) {
		t.Fatalf("err %v: want one wrapping ErrNotSubmitted and ErrNoResponseFile", err)
	}
	if o, _ := handoff.FailureOf(err); o.Name != "no_response_file" || o.Exit != 5 {
		t.Errorf("the ending is %+v, want no_response_file, exit 5", o)
	}
	var we *handoff.WaitError
	if !errors.As(err, &we) || we.Unsent != "[Pasted Content 66327 chars]" {
		t.Fatalf("err %#v: want a *WaitError quoting the composer", err)
	}
	for _, want := range []string{"never submitted", "still in the agent's composer", "[Pasted Content 66327 chars]", "press Enter in the pane"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	if a.looks != 1 || a.asked != a.sent {
		t.Errorf("%d last looks, asked about %q; want one, about the text sent (%q)", a.looks, a.asked, a.sent)
	}
}

// The last look claims nothing it did not see: a composer without the
// prompt, a look that failed, a wait that sent nothing, or a dispatch
// that is done leave the error as the table made it.
func TestTheLastLookClaimsNothingItDidNotSee(t *testing.T) {
	for name, c := range map[string]struct {
		agent *composerAgent
		send  bool
		looks int
	}{
		"the composer no longer holds it": {&composerAgent{status: handoff.StatusIdle}, true, 1},
		"the look failed":                 {&composerAgent{status: handoff.StatusIdle, unsent: true, lookErr: errors.New("tmux busy")}, true, 1},
		"a wait that sent nothing":        {&composerAgent{status: handoff.StatusIdle, unsent: true}, false, 0},
	} {
		t.Run(name, func(t *testing.T) {
			err := sendToComposer(t, c.agent, c.send)
			if !errors.Is(err, handoff.ErrNoResponseFile) || errors.Is(err, handoff.ErrNotSubmitted) || strings.Contains(err.Error(), "never submitted") {
				t.Errorf("err %v: want no_response_file alone", err)
			}
			if c.agent.looks != c.looks {
				t.Errorf("%d last looks, want %d", c.agent.looks, c.looks)
			}
		})
	}
	t.Run("a pane gone", func(t *testing.T) {
		a := &composerAgent{unsent: true, gone: true}
		err := sendToComposer(t, a, true)
		if !errors.Is(err, handoff.ErrTerminalError) || errors.Is(err, handoff.ErrNotSubmitted) || a.looks != 0 {
			t.Errorf("err %v after %d last looks: want a terminal error alone, and no look at a pane that is gone", err, a.looks)
		}
	})
	t.Run("a dispatch that is done", func(t *testing.T) {
		work, p, clk := setup(t)
		a := &composerAgent{status: handoff.StatusIdle, unsent: true}
		done := &writingAgent{composerAgent: a, path: p}
		if _, err := fsm.SendAndWait(context.Background(), done, done, "Review the design.", fsm.Options{
			Role: "analyst", Workdir: work, Clock: clk, Logger: quiet()}); err != nil {
			t.Fatal(err)
		}
		if a.looks != 0 {
			t.Errorf("%d last looks at a dispatch that is done", a.looks)
		}
	})
}

// writingAgent writes its answer (with the dispatch's receipt) as soon as
// it is sent the prompt.
type writingAgent struct {
	*composerAgent
	path string
}

func (a *writingAgent) Send(ctx context.Context, text string) error {
	tk, ok := handoff.ParseInstruction(text)
	if !ok {
		return errors.New("no instruction")
	}
	_ = a.composerAgent.Send(ctx, text)
	return os.WriteFile(a.path, []byte(tk.Receipt.ReceiptLine()+"\nthe answer"), 0o644)
}

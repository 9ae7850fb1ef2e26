package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// endCheckCLIs are the providers whose transcript the check at the end
// reads (docs/reliability.md, "The check at the end"), with the
// placeholder each CLI folds a paste into: what the test submits after
// the prompt. Cline has none here: it shows the prompt itself as its fold
// ("[first words... Pasted +N lines]"), and that fold typed after it reads
// as the same prompt dispatched again, which a screen cannot tell apart.
var endCheckCLIs = map[string]func(prompt string) string{
	"claude":  func(p string) string { return fmt.Sprintf("[Pasted text #1 +%d lines]", strings.Count(p, "\n")) },
	"qwen":    func(p string) string { return fmt.Sprintf("[Pasted Content %d chars]", len([]rune(p))) },
	"codex":   func(p string) string { return fmt.Sprintf("[Pasted Content %d chars]", len([]rune(p))) },
	"gemini":  func(p string) string { return fmt.Sprintf("[Pasted Text: %d lines]", strings.Count(p, "\n")+1) },
	"copilot": func(p string) string { return fmt.Sprintf("[Paste #1 - %d lines]", strings.Count(p, "\n")+1) },
	"kimi":    func(p string) string { return fmt.Sprintf("[paste #1 +%d lines]", strings.Count(p, "\n")+1) },
	"cline":   nil,
}

// TestEndCheck makes the real CLI take something other than the prompt
// whole and once while the dispatch waits — the test itself submits the
// same text a second time, or the CLI's paste placeholder after it — and
// checks the outcome: the dispatch fails with ErrPromptNotTaken (never
// done), its error names what the screen showed, and the fake model got
// the prompt twice or the placeholder beside it.
func TestEndCheck(t *testing.T) {
	var names []string
	for n := range endCheckCLIs {
		names = append(names, n)
	}
	eachConformer(t, func(t *testing.T, c conformer) {
		// A pane tall enough for both copies of the prompt and the replies
		// (the CLIs here draw their history on the screen only): what a
		// shorter one shows is read in each provider's TestSubmitted.
		r := c.start(t, setup{Terminal: tmuxTerminal, Height: 60})
		extras := []string{"twice", "placeholder"}
		if endCheckCLIs[c.cli.Name] == nil {
			extras = extras[:1]
		}
		for i, extra := range extras {
			t.Run(extra, func(t *testing.T) {
				r := r.in(t)
				r.drained()
				asked := len(r.model.Turns())
				prompt := fmt.Sprintf("Review change %d, please (%s).", i, extra)
				// The first turn answers late, so the second submission comes
				// while it runs; the answer is written in the turn after it.
				r.model.Script(fakemodel.Answer("First look.").After(3*time.Second),
					fakemodel.WriteResponse("an answer to part of it"), fakemodel.Answer("Written."))
				rs := &testkit.Sends{}
				var once sync.Once
				// Two turns, on a loaded machine: Qwen Code's shell call alone
				// took 40 s at load 50. The outcome is asserted, not the time.
				cfg := c.config(true)
				cfg.ResponseTimeout = max(cfg.ResponseTimeout, 4*time.Minute)
				d := r.sendThrough(rs.Wrap, "tester", prompt, cfg, func(p fsm.Poll) {
					// Once the model has the first request (its answer 3 s
					// away): a CLI that had not sent it yet would hand the
					// model both copies in one request (Copilot CLI at load
					// 47), answered once, and no turn would write the file.
					if p.Status.Quiet() || p.Unreadable || p.Blank || len(r.model.Turns()) <= asked {
						return
					}
					beyond := func() bool { return !r.model.Tally(asked, received(c.cli.Name, prompt)).Once() }
					once.Do(func() { submitAgain(t, r, rs.Last(), extra, endCheckCLIs[c.cli.Name], beyond) })
				})
				got := r.model.Tally(asked, received(c.cli.Name, prompt))
				t.Logf("the model got the prompt %d times whole and these parts: %q", got.Whole, got.Parts)
				if !errors.Is(d.err, handoff.ErrPromptNotTaken) {
					r.fail("dispatch: %q, %v; want ErrPromptNotTaken (the model got %d whole and %q)", d.res.Content, d.err, got.Whole, got.Parts)
				}
				if got.Whole < 1 || got.Once() {
					r.fail("the model got %d whole and %q: the test did not make the CLI take anything else", got.Whole, got.Parts)
				}
				if !strings.Contains(d.err.Error(), "the agent's screen shows") {
					t.Errorf("the error does not say what the screen showed: %v", d.err)
				}
			})
		}
	}, names...)
}

// submitAgain types into the agent's composer while its turn runs: the
// text the dispatch pasted, again ("twice"), or the placeholder the CLI
// folds it into ("placeholder"), then Enter. A CLI busy with a turn may
// lose that Enter (Gemini CLI at load 45–67 kept "[Pasted Text: 16
// lines]" in its composer, drawn there once the turn ended): until the
// model got more than the first copy (beyond), for 20 s at most, the
// composer is read as the provider reads it, and while it shows the paste
// whole with no turn running Enter is pressed again, three times in all
// at most. Not while a turn runs: Gemini CLI queues an Enter pressed then
// and still shows the paste until it sends it, so an Enter pressed on that
// sight was a third copy for the model (3 of 3 runs at three or four tests
// at once, load 20–40).
func submitAgain(t *testing.T, r *rig, sent, how string, placeholder func(string) string, beyond func() bool) {
	ctx := context.Background()
	var err error
	pause := 300 * time.Millisecond
	if how == "twice" {
		err = r.cli.Paste(ctx, sent)
		pause = time.Second // the CLI reads the paste before the Enter
	} else {
		err = r.cli.Keys(ctx, "-l", placeholder(sent))
	}
	time.Sleep(pause)
	if err == nil {
		err = r.cli.Keys(ctx, "Enter")
	}
	cl, _ := provider.Lookup(r.provider)
	pr, _ := cl.(handoff.PasteReader)
	for enters, end := 1, time.Now().Add(20*time.Second); err == nil && pr != nil && !beyond() && time.Now().Before(end); {
		time.Sleep(time.Second)
		raw, title, rerr := r.cli.Capture(ctx)
		if rerr != nil || !cl.Classify(raw, title).Status.Quiet() {
			continue
		}
		screen, _, cerr := r.cli.CapturePlain(ctx)
		if got, _ := pr.Pasted(screen, sent); cerr == nil && got == handoff.PasteWhole && enters < 3 {
			t.Logf("the composer still shows the paste after Enter %d: Enter again", enters)
			err = r.cli.Keys(ctx, "Enter")
			enters++
		}
	}
	if err != nil {
		t.Errorf("submit %s: %v", how, err)
	}
}

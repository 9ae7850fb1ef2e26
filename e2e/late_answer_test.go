package e2e

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// The first scenario with the real Codex: the first dispatch times
// out while the model still thinks, and the second prompt is pasted into
// the busy Codex at once. Codex 0.169 hands the model both prompts (in the
// running turn, or in the next). The model answers the first one, with
// that dispatch's receipt, and ends its turn. Before receipts, the second
// dispatch returned that answer with exit 0; now it sets it aside and,
// since the agent never answers the second prompt, fails: no response file.
func TestRealCodexLateAnswerIsNeverTakenForTheNextPrompt(t *testing.T) {
	parallel(t)
	r := newRig(t, realcodex.Options{})
	lateAnswerIsNeverTaken(t, r, e2eConfig, 6*time.Second, 3*time.Second, func(f fakemodel.Reply) fakemodel.Reply { return f.In(r.workdir) })
}

// The same with the real Claude Code, which queues a prompt typed during a
// turn and hands it to the model after the turn.
func TestRealClaudeLateAnswerIsNeverTakenForTheNextPrompt(t *testing.T) {
	parallel(t)
	r := newClaudeRigAt(t, realclaude.Options{}, t.TempDir())
	// Claude Code can take five seconds to show it took a prompt: the
	// first dispatch gives up after ten, while the model still thinks.
	lateAnswerIsNeverTaken(t, r, claudeConfig, 16*time.Second, 10*time.Second, func(f fakemodel.Reply) fakemodel.Reply { return f })
}

// lateAnswerIsNeverTaken runs the case on r, whose dispatches are strict
// with config: the model thinks for think about the first prompt, so its
// dispatch gives up after giveUp; the second prompt is queued into the
// busy agent; the model then answers the first (where writes says the file
// goes), and the second dispatch sets that answer aside and fails with no
// response file.
func lateAnswerIsNeverTaken(t *testing.T, r *rig, config func(strict bool) handoff.Config, think, giveUp time.Duration,
	writes func(fakemodel.Reply) fakemodel.Reply) {
	t.Helper()
	const first = "the FIRST prompt's answer"
	r.model.Script(
		fakemodel.Answer("Still thinking about the first prompt.").After(think),
		writes(fakemodel.WriteFirstResponse(first)),
		fakemodel.Answer("I answered the first prompt."))

	cfg := config(true)
	cfg.ResponseTimeout = giveUp
	d1 := r.send("analyst", "FIRST: analyse the project.", cfg, nil)
	if !errors.Is(d1.err, handoff.ErrTimeout) && !errors.Is(d1.err, handoff.ErrNoResponseFile) {
		t.Fatalf("first dispatch: %q, %v; want a timeout while the model had not answered", d1.res.Content, d1.err)
	}

	waitBusy(t, r.pane()) // the first prompt was taken: the second cannot merge into it
	// Pasted at once into the agent's own queue (the default waits for the
	// agent to be ready first): the receipt is what protects this case.
	queue := config(true)
	queue.QueueWhenBusy = true
	d2 := r.send("analyst", "SECOND: analyse it again.", queue, nil)
	for _, q := range r.model.Requests() {
		if q.Kind == fakemodel.KindTurn {
			t.Logf("model request at %s: reply %q, %d user messages, tool outputs %d", q.At.Format("15:04:05.000"), q.Reply, len(q.UserTexts), len(q.ToolResults))
		}
	}
	if !errors.Is(d2.err, handoff.ErrNoResponseFile) || d2.res.Content != "" {
		t.Fatalf("second dispatch: %q, %v; want no answer (the agent never answered the second prompt): no response file", d2.res.Content, d2.err)
	}
	if r.model.Pending() != 0 {
		t.Fatalf("%d scripted replies unused: the model never answered the first prompt", r.model.Pending())
	}
	// The agent stayed quiet with the first answer in the role's file: the
	// second dispatch saw it and archived it as another prompt's.
	if !slices.ContainsFunc(d2.res.Journal, func(e fsm.Entry) bool { return e.Event == handoff.EventAnswerMismatched }) {
		t.Errorf("journal %v does not set the first answer aside", d2.path())
	}
	files, _ := filepath.Glob(filepath.Join(r.workdir, ".tmp", "run-*", "*-analyst.mismatch.md"))
	if len(files) != 1 {
		t.Fatalf("archive holds %v, want the first answer as a mismatch", files)
	}
	if b, err := os.ReadFile(files[0]); err != nil || !strings.Contains(string(b), first) {
		t.Errorf("%s holds %q (%v), want the first answer", files[0], b, err)
	}
}

// waitBusy waits (up to 30 s) until the agent in p is seen working: it took
// the prompt it was sent, so the next one is typed during its turn, not
// into the same message.
func waitBusy(t *testing.T, p *tmuxdriver.Pane) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st, err := p.Status(context.Background())
		if err == nil && !st.Quiet() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent never showed it took the first prompt (last status %s, %v)", st, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

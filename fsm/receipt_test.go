package fsm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
)

const earlier handoff.Receipt = "EARLIERRECEIPTBBBBBB"

// moment is what lateAgent shows from a time after dispatch on: a status,
// a screen (its fingerprint), and, when write is set, the response file it
// writes then — with the earlier prompt's receipt, or with the one of the
// prompt it was sent.
type moment struct {
	at      float64
	status  handoff.Status
	screen  uint64
	write   string
	earlier bool
}

// lateAgent is an agent that still works on an earlier prompt when it is
// sent ours: it follows the instruction it was sent for our answer, and
// writes the earlier prompt's answer with that prompt's receipt.
type lateAgent struct {
	t       *testing.T
	clk     *vclock.Clock
	path    string
	start   time.Time
	ticket  handoff.Ticket
	moments []moment
	next    int
	screen  uint64
	status  handoff.Status
}

func (a *lateAgent) Send(_ context.Context, text string) error {
	t, ok := handoff.ParseInstruction(text)
	if !ok {
		a.t.Errorf("the prompt carries no instruction with a receipt:\n%s", text)
	}
	a.ticket, a.start = t, a.clk.Now()
	return nil
}

func (a *lateAgent) Status(context.Context) (handoff.Status, error) {
	if a.start.IsZero() {
		return a.status, nil // not sent ours yet: the moments are after it
	}
	for a.next < len(a.moments) && a.clk.Since(a.start) >= sec(a.moments[a.next].at) {
		m := a.moments[a.next]
		a.next++
		a.status, a.screen = m.status, m.screen
		if m.write == "" {
			continue
		}
		r := a.ticket.Receipt
		if m.earlier {
			r = earlier
		}
		if err := os.WriteFile(a.path, []byte(r.ReceiptLine()+"\n"+m.write), 0o644); err != nil {
			return "", err
		}
	}
	return a.status, nil
}

func (a *lateAgent) LastOutput(context.Context) (string, error) { return "", nil }
func (a *lateAgent) Fingerprint() uint64                        { return a.screen }

func events(j []fsm.Entry) []handoff.Event {
	var out []handoff.Event
	for _, e := range j {
		out = append(out, e.Event)
	}
	return out
}

// The prompt carries the dispatch's receipt; the earlier prompt's answer
// is archived as such and never returned; ours comes back without its
// receipt line. With StartOnOutput, the screen the earlier turn left is
// not taken for ours having started: after the late answer, the guard
// holds until the agent is seen working again.
func TestSendAndWaitTellsItsAnswerFromAnEarlierPromptsOne(t *testing.T) {
	for _, startOnOutput := range []bool{false, true} {
		work, p, clk := setup(t)
		agent := &lateAgent{t: t, clk: clk, path: p, status: handoff.StatusIdle, screen: 1, moments: []moment{
			{at: 0, status: handoff.StatusProcessing, screen: 2},
			{at: 3, status: handoff.StatusIdle, screen: 3, write: "the earlier answer", earlier: true},
			{at: 7, status: handoff.StatusProcessing, screen: 4},
			{at: 11, status: handoff.StatusIdle, screen: 5, write: "our answer"},
		}}
		cfg := handoff.DefaultConfig()
		cfg.Poll, cfg.IdleGrace, cfg.StartOnOutput = 2*time.Second, 10*time.Second, startOnOutput
		res, err := fsm.SendAndWait(context.Background(), agent, agent, "Do it.", fsm.Options{
			Config: cfg, Role: "analyst", Workdir: work, Clock: clk, Logger: quiet()})
		if err != nil {
			t.Fatal(err)
		}
		if res.Content != "our answer" || res.Receipt != agent.ticket.Receipt || res.Receipt.Validate() != nil {
			t.Fatalf("got %q with receipt %q, want our answer with the prompt's receipt %q", res.Content, res.Receipt, agent.ticket.Receipt)
		}
		want := []handoff.Event{handoff.EventActive, handoff.EventAnswerMismatched, handoff.EventActive, handoff.EventFileReady}
		if got := events(res.Journal); !slices.Equal(got, want) {
			t.Errorf("start on output %v: journal %v, want %v", startOnOutput, got, want)
		}
		b, err := os.ReadFile(filepath.Join(filepath.Dir(res.ArchivedPath), "001-analyst.mismatch.md"))
		if err != nil || string(b) != earlier.ReceiptLine()+"\nthe earlier answer" {
			t.Errorf("the earlier answer is not archived whole: %q %v", b, err)
		}
	}
}

func TestAReceiptIsLettersAndDigits(t *testing.T) {
	work, _, clk := setup(t)
	for _, bad := range []handoff.Receipt{"short", "HANDOFF_EOF_AAAAAAAAAAAAAAAAAAAA' > /x; touch y"} {
		_, err := fsm.Wait(context.Background(), nil, fsm.Options{Role: "analyst", Workdir: work, Clock: clk, Receipt: bad})
		if !errors.Is(err, handoff.ErrInvalidConfig) {
			t.Errorf("receipt %q: want ErrInvalidConfig, got %v", bad, err)
		}
	}
}

// A resumed wait keeps the dispatch's receipt: it comes with the
// checkpoint, so the process that resumes never takes an earlier answer.
func TestAResumedWaitKeepsTheReceipt(t *testing.T) {
	work, p, clk := setup(t)
	const ours handoff.Receipt = "OURSRECEIPTAAAAAAAAA"
	var saved []fsm.Checkpoint
	cfg := handoff.DefaultConfig()
	cfg.QueueWhenBusy = true // into the busy agent's own queue: the receipt's case
	ctx, cancel := context.WithCancel(context.Background())
	agent := &lateAgent{t: t, clk: clk, path: p, status: handoff.StatusProcessing}
	_, err := fsm.SendAndWait(ctx, agent, agent, "Do it.", fsm.Options{Config: cfg, Role: "analyst", Workdir: work,
		Clock: clk, Logger: quiet(), Receipt: ours, OnCheckpoint: func(cp fsm.Checkpoint) error {
			saved = append(saved, cp)
			if len(saved) == 3 {
				cancel() // the process dies
			}
			return nil
		}})
	if !errors.Is(err, context.Canceled) || len(saved) < 3 || saved[2].Receipt != ours || agent.ticket.Receipt != ours {
		t.Fatalf("interrupted wait: %v, %d checkpoints, receipt %q, sent %q", err, len(saved), saved[len(saved)-1].Receipt, agent.ticket.Receipt)
	}
	agent.moments = []moment{
		{at: 0, status: handoff.StatusIdle, write: "the earlier answer", earlier: true},
		{at: 6, status: handoff.StatusProcessing},
		{at: 9, status: handoff.StatusIdle, write: "our answer"},
	}
	agent.start = clk.Now()
	cp := saved[2]
	res, err := fsm.Wait(context.Background(), agent, fsm.Options{Config: cfg, Role: "analyst", Workdir: work,
		Clock: clk, Logger: quiet(), Resume: &cp})
	if err != nil || res.Content != "our answer" || res.Receipt != ours {
		t.Fatalf("resumed wait: %q %q %v, want our answer", res.Content, res.Receipt, err)
	}
	if !slices.Contains(events(res.Journal), handoff.EventAnswerMismatched) {
		t.Errorf("journal %v does not show the earlier answer set aside", events(res.Journal))
	}
}

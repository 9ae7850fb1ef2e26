package fsm_test

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
)

// behaviourRow is one timeline for the behaviours real agents need (issue
// 9): what each observation makes the core do.
type behaviourRow struct {
	name   string
	cfg    func(*handoff.Config)
	obs    []fsm.Observation
	states []handoff.State // after each observation
	acts   []fsm.Action    // asked for by each observation
	ending string
}

func TestBehavioursRealAgentsNeed(t *testing.T) {
	const (
		A  = handoff.AwaitingStart
		W  = handoff.Working
		IG = handoff.IdleGrace
		ST = handoff.StartupTimeout
		D  = handoff.Done
		F  = handoff.Failed
	)
	idle, busy, asks := handoff.StatusIdle, handoff.StatusProcessing, handoff.StatusWaitingUserAnswer
	none, file := fsm.FileAbsent, fsm.FileReady
	rows := []behaviourRow{
		{
			name: "a reminder re-arms the startup guard, and the reminded agent answers",
			cfg:  func(c *handoff.Config) { c.Reminders = 1 },
			obs: []fsm.Observation{obs(0, idle, none), obs(30, idle, none), obs(60, idle, none),
				obs(70, idle, none), obs(80, busy, none), obs(90, idle, file)},
			states: []handoff.State{A, ST, A, A, W, D},
			acts:   []fsm.Action{"", "", fsm.SendReminder, "", "", fsm.ConsumeFile},
			ending: "file",
		},
		{
			name: "the guard after a reminder counts from the reminder; then the wait ends as without one",
			cfg:  func(c *handoff.Config) { c.Reminders = 1 },
			obs: []fsm.Observation{obs(0, busy, none), obs(10, idle, none), obs(40, idle, none),
				obs(69, idle, none), obs(70, idle, none), obs(100, idle, none)},
			states: []handoff.State{W, IG, A, A, ST, F},
			acts:   []fsm.Action{"", "", fsm.SendReminder, "", "", ""},
			ending: "no_response_file",
		},
		{
			name:   "no reminder at the response deadline: it is too late",
			cfg:    func(c *handoff.Config) { c.Reminders, c.ResponseTimeout = 3, 40*time.Second },
			obs:    []fsm.Observation{obs(0, busy, none), obs(10, idle, none), obs(40, idle, none)},
			states: []handoff.State{W, IG, F},
			acts:   []fsm.Action{"", "", ""},
			ending: "no_response_file",
		},
		{
			name:   "a prompt with nothing to answer it asks for attention once, and the wait goes on",
			obs:    []fsm.Observation{obs(0, asks, none), obs(2, asks, none), obs(4, busy, none), obs(6, asks, none)},
			states: []handoff.State{W, W, W, W},
			acts:   []fsm.Action{fsm.NeedsAttention, "", "", ""},
		},
		{
			name: "automatic answers respect the cooldown and the cap",
			cfg: func(c *handoff.Config) {
				c.AutoAnswer, c.AnswerCooldown, c.MaxAnswers = "y", 5*time.Second, 2
			},
			obs: []fsm.Observation{obs(0, asks, none), obs(2, asks, none), obs(5, asks, none),
				obs(6, busy, none), obs(10, asks, none)},
			states: []handoff.State{W, W, W, W, F},
			acts:   []fsm.Action{fsm.AnswerPrompt, "", fsm.AnswerPrompt, "", ""},
			ending: "needs_user",
		},
		{
			name:   "an answered prompt that goes away lets the turn finish",
			cfg:    func(c *handoff.Config) { c.AutoAnswer = "Enter" },
			obs:    []fsm.Observation{obs(0, asks, none), obs(2, busy, none), obs(4, idle, file)},
			states: []handoff.State{W, W, D},
			acts:   []fsm.Action{fsm.AnswerPrompt, "", fsm.ConsumeFile},
			ending: "file",
		},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			cfg := handoff.DefaultConfig()
			if row.cfg != nil {
				row.cfg(&cfg)
			}
			c := fsm.NewCore(cfg, t0)
			var last fsm.Ready
			for i, ob := range row.obs {
				r := c.Step(withPresent(ob))
				act := r.Action
				if act == fsm.ConsumeFile {
					f := fsm.FileReady
					if ob.File == fsm.FileBlank {
						f = fsm.FileBlank
					}
					r = c.FileConsumed(f)
				}
				if r.State != row.states[i] || act != row.acts[i] {
					t.Fatalf("observation %d (%s at %v): state %s action %q, want %s %q",
						i, ob.Status, ob.At.Sub(t0), r.State, act, row.states[i], row.acts[i])
				}
				last = r
			}
			if ending(last) != row.ending {
				t.Errorf("ended %q, want %q", ending(last), row.ending)
			}
			// What the behaviours count survives a snapshot.
			b, _ := json.Marshal(c.Snapshot())
			var s fsm.Snapshot
			if err := json.Unmarshal(b, &s); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(s, c.Snapshot()) {
				t.Errorf("snapshot does not round-trip:\n%s", b)
			}
		})
	}
}

func withPresent(ob fsm.Observation) fsm.Observation {
	if ob.File != fsm.FileAbsent {
		ob.File = fsm.FilePresent
	}
	return ob
}

// recordingAgent is quiet until reminded; then it works and writes its file.
type recordingAgent struct {
	sent     []string
	reminded bool
	polls    int
	answerer
}

func (a *recordingAgent) Send(_ context.Context, text string) error {
	a.sent = append(a.sent, text)
	if strings.HasPrefix(text, "Reminder") {
		a.reminded = true
	}
	return nil
}

func (a *recordingAgent) Status(context.Context) (handoff.Status, error) {
	if !a.reminded {
		return handoff.StatusIdle, nil
	}
	a.polls++
	return a.status(a.polls == 1)
}

func TestTheDriverSendsTheReminder(t *testing.T) {
	work, p, _ := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.Reminders = 2
	agent := &recordingAgent{answerer: answerer{path: p, answer: "answer after the reminder"}}
	res, err := fsm.SendAndWait(context.Background(), agent, agent, "Do it.", fsm.Options{
		Config: cfg, Role: "analyst", Workdir: work, Clock: vclock.New(t0), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "answer after the reminder" || len(agent.sent) != 2 {
		t.Fatalf("got %q after %d sends", res.Content, len(agent.sent))
	}
	if agent.sent[1] != handoff.Reminder(p, res.Receipt) || !strings.Contains(agent.sent[1], p) {
		t.Errorf("the reminder does not name the file:\n%s", agent.sent[1])
	}
	// Without a sender, reminders cannot be kept: refused before waiting.
	if _, err := fsm.Wait(context.Background(), agent, fsm.Options{Config: cfg, Role: "analyst", Workdir: work,
		Clock: vclock.New(t0), Logger: quiet()}); err == nil || !strings.Contains(err.Error(), "SendAndWait") {
		t.Errorf("Wait with reminders: %v", err)
	}
}

func TestStartOnOutput(t *testing.T) {
	idle := handoff.StatusIdle
	run := func(on bool, obs ...fsm.Observation) fsm.Ready {
		cfg := handoff.DefaultConfig()
		cfg.StartOnOutput = on
		c := fsm.NewCore(cfg, t0)
		var r fsm.Ready
		for _, o := range obs {
			r = c.Step(o)
		}
		return r
	}
	changed := func(s float64) fsm.Observation { o := obs(s, idle, fsm.FileAbsent); o.Changed = true; return o }
	// A turn over before any observation saw it working: the screen
	// changed, so the grace starts then, and the wait ends a grace later.
	r := run(true, obs(0, idle, fsm.FileAbsent), changed(4), changed(33), changed(34))
	if r.State != handoff.Failed || r.Transitions[0].At != at(34) {
		t.Errorf("with StartOnOutput: %+v, want failed at 34 s (grace from 4 s)", r)
	}
	// Off (the spec): the change means nothing; the guard holds to 30 s.
	r = run(false, obs(0, idle, fsm.FileAbsent), changed(4), changed(34))
	if r.State != handoff.StartupTimeout {
		t.Errorf("without StartOnOutput: %s, want StartupTimeout at 34 s", r.State)
	}
}

// seqTerminal answers Status from a list, repeating the last.
type seqTerminal struct {
	seq    []handoff.Status
	i      int
	sends  int
	sentAt int // observations made before the send
}

func (s *seqTerminal) Status(context.Context) (handoff.Status, error) {
	st := s.seq[min(s.i, len(s.seq)-1)]
	s.i++
	return st, nil
}
func (s *seqTerminal) LastOutput(context.Context) (string, error) { return "", nil }
func (s *seqTerminal) Send(context.Context, string) error {
	s.sends++
	s.sentAt = s.i
	return nil
}

func TestSettleWaitsForTwoReadyObservationsBeforeSending(t *testing.T) {
	work, _, _ := setup(t)
	busy, idle := handoff.StatusProcessing, handoff.StatusIdle
	term := &seqTerminal{seq: []handoff.Status{busy, idle, busy, idle, idle}}
	cfg := handoff.DefaultConfig()
	cfg.ResponseTimeout = time.Minute
	_, _ = fsm.SendAndWait(context.Background(), term, term, "hi", fsm.Options{Config: cfg, Role: "analyst",
		Workdir: work, Clock: vclock.New(t0), Logger: quiet(), Settle: 10 * time.Second})
	if term.sends != 1 || term.sentAt != 5 {
		t.Errorf("sent %d times after %d observations; want one send after the two idle ones (5)", term.sends, term.sentAt)
	}
	never := &seqTerminal{seq: []handoff.Status{busy}}
	cfg.BusyWait = 0 // the settle alone bounds the wait
	_, err := fsm.SendAndWait(context.Background(), never, never, "hi", fsm.Options{Config: cfg, Role: "analyst",
		Workdir: work, Clock: vclock.New(t0), Logger: quiet(), Settle: 3 * time.Second})
	if !errors.Is(err, handoff.ErrAgentBusy) || never.sends != 0 || !strings.Contains(err.Error(), "no ready prompt within 3s") {
		t.Errorf("an agent that never settles: sends %d, err %v", never.sends, err)
	}
}

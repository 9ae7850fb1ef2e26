package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/screen"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// loadRig is set by scripts/load-rig.sh (HANDOFF_LOAD_RIG=1): the
// delivery rows stop and resume the agent during each send and count,
// at the fake model, what it received of each prompt. Not in the gate:
// under stalls a CLI may take a paste in parts, and the row then passes
// only if the dispatch failed saying so.
func loadRig() bool { return os.Getenv("HANDOFF_LOAD_RIG") != "" }

// patientConfig is cfg with three times its grace and twice its response
// timeout, for the delivery rows and the load rig: they assert what
// reached the model and the answer, not how soon, and a CLI at a load of
// 40–50 (frozen and starved in the rig, or beside other tests in a plain
// run) can take longer than the short scenarios' startup guard (twice
// the grace: 16 s for the Node CLIs) to show a turn it took (Gemini CLI
// drawing a 64 KB user message), which failed rows whose prompt arrived
// whole and once. A dispatch that goes well ends on its response file,
// so the longer bounds cost nothing when the agent is fast; what the
// product's own defaults promise is not touched.
//
// In the load rig the response timeout is doubled again (4 minutes where
// the delivery rows give 2): OpenCode's first turn in a fresh home, at a load of 25,
// fetched npm packages for over a minute and asked the model 2 minutes
// after the Enter, and a row that times out stops its CLI's rows.
func patientConfig(cfg handoff.Config) handoff.Config {
	cfg.IdleGrace *= 3
	cfg.ResponseTimeout *= 2
	if loadRig() {
		cfg.ResponseTimeout *= 2
	}
	return cfg
}

// stalls is what stallDuring did: how many stalls it tried, how many
// the kernel reported frozen, for how long in all, in how many of those
// the agent's screen changed all the same, and what went wrong.
type stalls struct {
	tried, frozen, drew int
	held                time.Duration
	states              []string // the pane process's /proc state in each frozen stall
	errs                []string
}

// stallDuring freezes the agent's processes (a cgroup freezer, see
// freezer) twice at random moments of the next 1.5 s, 0.3–2 s each: what
// a loaded machine does to an agent in the middle of a paste or an Enter.
// Outside the load rig it does nothing; in it, on a machine with no
// freezer, the test fails (the rig cannot stall, and does not pretend).
// The function it returns ends the stalls (every process thawed first)
// and says what they were.
func stallDuring(r *rig) func() stalls {
	if !loadRig() {
		return func() stalls { return stalls{} }
	}
	f, err := findFreezer()
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan stalls, 1)
	go func() {
		var s stalls
		defer func() { done <- s }()
		for i := range 2 {
			t := time.NewTimer(time.Duration(rand.Int64N(int64(1500 * time.Millisecond))))
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			s.tried++
			stallOnce(r, f, fmt.Sprintf("handoff-stall-%d-%d", os.Getpid(), i), &s)
		}
	}()
	return func() stalls { cancel(); return <-done }
}

// stallOnce freezes the agent for 0.3–2 s (see freezeFor).
func stallOnce(r *rig, f freezer, name string, s *stalls) {
	freezeFor(r, f, name, 300*time.Millisecond+time.Duration(rand.Int64N(int64(1700*time.Millisecond))), s)
}

// freezeFor freezes the agent for d, not cut short, and records in s
// whether the kernel froze it and whether its screen changed meanwhile.
func freezeFor(r *rig, f freezer, name string, d time.Duration, s *stalls) {
	pane := r.cli.PanePID()
	c, err := f.freeze(name, func() []int { return append([]int{pane}, descendantsOf(pane)...) })
	defer func() {
		if err := c.thaw(); err != nil {
			s.errs = append(s.errs, "thaw: "+err.Error())
		}
	}()
	if err != nil {
		s.errs = append(s.errs, "freeze: "+err.Error())
		return
	}
	frozenAt := time.Now()
	before, _, _ := r.cli.CapturePlain(context.Background())
	s.frozen++
	s.states = append(s.states, procState(pane))
	time.Sleep(d)
	after, _, _ := r.cli.CapturePlain(context.Background())
	if !c.frozen() {
		s.errs = append(s.errs, "the cgroup was not frozen at the stall's end")
	}
	s.held += time.Since(frozenAt)
	if after != before {
		s.drew++
	}
}

// rigVerdict settles after a dispatch of the load rig, counts at the fake
// model what it received of prompt and of the earlier prompts of the row's
// CLI, logs the TALLY line scripts/load-rig.sh sums, and fails the row
// unless the prompt reached the model whole and once with the dispatch
// done, or nothing of it reached the model and the dispatch failed saying
// it was not taken whole. Any part of a prompt at the model fails the row,
// whatever send said: a model that saw part of a prompt may act on it.
func rigVerdict(r *rig, cli, name, prompt string, earlier []string, asked int, d *dispatch, s stalls) {
	r.t.Helper()
	// Said: the error says the prompt was not taken whole. ErrComposerMode
	// too: nothing was submitted (after a broken paste, Qwen Code's
	// composer still holds its typed rest, and the next Send refuses to
	// paste onto it).
	said := errors.Is(d.err, handoff.ErrPasteIncomplete) || errors.Is(d.err, handoff.ErrEnterNotTaken) || errors.Is(d.err, handoff.ErrPromptNotTaken) ||
		errors.Is(d.err, handoff.ErrNotSubmitted) || errors.Is(d.err, handoff.ErrComposerMode)
	// A dispatch that failed without saying why (a timeout) may have left
	// the agent at work on a request it has not made yet: OpenCode's first
	// turn in a fresh home, at a load of 25, fetched npm packages
	// (@opencode-ai/plugin, @opentui/core…) for over a minute and asked the
	// model 2 minutes after the Enter. Its request is waited for, so that
	// it is counted (not taken for lost) and does not take the next row's
	// replies.
	wait := 20 * time.Second
	if d.err != nil && !said {
		wait = 4 * time.Minute
	}
	settle(r, wait)
	want := received(cli, prompt)
	got := r.model.Tally(asked, want)
	pieces := r.model.Pieces(asked, want)
	if len(got.Parts) > len(pieces) {
		pieces = got.Parts
	}
	var stray []string
	for _, e := range earlier {
		stray = append(stray, r.model.Pieces(asked, received(cli, e))...)
	}
	r.t.Logf("TALLY cli=%s case=%s tried=%d stalls=%d heldms=%d drew=%d states=%s whole=%d parts=%d earlier=%d ok=%v said=%v err=%q pieces=%q stray=%q stallerrs=%q",
		cli, name, s.tried, s.frozen, s.held.Milliseconds(), s.drew, strings.Join(s.states, ","),
		got.Whole, len(pieces), len(stray), d.err == nil, said, errText(d.err), pieces, stray, s.errs)
	switch {
	case got.Whole > 1:
		r.fail("the prompt reached the model %d times (frozen %d times)", got.Whole, s.frozen)
	case len(pieces) > 0:
		r.fail("part of the prompt reached the model (frozen %d times; dispatch error %v): %q", s.frozen, d.err, pieces)
	case len(stray) > 0:
		r.fail("part of an earlier prompt reached the model with this one: %q", stray)
	case d.err == nil && got.Whole != 1:
		r.fail("the dispatch succeeded but the model did not get the prompt whole")
	case d.err != nil && got.Whole > 0:
		r.fail("the dispatch failed (%v) but the model got the prompt whole", d.err)
	case d.err != nil && !said:
		r.fail("dispatch failed without saying the prompt was not taken whole: %v", d.err)
	}
}

// errText is err's message, "" for none.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// settle waits, after a dispatch of the load rig, until the model served
// the replies scripted for it (up to wait; a dispatch that failed leaves
// them, and they are dropped), then 3 s more: what the CLI submits late
// (a second Enter's message comes after the answer) is counted too.
func settle(r *rig, wait time.Duration) {
	for deadline := time.Now().Add(wait); r.model.Pending() > 0 && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	r.model.Clear()
	time.Sleep(3 * time.Second)
}

// frozenSender freezes the agent for hold, at after its screen first
// changes once Send has begun (the paste is being drawn: a CLI that reads
// a long paste slowly, as Qwen Code at 16–20 KB/s, is still reading it).
type frozenSender struct {
	handoff.Sender
	r        *rig
	f        freezer
	at, hold time.Duration
	s        *stalls
}

func (fs frozenSender) Send(ctx context.Context, text string) error {
	before, _, _ := fs.r.cli.CapturePlain(ctx)
	sent, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && sent.Err() == nil; time.Sleep(20 * time.Millisecond) {
			if now, _, _ := fs.r.cli.CapturePlain(sent); now != before {
				break
			}
		}
		select {
		case <-sent.Done(): // Send ended first: nothing to freeze in
			return
		case <-time.After(fs.at):
		}
		fs.s.tried++
		freezeFor(fs.r, fs.f, fmt.Sprintf("handoff-midpaste-%d", os.Getpid()), fs.hold, fs.s)
	}()
	err := fs.Sender.Send(ctx, text)
	cancel()
	<-done
	return err
}

// TestFrozenMidPaste (load rig only) freezes the agent for longer than a
// second while a 64 KB prompt of many lines is still arriving — Qwen Code
// ends a paste that pauses for a second and takes what follows as typed
// keys — and checks, at the fake model, that no part of
// the prompt reached the model: the prompt arrives whole and once, or
// the dispatch fails saying it was not taken whole, and the model got
// nothing of it. The next prompt then arrives alone.
func TestFrozenMidPaste(t *testing.T) {
	if !loadRig() {
		t.Skip("HANDOFF_LOAD_RIG=1: the load rig (scripts/load-rig.sh) freezes the agent")
	}
	f, err := findFreezer()
	if err != nil {
		t.Fatal(err)
	}
	// Each prompt's lines are its own: a piece of one is told from
	// another's.
	big := func(n int) string {
		var b strings.Builder
		for i := 0; b.Len() < 64<<10; i++ {
			fmt.Fprintf(&b, "line %05d of frozen paste %d: the quick brown fox jumps over the lazy dog\n", i, n)
		}
		return b.String()
	}
	eachConformer(t, func(t *testing.T, c conformer) {
		if only := os.Getenv("HANDOFF_DELIVERY_ONLY"); only != "" && only != c.cli.Name {
			t.Skip("HANDOFF_DELIVERY_ONLY=" + only)
		}
		r := c.start(t, setup{Terminal: tmuxTerminal})
		var earlier []string
		for i, at := range []time.Duration{0, 500 * time.Millisecond, 1500 * time.Millisecond} {
			t.Run(fmt.Sprintf("frozen-at-%v", at), func(t *testing.T) {
				r := r.in(t)
				r.drained()
				prompt := big(i)
				r.model.Script(fakemodel.WriteResponse("frozen answer"), fakemodel.Answer("Written."))
				asked := len(r.model.Turns())
				var s stalls
				d := r.sendThrough(func(in handoff.Sender) handoff.Sender {
					return frozenSender{Sender: in, r: r, f: f, at: at, hold: 1500 * time.Millisecond, s: &s}
				}, "tester", prompt, patientConfig(c.config(true)), nil)
				prev := earlier
				earlier = append(earlier, prompt)
				rigVerdict(r, c.cli.Name, fmt.Sprintf("frozen-at-%v", at), prompt, prev, asked, d, s)
				// The next prompt arrives alone: nothing of a refused paste
				// joins it.
				r.drained()
				r.model.Script(fakemodel.WriteResponse("next answer"), fakemodel.Answer("Written."))
				next := fmt.Sprintf("the prompt after frozen paste %d", i)
				asked = len(r.model.Turns())
				prev = earlier
				earlier = append(earlier, next)
				rigVerdict(r, c.cli.Name, fmt.Sprintf("after-frozen-at-%v", at), next, prev, asked, r.send("tester", next, patientConfig(c.config(true)), nil), stalls{})
			})
		}
	})
}

// enterTrace runs the driver's tmux commands for the load rig and logs
// each Enter it presses (ENTER lines), with how long after the pane was
// made and the screen's last lines the driver captured in the same tmux
// call, right before the key: what the composer showed when Enter was
// decided, for a row whose prompt went missing.
type enterTrace struct {
	srv   tmuxdriver.Server
	t     *testing.T
	start time.Time
}

func (e enterTrace) Run(ctx context.Context, stdin io.Reader, args ...string) (string, error) {
	out, err := e.srv.Run(ctx, stdin, args...)
	if n := len(args); n > 0 && args[n-1] == "Enter" && slices.Contains(args, "send-keys") {
		var last []string
		for _, ln := range screen.Bottom(out, 6) {
			last = append([]string{ln.T}, last...)
		}
		e.t.Logf("ENTER at +%v (err %v); the screen before it ends: %q", time.Since(e.start).Round(time.Millisecond), err, last)
	}
	return out, err
}

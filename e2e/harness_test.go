package e2e

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/hookmark"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/proctable"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// heavy bounds how many tests that run real CLIs run at once. Each CLI
// is a heavy process (most of them Node); too many at once on a small
// machine slow their drawing past what the tests' graces allow. go test's
// -parallel (GOMAXPROCS by default: 2 in CI) bounds them too; this keeps a
// many-core machine from starting a dozen.
var heavy = make(chan struct{}, 3)

// parallel runs the test alongside the package's other parallel tests,
// once one of the heavy slots is free (until the test and its cleanups,
// which end its CLIs, are over). Every rig has its own tmux server, fake
// model, folders and HOME, so nothing else is shared. A test that calls
// it must not run subtests that call it too: a parent holding a slot
// while its subtests wait for one could starve them.
func parallel(t *testing.T) {
	t.Helper()
	t.Parallel()
	heavy <- struct{}{}
	// Registered first, so it runs last: after the rigs' cleanups.
	t.Cleanup(func() { <-heavy })
}

// rig is one real agent CLI in tmux talking to its own fake model.
type rig struct {
	t        *testing.T
	model    *fakemodel.Server
	cli      *realcli.Session
	workdir  string
	provider string // its name in provider/
	grace    time.Duration
}

// startRig starts a fake model server speaking api and, through start, the
// CLI that cli describes on it, in a work folder and home under root:
// before start, common (the options start reads) gets the binary (a
// missing one skips, see realcli.Pin.Require), the folders, the model's
// URL and at least readyPatience to get ready. Both end in t.Cleanup (a
// failure to end the CLI fails the test).
func startRig(t *testing.T, cli realcli.CLI, api fakemodel.API, root string, common *realcli.Common,
	start func(context.Context) (*realcli.Session, error)) *rig {
	t.Helper()
	provider := cli.Name
	common.Bin = cli.Require(t)
	ctx := context.Background()
	workdir := filepath.Join(root, "work")
	if err := os.MkdirAll(workdir, 0o755); err != nil {
		t.Fatal(err)
	}
	srv, err := fakemodel.Start(ctx, api)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = srv.Close()
		for _, p := range srv.Problems() {
			t.Logf("fake model: %s", p)
		}
	})
	common.Workdir, common.Home, common.BaseURL = workdir, filepath.Join(root, "home"), srv.URL
	// A fresh HOME's first start on a loaded machine (a cold CI run beside
	// other jobs) took OpenCode over its 90 s: the tests wait as the
	// conformers do. A CLI that starts fast returns at once.
	common.ReadyTimeout = max(common.ReadyTimeout, readyPatience)
	s, err := start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Every process of the pane ends with Close, also those of a CLI
		// that ignores the hang-up (Gemini CLI's launcher and its child).
		tree := append([]int{s.PanePID()}, descendantsOf(s.PanePID())...)
		if err := s.Close(); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		for _, pid := range tree {
			if realcli.Alive(pid) {
				t.Errorf("process %d of the %s pane outlived Close (of %v)", pid, provider, tree)
			}
		}
	})
	t.Logf("%s ready %v after start (tmux -L %s)", provider, s.Ready.Sub(s.Started).Round(time.Millisecond), s.Socket)
	return &rig{t: t, model: srv, cli: s, workdir: workdir, provider: provider, grace: cli.DispatchGrace()}
}

// newRig starts a fake model and Codex in a fresh work folder and
// CODEX_HOME; opts sets the rest (approval, sandbox, tips; zero values are
// realcodex's defaults). Everything is ended in t.Cleanup.
func newRig(t *testing.T, opts realcodex.Options) *rig {
	t.Helper()
	r := newCodexRigAt(t, opts, t.TempDir())
	home := r.cli.Home
	t.Cleanup(func() {
		// With daemon_auto_start off, Codex must neither start the
		// app-server daemon nor copy its ~400 MB package into the home.
		for _, dir := range []string{"packages", "app-server-daemon"} {
			if _, err := os.Stat(filepath.Join(home, dir)); err == nil {
				t.Errorf("Codex created %s in CODEX_HOME: the app-server daemon was started", dir)
			}
		}
	})
	return r
}

// newCodexRigAt is newRig with the work folder and CODEX_HOME under root
// (a fixed path: the status line shows it).
func newCodexRigAt(t *testing.T, opts realcodex.Options, root string) *rig {
	t.Helper()
	return startRig(t, realcodex.CLI, fakemodel.OpenAIResponses{}, root, &opts.Common,
		func(ctx context.Context) (*realcli.Session, error) { return realcodex.Start(ctx, opts) })
}

// waitScreen waits up to timeout for cond on the plain screen text and the
// pane title; on timeout the test fails showing the screen.
func (r *rig) waitScreen(timeout time.Duration, what string, cond func(plain, title string) bool) {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := r.cli.WaitFor(ctx, 50*time.Millisecond, func(text, title string) bool {
		return cond(realcli.StripANSI(text), title)
	})
	if err != nil {
		r.fail("waiting for %s: %v", what, err)
	}
}

// shows is waitScreen that reports, instead of failing, whether cond held
// within timeout.
func (r *rig) shows(timeout time.Duration, cond func(plain, title string) bool) bool {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	return r.cli.WaitFor(ctx, 50*time.Millisecond, func(text, title string) bool {
		return cond(realcli.StripANSI(text), title)
	}) == nil
}

// fail reports the screen and the fake model's problems with a failure.
func (r *rig) fail(format string, args ...any) {
	r.t.Helper()
	text, title, _ := r.cli.CapturePlain(context.Background())
	// What the model was last asked: the prompt as the CLI passed it on.
	var asked string
	if turns := r.model.Turns(); len(turns) > 0 {
		asked = turns[len(turns)-1].UserText
		if len(asked) > 600 {
			asked = "…" + asked[len(asked)-600:]
		}
	}
	r.t.Fatalf(format+"\ntitle %q, screen:\n%s\nfake model problems: %v\nlast user text the model got: %q",
		append(args, title, text, r.model.Problems(), asked)...)
}

// submit pastes prompt and presses Enter (verified, see realcli.Submit).
func (r *rig) submit(prompt string) {
	r.t.Helper()
	if err := r.cli.Submit(context.Background(), prompt); err != nil {
		r.t.Fatal(err)
	}
}

func (r *rig) keys(keys ...string) {
	r.t.Helper()
	if err := r.cli.Keys(context.Background(), keys...); err != nil {
		r.t.Fatal(err)
	}
}

// runSend runs the built command bin as `handoff-fsm send` against the
// rig's pane with a 250 ms poll and args (the provider, the wait's other
// knobs, the prompt), and returns what it printed and its exit status.
func (r *rig) runSend(bin string, args ...string) (stdout, stderr string, code int) {
	r.t.Helper()
	base := []string{"send", "--socket", r.cli.Socket, "--target", r.cli.Target, "--workdir", r.workdir, "--poll", "250ms"}
	cmd := exec.Command(bin, append(base, args...)...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		r.t.Fatal(err)
	}
	r.t.Logf("handoff-fsm send exit %d, stderr:\n%s", code, e.String())
	return o.String(), e.String(), code
}

// has reports whether every part occurs in s.
func has(s string, parts ...string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// spinning reports a running turn (spinner in the pane title).
func spinning(title string) bool { return realcodex.Spinning(title) }

// finished reports a turn that ended after last (text of its final reply,
// or of its prompt when the reply is empty): the title no longer spins and
// a "Worked for …" line follows the last occurrence of last.
func finished(plain, title, last string) bool {
	i := strings.LastIndex(plain, last)
	return !spinning(title) && i >= 0 && strings.Contains(plain[i:], "Worked for ")
}

// e2eConfig keeps each real-Codex scenario short: the fake model answers in
// milliseconds, so a 250 ms poll and a 3 s grace are plenty.
func e2eConfig(strict bool) handoff.Config {
	cfg := handoff.DefaultConfig()
	cfg.Poll = 250 * time.Millisecond
	cfg.IdleGrace = 3 * time.Second
	cfg.ResponseTimeout = 60 * time.Second
	cfg.Fallback = !strict
	return cfg
}

// nodeConfig is e2eConfig with the grace a loaded machine needs for the
// CLIs that take seconds to draw a prompt they took (Gemini CLI, Qwen Code,
// OpenCode).
func nodeConfig(strict bool) handoff.Config {
	cfg := e2eConfig(strict)
	cfg.IdleGrace = 8 * time.Second
	return cfg
}

// dispatch is one SendAndWait through the project's own stack (tmuxdriver
// pane with its default Codex classifier, fsm engine) with what it observed.
type dispatch struct {
	res     fsm.Result
	err     error
	polls   []fsm.Poll
	sentAt  time.Time // Send returned: the prompt was pasted and Enter pressed and seen
	sendDur time.Duration
	// fileAt is when the response file first existed (polled every 10 ms).
	fileAt time.Time
}

// statuses lists each poll's status, in order.
func (d *dispatch) statuses() []handoff.Status {
	var out []handoff.Status
	for _, p := range d.polls {
		out = append(out, p.Status)
	}
	return out
}

// path lists the journal as From→To hops: AwaitingStart, Working, Done.
func (d *dispatch) path() []handoff.State {
	if len(d.res.Journal) == 0 {
		return nil
	}
	out := []handoff.State{d.res.Journal[0].From}
	for _, e := range d.res.Journal {
		out = append(out, e.To)
	}
	return out
}

// doneAt is when the deciding transition happened.
func (d *dispatch) doneAt() time.Time {
	if n := len(d.res.Journal); n > 0 {
		return d.res.Journal[n-1].At
	}
	return time.Time{}
}

// lastQuietRunStart is when the last run of consecutive quiet polls began.
func (d *dispatch) lastQuietRunStart() time.Time {
	var start time.Time
	for _, p := range d.polls {
		switch {
		case !p.Status.Quiet():
			start = time.Time{}
		case start.IsZero():
			start = p.At
		}
	}
	return start
}

// firstBusy is when a poll first saw anything but idle/completed.
func (d *dispatch) firstBusy() time.Time {
	for _, p := range d.polls {
		if !p.Status.Quiet() {
			return p.At
		}
	}
	return time.Time{}
}

// timedSender records when Send returned.
type timedSender struct {
	handoff.Sender
	d *dispatch
}

func (s timedSender) Send(ctx context.Context, text string) error {
	start := time.Now()
	err := s.Sender.Send(ctx, text)
	s.d.sentAt, s.d.sendDur = time.Now(), time.Since(start)
	return err
}

// pane is the project's tmux driver on the rig's pane, as `handoff-fsm
// send --provider NAME` builds it (default options, the provider's
// classifier and pause before Enter).
func (r *rig) pane() *tmuxdriver.Pane {
	r.t.Helper()
	cl, err := provider.Lookup(r.provider)
	if err != nil {
		r.t.Fatal(err)
	}
	o := tmuxdriver.Options{Server: tmuxdriver.Server{Socket: r.cli.Socket}, Target: r.cli.Target, Classifier: cl,
		EnterDelay: provider.EnterDelay(r.provider)}
	if loadRig() {
		o.Runner = enterTrace{srv: o.Server, t: r.t, start: time.Now()}
	}
	p, err := tmuxdriver.New(o)
	if err != nil {
		r.t.Fatal(err)
	}
	return p
}

// send dispatches prompt to role through fsm.SendAndWait and records what
// happened. onPoll, if set, also sees every poll.
func (r *rig) send(role, prompt string, cfg handoff.Config, onPoll func(fsm.Poll)) *dispatch {
	r.t.Helper()
	return r.sendThrough(nil, role, prompt, cfg, onPoll)
}

// sendThrough is send with the pane's Sender wrapped by wrap (nil: as it
// is): a test that must see or change what is sent.
func (r *rig) sendThrough(wrap func(handoff.Sender) handoff.Sender, role, prompt string, cfg handoff.Config, onPoll func(fsm.Poll)) *dispatch {
	r.t.Helper()
	d := &dispatch{}
	path, err := handoff.ResponsePath(r.workdir, role)
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*cfg.ResponseTimeout)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // when did the agent write the file?
		defer wg.Done()
		for ctx.Err() == nil {
			if _, err := os.Lstat(path); err == nil {
				d.fileAt = time.Now()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	var polls live.PollLog
	p := r.pane()
	var sender handoff.Sender = timedSender{p, d}
	if wrap != nil {
		sender = wrap(sender)
	}
	d.res, d.err = fsm.SendAndWait(ctx, sender, p, prompt, fsm.Options{
		Config:  cfg,
		Role:    role,
		Workdir: r.workdir,
		Logger:  discard(),
		Observer: func(e fsm.Entry) {
			r.t.Logf("transition %s → %s on %s (status %s)", e.From, e.To, e.Event, e.Status)
		},
		OnPoll: polls.Keep(onPoll),
	})
	d.polls = polls.Polls()
	cancel()
	wg.Wait()
	r.t.Logf("dispatch: %d polls, statuses %v, elapsed %v, err %v", d.res.Polls, compact(d.statuses()), d.res.Elapsed.Round(time.Millisecond), d.err)
	return d
}

// compact folds runs of one status: [processing×5 completed×2].
func compact(ss []handoff.Status) []string {
	var out []string
	for i := 0; i < len(ss); {
		j := i
		for j < len(ss) && ss[j] == ss[i] {
			j++
		}
		out = append(out, string(ss[i])+"×"+strconv.Itoa(j-i))
		i = j
	}
	return out
}

// discard is the logger of the dispatches the tests run themselves: what
// matters is in the polls and the result.
func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// metric logs a measured number in one greppable format.
func metric(t *testing.T, name string, d time.Duration) {
	t.Helper()
	t.Logf("METRIC %s = %v", name, d.Round(time.Millisecond))
}

// The answer spans lines and carries quotes, $ and a backslash: the heredoc
// must hand it over byte for byte.
const answer = "Analysis done.\nIt's 100% \"real\": $HOME stays literal, so does \\n.\nLast line."

// descendantsOf lists the processes below pid (proctable.Descendants,
// whose walk its own test proves: it finds what Close must end).
func descendantsOf(pid int) []int { return proctable.Descendants(pid) }

// in is the rig as seen from subtest t: its failures end t, not the test
// that started the rig.
func (r *rig) in(t *testing.T) *rig {
	c := *r
	c.t = t
	return &c
}

// drained waits until the model served every scripted reply (a CLI's last
// turn of a dispatch may come after the dispatch ended), so that what
// arrives next belongs to what the test does next.
func (r *rig) drained() {
	r.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for r.model.Pending() > 0 {
		if time.Now().After(deadline) {
			r.fail("the model still has %d scripted replies nobody asked for", r.model.Pending())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sendByNameAndAuto runs `handoff-fsm send` in r's pane once per entry of
// provs (r's provider by name, or "auto"), as a user would: each dispatch
// gets its own answer back through the response file (exit 0), its prompt
// of three lines reached the model whole and once, with LF line breaks,
// and with "auto" stderr says r's provider recognised the pane.
func sendByNameAndAuto(t *testing.T, r *rig, provs []string) {
	t.Helper()
	bin := buildCommand(t)
	timeout := max(120*time.Second, 3*r.grace)
	send := func(prov, prompt string) (stdout, stderr string, code int) {
		return r.runSend(bin, "--provider", prov, "--role", "analyst", "--idle-grace", r.grace.String(), "--timeout", timeout.String(), "--prompt", prompt)
	}
	for i, prov := range provs {
		want := fmt.Sprintf("Answer %d, by --provider %s.\nA second line with $HOME and \\n kept.", i+1, prov)
		r.drained()
		r.model.Script(fakemodel.WriteResponse(want), fakemodel.Answer("I wrote the response file."))
		prompt := fmt.Sprintf("Dispatch %d.\nLine two.\nLine three.", i+1)
		stdout, stderr, code := send(prov, prompt)
		if code != 0 || stdout != want+"\n" {
			r.fail("dispatch %d (--provider %s): exit %d, stdout %q; want 0 and %q\n%s", i+1, prov, code, stdout, want+"\n", stderr)
		}
		if prov == "auto" && !strings.Contains(stderr, "--provider auto: "+r.provider+" recognises pane") {
			r.fail("dispatch %d: --provider auto did not say it recognised %s: %s", i+1, r.provider, stderr)
		}
		turns := r.model.Turns()
		last := turns[len(turns)-1].Prompt()
		if n := strings.Count(last, prompt); n != 1 || strings.Contains(last, "\r") {
			r.fail("dispatch %d: the model got the prompt %d times (CR in it: %v): %q", i+1, n, strings.Contains(last, "\r"), last)
		}
	}
}

// A CLI's end-of-turn hook, registered as `handoff-fsm hook --dir DIR`,
// reports the turn over, and the wait decides on it, not on the screen:
// the poll is a minute, there is no file watch, and the wait still ends
// within seconds of the turn (hookEndsTheWait, waitOnHook; each CLI's test
// beside its other tests).
//
// hookEndsTheWait starts a CLI (start, given its hooks) whose stop hook and
// other hooks run `handoff-fsm hook --dir DIR`, waits for an answer on the
// stopped marker (waitOnStopMarker), and checks that stop wrote that
// marker with the turn's last message. It returns DIR.
func hookEndsTheWait(t *testing.T, stop string, start func(hooks map[string]string) *rig, others ...string) string {
	t.Helper()
	bin := buildCommand(t)
	events := t.TempDir()
	hooks := map[string]string{}
	for _, h := range append([]string{stop}, others...) {
		hooks[h] = handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)
	}
	r := start(hooks)
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))

	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the %s hook (%d polls)", res.Elapsed.Round(time.Millisecond), stop, len(polls))
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != stop || stopped.LastMessage != "Final words." || stopped.Session == "" {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
	return events
}

// waitOnStopMarker is waitOnHook with the hook's stopped marker in events
// as the turn marker (what `send --hook-dir` does).
func (r *rig) waitOnStopMarker(events, prompt, want string) (fsm.Result, []fsm.Poll) {
	r.t.Helper()
	marker := hookmark.Path(events, hookmark.Stopped)
	w, err := responsefile.Watch(marker)
	if err != nil {
		r.t.Fatal(err)
	}
	defer w.Close()
	return r.waitOnHook(fsm.Wakeups{Turns: w.C(), TurnMarker: marker}, prompt, want)
}

// waitOnHook dispatches prompt to the analyst role woken by wake (a hook's
// turn reports), with a one-minute poll and no file watch, and checks
// that the wait returned want and was decided by the hook's observation,
// before the first regular poll.
func (r *rig) waitOnHook(wake fsm.Wakeups, prompt, want string) (fsm.Result, []fsm.Poll) {
	r.t.Helper()
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = time.Minute, time.Minute, 3*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var polls []fsm.Poll
	p := r.pane()
	res, err := fsm.SendAndWait(ctx, p, p, prompt, fsm.Options{Config: cfg, Role: "analyst",
		Workdir: r.workdir, Logger: discard(), Wakeups: wake,
		OnPoll: func(p fsm.Poll) { polls = append(polls, p) }})
	if err != nil {
		r.fail("dispatch failed: %v (polls %+v)", err, polls)
	}
	if res.Content != want {
		r.t.Fatalf("got %q, want the file's %q", res.Content, want)
	}
	if last := polls[len(polls)-1]; !last.TurnCompleted || res.Elapsed >= cfg.Poll {
		r.fail("decided after %v by %+v: want the hook's observation, before the first regular poll (polls %+v)", res.Elapsed, last, polls)
	}
	return res, polls
}

// stopHookEndsTheWait is hookEndsTheWait for a CLI whose Stop hook input
// carries no last message (droid, Kimi Code): the marker has the event,
// the session and the work folder; the answer comes from the response
// file.
func stopHookEndsTheWait(t *testing.T, start func(hooks map[string]string) *rig) {
	t.Helper()
	bin := buildCommand(t)
	events := t.TempDir()
	r := start(map[string]string{"Stop": handoff.ShellQuote(bin) + " hook --dir " + handoff.ShellQuote(events)})
	r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Final words."))
	res, polls := r.waitOnStopMarker(events, "Analyse the project.", answer+"\n")
	t.Logf("done %v after dispatch, on the Stop hook (%d polls)", res.Elapsed.Round(time.Millisecond), len(polls))
	stopped, ok, err := hookmark.Read(events, hookmark.Stopped)
	if err != nil || !ok || stopped.Hook != "Stop" || stopped.Session == "" || stopped.Cwd != r.workdir {
		t.Fatalf("stop marker %+v, %v, %v", stopped, ok, err)
	}
}

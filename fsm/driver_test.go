package fsm_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/vclock"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func line(at float64, st handoff.Status) trace.Line { return trace.Line{At: sec(at), Status: &st} }

func fileAt(at float64, text string) trace.Line { return trace.Line{At: sec(at), File: &text} }

// setup returns a work dir with its response folder, the analyst's response
// path and a virtual clock.
func setup(t testing.TB) (string, string, *vclock.Clock) {
	t.Helper()
	work := t.TempDir()
	return work, testkit.ResponseFile(t, work, "analyst"), vclock.New(t0)
}

// The poll hook carries what a progress line and a recorder need: the
// status, the file's state and content, the window left, the archive path.
func TestOnPollReportsEveryObservation(t *testing.T) {
	work, p, clk := setup(t)
	script := trace.NewScript([]trace.Line{
		line(0, handoff.StatusIdle), line(4, handoff.StatusProcessing), fileAt(6, "answer"), line(10, handoff.StatusIdle),
	}, clk, p)
	var polls []fsm.Poll
	res, err := fsm.Wait(context.Background(), script, fsm.Options{
		Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
		OnPoll: func(p fsm.Poll) { polls = append(polls, p) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(polls) != 6 || res.Polls != 6 {
		t.Fatalf("%d polls (result says %d), want 6 (0,2,4,6,8,10 s)", len(polls), res.Polls)
	}
	type view struct {
		elapsed float64
		status  handoff.Status
		file    fsm.FileState
		state   handoff.State
		window  float64
	}
	want := []view{
		{0, "idle", fsm.FileAbsent, handoff.AwaitingStart, 30},
		{2, "idle", fsm.FileAbsent, handoff.AwaitingStart, 28},
		{4, "processing", fsm.FileAbsent, handoff.Working, 0},
		{6, "processing", fsm.FilePresent, handoff.Working, 0},
		{8, "processing", fsm.FilePresent, handoff.Working, 0},
		{10, "idle", fsm.FileReady, handoff.Done, 0},
	}
	for i, p := range polls {
		got := view{p.Elapsed.Seconds(), p.Status, p.File, p.State, p.WindowLeft.Seconds()}
		if got != want[i] || p.N != i+1 {
			t.Errorf("poll %d: %+v (N=%d), want %+v", i+1, got, p.N, want[i])
		}
	}
	last := polls[5]
	if last.Content != "answer" || last.Archived != res.ArchivedPath || last.Outcome == nil || last.Outcome.Name != "file" || len(last.Transitions) != 1 {
		t.Errorf("last poll %+v", last)
	}
	if polls[2].Transitions[0].Event != handoff.EventActive || !polls[2].Deadline.Equal(at(1800)) {
		t.Errorf("third poll %+v", polls[2])
	}
	for _, p := range polls[:5] {
		if p.Content != "" {
			t.Errorf("poll at %v exposes content %q though it did not read the file", p.Elapsed, p.Content)
		}
	}
}

type erroringTerminal struct {
	statusErr, lastErr error
	status             handoff.Status
}

func (e erroringTerminal) Status(context.Context) (handoff.Status, error) {
	return e.status, e.statusErr
}
func (e erroringTerminal) LastOutput(context.Context) (string, error) { return "", e.lastErr }

func TestUnreadableTerminalIsATerminalErrorWithItsMessage(t *testing.T) {
	work, _, clk := setup(t)
	res, err := fsm.Wait(context.Background(), erroringTerminal{statusErr: errors.New("can't find pane: %3")}, fsm.Options{
		Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
	})
	var we *handoff.WaitError
	if !errors.As(err, &we) || !errors.Is(err, handoff.ErrTerminalError) {
		t.Fatalf("want a terminal-error WaitError, got %v", err)
	}
	if we.Detail != "can't find pane: %3" || we.LastStatus != handoff.StatusError || we.State != handoff.AwaitingStart || we.Role != "analyst" {
		t.Errorf("WaitError %+v", we)
	}
	if !strings.Contains(err.Error(), "can't find pane") || len(res.Journal) != 1 {
		t.Errorf("error %q, journal %+v", err, res.Journal)
	}
}

func TestFallbackWithoutLastOutputIsAClearError(t *testing.T) {
	work, _, clk := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.Fallback = true
	_, err := fsm.Wait(context.Background(), erroringTerminal{status: handoff.StatusIdle, lastErr: errors.New("no assistant message on screen")}, fsm.Options{
		Config: cfg, Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
	})
	if err == nil || !strings.Contains(err.Error(), "fallback") || !strings.Contains(err.Error(), "no assistant message") {
		t.Fatalf("want a fallback error naming the cause, got %v", err)
	}
	if !clk.Now().Equal(at(60)) {
		t.Errorf("gave up at %v, want 60 s (startup timeout + grace)", clk.Now().Sub(t0))
	}
}

// cancellingTerminal cancels the wait from inside its third status read.
type cancellingTerminal struct {
	cancel context.CancelFunc
	n      int
}

func (c *cancellingTerminal) Status(ctx context.Context) (handoff.Status, error) {
	c.n++
	if c.n == 3 {
		c.cancel()
	}
	return handoff.StatusProcessing, nil
}
func (c *cancellingTerminal) LastOutput(context.Context) (string, error) { return "", nil }

func TestCancelledContextEndsTheWait(t *testing.T) {
	work, _, clk := setup(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	term := &cancellingTerminal{cancel: cancel}
	_, err := fsm.Wait(ctx, term, fsm.Options{Role: "analyst", Workdir: work, Clock: clk, Logger: quiet()})
	if !errors.Is(err, context.Canceled) || term.n != 3 {
		t.Fatalf("got %v after %d polls, want context.Canceled after 3", err, term.n)
	}
}

// On the real clock a cancel interrupts the sleep between polls: with a
// one-hour poll interval the wait still returns.
func TestCancelInterruptsTheRealClockSleep(t *testing.T) {
	work, _, _ := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.Poll = time.Hour
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	polled := make(chan struct{}, 1)
	go func() {
		_, err := fsm.Wait(ctx, fixed(handoff.StatusProcessing), fsm.Options{
			Config: cfg, Role: "analyst", Workdir: work, Logger: quiet(),
			OnPoll: func(fsm.Poll) { polled <- struct{}{} },
		})
		done <- err
	}()
	<-polled
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("want context.Canceled, got %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("Wait did not return after cancel")
	}
}

type fixed handoff.Status

func (f fixed) Status(context.Context) (handoff.Status, error) { return handoff.Status(f), nil }
func (f fixed) LastOutput(context.Context) (string, error)     { return "last words", nil }

// liveAgent is an agent on the real clock: it works, then writes its file
// and goes idle.
type liveAgent struct {
	mu    sync.Mutex
	start time.Time
	answerer
}

func (a *liveAgent) Status(context.Context) (handoff.Status, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.status(time.Since(a.start) < 30*time.Millisecond)
}

// answerer ends a test agent's turn: once it stops working it writes
// answer to path (once; an empty answer is never written) and shows idle.
// Its last output is empty.
type answerer struct {
	path, answer string
	written      bool
}

// status is processing while working, then idle with the answer written.
func (a *answerer) status(working bool) (handoff.Status, error) {
	if working {
		return handoff.StatusProcessing, nil
	}
	if !a.written && a.answer != "" {
		a.written = true
		if err := os.WriteFile(a.path, []byte(a.answer), 0o644); err != nil {
			return "", err
		}
	}
	return handoff.StatusIdle, nil
}

func (a *answerer) LastOutput(context.Context) (string, error) { return "", nil }

func TestWaitOnTheRealClock(t *testing.T) {
	work, p, _ := setup(t)
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 5*time.Millisecond, time.Second, time.Minute
	var logs bytes.Buffer
	res, err := fsm.Wait(context.Background(), &liveAgent{start: time.Now(), answerer: answerer{path: p, answer: "real time answer"}}, fsm.Options{
		Config: cfg, Role: "analyst", Workdir: work,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Content != "real time answer" || res.Polls < 2 {
		t.Errorf("got %+v", res)
	}
	// The default observer logs every transition.
	if n := strings.Count(logs.String(), "msg=transition"); n != len(res.Journal) {
		t.Errorf("%d transitions logged, journal has %d:\n%s", n, len(res.Journal), logs.String())
	}
}

func TestZeroConfigMeansTheSpecDefaults(t *testing.T) {
	work, _, clk := setup(t)
	var times []float64
	_, err := fsm.Wait(context.Background(), fixed(handoff.StatusIdle), fsm.Options{
		Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
		OnPoll: func(p fsm.Poll) { times = append(times, p.Elapsed.Seconds()) },
	})
	if !errors.Is(err, handoff.ErrNoResponseFile) {
		t.Fatalf("strict by default: want ErrNoResponseFile, got %v", err)
	}
	if len(times) != 31 || times[1] != 2 || times[30] != 60 {
		t.Errorf("poll times %v, want every 2 s up to 60 s", times)
	}
}

func TestInvalidConfigIsRefused(t *testing.T) {
	cfg := handoff.DefaultConfig()
	cfg.Poll = 0
	_, err := fsm.Wait(context.Background(), fixed(handoff.StatusIdle), fsm.Options{Config: cfg, Role: "analyst", Workdir: t.TempDir()})
	if !errors.Is(err, handoff.ErrInvalidConfig) {
		t.Fatalf("want ErrInvalidConfig, got %v", err)
	}
}

package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
)

var errBusy = errors.New("tmux busy: server exited unexpectedly? no, just slow")

// unread is a look at a terminal that could not be read (not gone).
func unread(s float64) fsm.Observation {
	return fsm.Observation{At: at(s), Status: handoff.StatusError, Unreadable: true, Detail: "tmux call timed out"}
}

func TestCoreRetriesUnreadablePolls(t *testing.T) {
	cfg := handoff.DefaultConfig() // 3 failures in a row at most
	for _, tc := range []struct {
		name  string
		obs   []fsm.Observation
		state handoff.State
		end   string // outcome name, "" while waiting
	}{
		{"one failed poll changes nothing", []fsm.Observation{unread(0)}, handoff.AwaitingStart, ""},
		{"two in a row still wait", []fsm.Observation{unread(0), unread(2)}, handoff.AwaitingStart, ""},
		{"the third in a row fails", []fsm.Observation{unread(0), unread(2), unread(4)}, handoff.Failed, "terminal_error"},
		{"a good poll resets the count", []fsm.Observation{unread(0), unread(2), obs(4, handoff.StatusProcessing, fsm.FileAbsent), unread(6), unread(8)}, handoff.Working, ""},
		{"an idle poll resets it too", []fsm.Observation{unread(0), unread(2), obs(4, handoff.StatusIdle, fsm.FileAbsent), unread(6), unread(8)}, handoff.AwaitingStart, ""},
		{"an error status is at once", []fsm.Observation{unread(0), obs(2, handoff.StatusError, fsm.FileAbsent)}, handoff.Failed, "terminal_error"},
		{"failed polls do not start the agent", []fsm.Observation{unread(0), unread(2), obs(31, handoff.StatusIdle, fsm.FileAbsent)}, handoff.StartupTimeout, ""},
		{"nor break the grace", []fsm.Observation{obs(2, handoff.StatusProcessing, fsm.FileAbsent), obs(4, handoff.StatusIdle, fsm.FileAbsent),
			unread(20), unread(30), obs(34, handoff.StatusIdle, fsm.FileAbsent)}, handoff.Failed, "no_response_file"},
		{"nor end it", []fsm.Observation{obs(2, handoff.StatusProcessing, fsm.FileAbsent), obs(4, handoff.StatusIdle, fsm.FileAbsent),
			unread(34), unread(36)}, handoff.IdleGrace, ""},
		{"at the response deadline a failed poll fails", []fsm.Observation{obs(2, handoff.StatusProcessing, fsm.FileAbsent), unread(1800)}, handoff.Failed, "terminal_error"},
		{"the file is read after a failed poll", []fsm.Observation{unread(0), obs(2, handoff.StatusIdle, fsm.FileReady)}, handoff.Done, "file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fsm.NewCore(cfg, t0)
			var r fsm.Ready
			for _, o := range tc.obs {
				r = step(c, o)
			}
			if r.State != tc.state || ending(r) != tc.end {
				t.Fatalf("state %s ending %q, want %s %q", r.State, ending(r), tc.state, tc.end)
			}
			if tc.end == "terminal_error" {
				last := r.Transitions[len(r.Transitions)-1]
				if last.Event != handoff.EventTerminalError || last.Status != handoff.StatusError {
					t.Fatalf("last move %+v, want terminal_error with status error", last)
				}
			}
			// The count survives a snapshot.
			if _, err := fsm.Resume(cfg, c.Snapshot()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestMaxPollFailuresOfOneIsNoRetry(t *testing.T) {
	cfg := handoff.DefaultConfig()
	cfg.MaxPollFailures = 1
	if r := step(fsm.NewCore(cfg, t0), unread(0)); ending(r) != "terminal_error" {
		t.Fatalf("with no retry, a failed poll ends the wait: %s %q", r.State, ending(r))
	}
}

func TestPollFailuresSurviveASnapshot(t *testing.T) {
	cfg := handoff.DefaultConfig()
	c := fsm.NewCore(cfg, t0)
	step(c, unread(0))
	step(c, unread(2))
	r2, err := fsm.Resume(cfg, c.Snapshot())
	if err != nil {
		t.Fatal(err)
	}
	if r := step(r2, unread(4)); ending(r) != "terminal_error" {
		t.Fatalf("the resumed core forgot two failures: %s %q", r.State, ending(r))
	}
	bad := c.Snapshot()
	bad.PollFailures = -1
	if _, err := fsm.Resume(cfg, bad); !errors.Is(err, fsm.ErrBadSnapshot) {
		t.Fatalf("negative failure count resumed: %v", err)
	}
}

func TestConfigMaxPollFailures(t *testing.T) {
	if got := handoff.DefaultConfig().MaxPollFailures; got != 3 {
		t.Fatalf("default %d, want 3", got)
	}
	if err := (handoff.Config{}).Validate(); err != nil {
		t.Fatalf("the zero Config is the defaults: %v", err)
	}
	cfg := handoff.DefaultConfig()
	cfg.MaxPollFailures = 0
	if err := cfg.Validate(); !errors.Is(err, handoff.ErrInvalidConfig) || !strings.Contains(err.Error(), "max poll failures") {
		t.Fatalf("zero failures allowed in a non-zero Config: %v", err)
	}
}

// flaky is a terminal whose status polls fail on the polls listed (1 for
// the first), with the error given; the agent works for the first workFor
// polls that succeed, then writes its answer and goes idle.
type flaky struct {
	mu      sync.Mutex
	n, good int
	fail    map[int]error
	workFor int
	answerer
}

// newFlaky is a flaky terminal whose answer is "the answer\n" at path.
func newFlaky(path string, workFor int, fail map[int]error) *flaky {
	return &flaky{fail: fail, workFor: workFor, answerer: answerer{path: path, answer: "the answer\n"}}
}

func (f *flaky) Status(ctx context.Context) (handoff.Status, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if err, ok := f.fail[f.n]; ok {
		if errors.Is(err, handoff.ErrTerminalError) { // stands for "the screen shows an error"
			return handoff.StatusError, err
		}
		return "", err
	}
	f.good++
	return f.status(f.good <= f.workFor)
}

func TestDriverRetriesFlakyPolls(t *testing.T) {
	gone := fmt.Errorf("pane %%3 is gone: %w", handoff.ErrTerminalGone)
	screen := fmt.Errorf("%w: the agent shows: boom", handoff.ErrTerminalError)
	for _, tc := range []struct {
		name  string
		fail  map[int]error
		polls int    // polls taken
		cause error  // the WaitError's cause; nil: done from the file
		want  string // in the error's message
	}{
		{"one failed poll, then the answer", map[int]error{2: errBusy}, 4, nil, ""},
		{"two in a row, twice", map[int]error{1: errBusy, 2: errBusy, 4: errBusy, 5: errBusy}, 7, nil, ""},
		{"two failed polls right before the answer", map[int]error{3: errBusy, 4: errBusy}, 5, nil, ""},
		{"three in a row fail with the cause", map[int]error{2: errBusy, 3: errBusy, 4: errBusy}, 4, errBusy, "tmux busy"},
		{"a gone pane fails at once", map[int]error{2: gone}, 2, handoff.ErrTerminalGone, "pane %3 is gone"},
		{"a gone pane after failures fails at once", map[int]error{2: errBusy, 3: gone}, 3, handoff.ErrTerminalGone, "gone"},
		{"an error status fails at once", map[int]error{2: screen}, 2, screen, "boom"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, p, clk := setup(t)
			term := newFlaky(p, 2, tc.fail)
			res, err := fsm.Wait(context.Background(), term, fsm.Options{
				Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
			})
			if res.Polls != tc.polls {
				t.Errorf("%d polls, want %d", res.Polls, tc.polls)
			}
			if tc.cause == nil {
				if err != nil || res.Content != "the answer\n" {
					t.Fatalf("got %q, %v; want the answer", res.Content, err)
				}
				return
			}
			var we *handoff.WaitError
			if !errors.As(err, &we) || !errors.Is(err, handoff.ErrTerminalError) || !errors.Is(err, tc.cause) {
				t.Fatalf("error %v; want a terminal error wrapping %v", err, tc.cause)
			}
			if !strings.Contains(err.Error(), tc.want) || we.Detail == "" {
				t.Fatalf("error %q does not say %q", err, tc.want)
			}
		})
	}
}

// A failed poll takes no more time than a good one: the next look is one
// interval later, and the timeline goes on as if it had not happened.
func TestFailedPollsKeepThePollInterval(t *testing.T) {
	work, p, _ := setup(t)
	clk := vclock.New(t0)
	term := newFlaky(p, 4, map[int]error{3: errBusy})
	var ats []float64
	res, err := fsm.Wait(context.Background(), term, fsm.Options{
		Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
		OnPoll: func(p fsm.Poll) {
			ats = append(ats, p.Elapsed.Seconds())
			if p.Unreadable != (p.N == 3) {
				t.Errorf("poll %d: unreadable %v", p.N, p.Unreadable)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{0, 2, 4, 6, 8, 10}; fmt.Sprint(ats) != fmt.Sprint(want) {
		t.Fatalf("polls at %v, want %v", ats, want)
	}
	if res.Journal[0].From != handoff.AwaitingStart || res.Journal[0].To != handoff.Working {
		t.Fatalf("journal %+v", res.Journal)
	}
}

package fsm_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// blank is a look at a live terminal that showed nothing.
func blank(s float64) fsm.Observation {
	return fsm.Observation{At: at(s), Blank: true, File: fsm.FileAbsent, Detail: "the pane shows nothing"}
}

// A blank look is no observation and no failed look: any number of them
// changes nothing until the response deadline, where the last status read
// decides as it would have on its own.
func TestCoreBlankLooksAreNoObservation(t *testing.T) {
	cfg := handoff.DefaultConfig() // 3 failures in a row, grace 30 s, timeout 1800 s
	many := func(from, to, every float64) []fsm.Observation {
		var o []fsm.Observation
		for s := from; s < to; s += every {
			o = append(o, blank(s))
		}
		return o
	}
	cat := func(parts ...[]fsm.Observation) []fsm.Observation {
		var all []fsm.Observation
		for _, p := range parts {
			all = append(all, p...)
		}
		return all
	}
	busy := func(s float64) []fsm.Observation {
		return []fsm.Observation{obs(s, handoff.StatusProcessing, fsm.FileAbsent)}
	}
	idle := func(s float64, f fsm.FileState) []fsm.Observation {
		return []fsm.Observation{obs(s, handoff.StatusIdle, f)}
	}
	for _, tc := range []struct {
		name  string
		obs   []fsm.Observation
		state handoff.State
		end   string
	}{
		{"a hundred blank looks change nothing", many(0, 100, 1), handoff.AwaitingStart, ""},
		{"nor start the agent", cat(many(0, 20, 1), idle(31, fsm.FileAbsent)), handoff.StartupTimeout, ""},
		{"nor stop it", cat(busy(1), many(2, 100, 1)), handoff.Working, ""},
		{"nor break the grace", cat(busy(1), idle(2, fsm.FileAbsent), many(3, 30, 1), idle(33, fsm.FileAbsent)), handoff.Failed, "no_response_file"},
		{"nor end it", cat(busy(1), idle(2, fsm.FileAbsent), many(3, 100, 1)), handoff.IdleGrace, ""},
		{"nor count as failed looks", cat([]fsm.Observation{unread(0), unread(1)}, many(2, 20, 1)), handoff.AwaitingStart, ""},
		{"nor reset their count", cat([]fsm.Observation{unread(0), unread(1)}, many(2, 20, 1), []fsm.Observation{unread(21)}), handoff.Failed, "terminal_error"},
		{"the screen back, the file is read", cat(busy(1), many(2, 20, 1), idle(21, fsm.FileReady)), handoff.Done, "file"},
		{"at the deadline, busy last: timeout", cat(busy(1), many(2, 1811, 10)), handoff.Failed, "timeout"},
		{"at the deadline, nothing read: timeout", many(0, 1811, 10), handoff.Failed, "timeout"},
		{"at the deadline, quiet last: no response file", cat(busy(1), idle(1790, fsm.FileAbsent), many(1791, 1801, 1)), handoff.Failed, "no_response_file"},
		{"at the deadline, quiet last and a file: the file", cat(busy(1), idle(1790, fsm.FileAbsent), []fsm.Observation{{At: at(1800), Blank: true, File: fsm.FileReady}}), handoff.Done, "file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := fsm.NewCore(cfg, t0)
			var r fsm.Ready
			for _, o := range tc.obs {
				r = step(c, o)
				for _, e := range r.Transitions {
					if e.Event == handoff.EventTerminalError && tc.end != "terminal_error" {
						t.Fatalf("a blank look fired %+v", e)
					}
				}
				if r.Outcome != nil {
					break
				}
			}
			if r.State != tc.state || ending(r) != tc.end {
				t.Fatalf("state %s ending %q, want %s %q", r.State, ending(r), tc.state, tc.end)
			}
			if _, err := fsm.Resume(cfg, c.Snapshot()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// blanking is a live terminal that shows nothing on polls from..to (1 for
// the first), busy before, idle after; with answer it then writes the
// response file.
type blanking struct {
	mu       sync.Mutex
	n        int
	from, to int
	answerer
}

func (b *blanking) Status(context.Context) (handoff.Status, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.n++
	switch {
	case b.n < b.from:
		return handoff.StatusProcessing, nil
	case b.n <= b.to:
		// As tmuxdriver says it: its own error, matching ErrNothingShown.
		return "", fmt.Errorf("pane %%1: %w", handoff.ErrNothingShown)
	}
	return b.status(false)
}

func (b *blanking) LastOutput(context.Context) (string, error) { return "", errors.New("blank") }

// The guarantee, through the driver: a live terminal that shows nothing,
// for many more polls than MaxPollFailures, never ends the wait as a
// terminal error; the wait ends as it would have without the blank looks,
// or by its deadline.
func TestDriverWaitsThroughABlankTerminal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to int
		answer   bool
		want     error // nil: done from the file
		at       time.Duration
	}{
		{"blank, then the answer", 2, 40, true, nil, 0},
		{"blank, then quiet without a file", 2, 40, false, handoff.ErrNoResponseFile, 0},
		{"blank from the first look to the deadline", 1, 1 << 30, false, handoff.ErrTimeout, 1800 * time.Second},
		{"busy, then blank to the deadline", 3, 1 << 30, false, handoff.ErrTimeout, 1800 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			work, p, clk := setup(t)
			term := &blanking{from: tc.from, to: tc.to, answerer: answerer{path: p}}
			if tc.answer {
				term.answer = "the answer\n"
			}
			blanks := 0
			res, err := fsm.Wait(context.Background(), term, fsm.Options{
				Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(),
				OnPoll: func(p fsm.Poll) {
					if p.Blank {
						blanks++
						if p.Unreadable || (p.Outcome == nil && p.Status != "") {
							t.Errorf("poll %d: blank with status %q, unreadable %v", p.N, p.Status, p.Unreadable)
						}
					}
				},
			})
			if blanks <= handoff.DefaultMaxPollFailures {
				t.Fatalf("%d blank polls: the case does not exceed the failure limit", blanks)
			}
			if errors.Is(err, handoff.ErrTerminalError) {
				t.Fatalf("a blank live terminal ended the wait as a terminal error: %v", err)
			}
			if tc.want == nil {
				if err != nil || res.Content != "the answer\n" {
					t.Fatalf("got %q, %v; want the answer", res.Content, err)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if tc.at > 0 && res.Elapsed < tc.at {
				t.Fatalf("ended after %v, before the %v deadline", res.Elapsed, tc.at)
			}
		})
	}
}

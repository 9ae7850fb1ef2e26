package e2e

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
)

// TestMeasureOpenCodeBlankFrames measures how long the real OpenCode's
// pane shows nothing at all: a fresh session gets a prompt pasted and
// submitted as the engine does it (tmuxdriver's Send), then a second one,
// while the pane is captured every 20 ms. It asserts nothing about the
// durations (they depend on the machine); it logs each blank stretch and
// the longest. HANDOFF_MEASURE_RUNS sets the number of sessions (3):
//
//	HANDOFF_MEASURE=1 go test ./e2e -run TestMeasureOpenCodeBlankFrames -v -timeout 20m
func TestMeasureOpenCodeBlankFrames(t *testing.T) {
	if os.Getenv("HANDOFF_MEASURE") == "" {
		t.Skip("set HANDOFF_MEASURE=1 to measure OpenCode's blank frames")
	}
	runs := 3
	if n, err := strconv.Atoi(os.Getenv("HANDOFF_MEASURE_RUNS")); err == nil && n > 0 {
		runs = n
	}
	var longest time.Duration
	for i := 0; i < runs; i++ {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			r := newOpenCodeRigAt(t, realopencode.Options{}, t.TempDir())
			began := time.Now()
			stop := sampleBlanks(r, began)
			var sent []time.Duration // when each prompt was pasted
			// Logged also when a turn does not finish (a loaded machine).
			defer func() {
				blanks := stop()
				for _, b := range blanks {
					n := 0
					for n < len(sent) && sent[n] <= b.at {
						n++
					}
					t.Logf("blank for %v, from %v after paste %d%s", b.length.Round(time.Millisecond), (b.at - sent[max(n-1, 0)]).Round(time.Millisecond), n,
						map[bool]string{true: " (still blank at the end)"}[b.open])
					longest = max(longest, b.length)
				}
				t.Logf("%d blank stretch(es)", len(blanks))
			}()
			p := r.pane()
			for j, prompt := range []string{"Answer briefly.", "Answer once more."} {
				reply := "Reply number " + strconv.Itoa(j) + "."
				r.model.Script(fakemodel.Answer(reply).After(1500 * time.Millisecond))
				sent = append(sent, time.Since(began))
				if err := p.Send(context.Background(), prompt); err != nil {
					t.Fatal(err)
				}
				r.waitScreen(90*time.Second, "turn finished", func(pl, _ string) bool { return openCodeFinished(pl, "", reply) })
			}
		})
	}
	t.Logf("longest blank stretch over %d sessions: %v", runs, longest.Round(time.Millisecond))
}

type blankStretch struct {
	at, length time.Duration
	open       bool // the pane was still blank when sampling stopped
}

// sampleBlanks captures r's pane every 20 ms until the function it returns
// is called, which returns the stretches in which the pane showed nothing
// (times since began).
func sampleBlanks(r *rig, began time.Time) func() []blankStretch {
	var (
		out    []blankStretch
		done   = make(chan struct{})
		ctx, c = context.WithCancel(context.Background())
	)
	go func() {
		defer close(done)
		var since time.Time
		for ctx.Err() == nil {
			text, _, err := r.cli.CapturePlain(ctx)
			now := time.Now()
			if err == nil && strings.TrimSpace(text) == "" {
				if since.IsZero() {
					since = now
				}
			} else if err == nil && !since.IsZero() {
				out = append(out, blankStretch{at: since.Sub(began), length: now.Sub(since)})
				since = time.Time{}
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !since.IsZero() {
			out = append(out, blankStretch{at: since.Sub(began), length: time.Since(since), open: true})
		}
	}()
	return func() []blankStretch {
		c()
		<-done
		return out
	}
}

package tmuxdriver_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// blankingAgent is a full-screen agent (on the alternate screen, as
// OpenCode is: a cleared screen leaves no scrollback behind) that shows a
// prompt; once a prompt came in (no more input for a second) it works for
// two seconds (no prompt shown), then shows nothing for blank seconds (for
// ever if negative), then the prompt again. It never writes a response
// file.
func blankingAgent(blank float64) string {
	return fmt.Sprintf(`exec perl -e '$|=1; print "\e[?1049h\e[H"; print "\e]0;idle\a", "READY> ";
<STDIN>; $r = ""; vec($r, 0, 1) = 1; while (select($x = $r, undef, undef, 1)) { <STDIN> }
print "\e]0;busy\a\e[2J\e[Hworking"; sleep 2;
print "\e[2J\e[H"; $b=%v; if ($b < 0) { sleep 600 } select(undef,undef,undef,$b);
print "\e]0;idle\a", "READY> "; sleep 600'`, blank)
}

// The guarantee for a blank live pane: however long it shows nothing (here
// far longer than BlankWait times MaxPollFailures), it never ends a
// dispatch as the agent's error. The dispatch waits for a real screen and
// ends as that screen says (strict, no file: ErrNoResponseFile), or, if
// none comes, at its response deadline (ErrTimeout).
func TestABlankLivePaneNeverEndsADispatch(t *testing.T) {
	for _, tc := range []struct {
		name    string
		blank   float64 // seconds; negative: for ever
		timeout time.Duration
		want    error
	}{
		{"blank-then-prompt", 3*tmuxdriver.BlankWait.Seconds() + 4, time.Minute, handoff.ErrNoResponseFile},
		{"blank-for-ever", -1, 3*tmuxdriver.BlankWait + 6*time.Second, handoff.ErrTimeout},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testServer(t)
			id := newWindow(t, srv, blankingAgent(tc.blank))
			p, err := tmuxdriver.New(tmuxdriver.Options{Server: srv, Target: id, Classifier: testClassifier{}})
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "the prompt", func() bool {
				st, err := p.Status(context.Background())
				return err == nil && st == handoff.StatusIdle
			})
			work := t.TempDir()
			if err := responsefile.EnsureDir(work); err != nil {
				t.Fatal(err)
			}
			cfg := handoff.DefaultConfig()
			cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, time.Second, tc.timeout
			blanks := 0
			ctx, cancel := context.WithTimeout(context.Background(), 2*tc.timeout)
			defer cancel()
			res, err := fsm.SendAndWait(ctx, p, p, "Answer briefly.", fsm.Options{
				Config: cfg, Role: "analyst", Workdir: work,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
				OnPoll: func(p fsm.Poll) {
					if p.Blank {
						blanks++
					}
				},
			})
			if errors.Is(err, handoff.ErrTerminalError) {
				t.Fatalf("a blank live pane ended the dispatch as a terminal error: %v", err)
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if blanks <= cfg.MaxPollFailures {
				t.Fatalf("%d blank polls, no more than MaxPollFailures (%d): the pane was not blank long enough to test anything", blanks, cfg.MaxPollFailures)
			}
			if tc.want == handoff.ErrTimeout && res.Elapsed < tc.timeout {
				t.Fatalf("ended after %v, before the %v response timeout", res.Elapsed, tc.timeout)
			}
			t.Logf("%d blank polls; ended after %v: %v", blanks, res.Elapsed.Round(time.Millisecond), err)
		})
	}
}

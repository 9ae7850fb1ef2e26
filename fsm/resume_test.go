package fsm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/internal/vclock"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
	"github.com/handoff-fsm/handoff-fsm/trace"
)

var errCrash = errors.New("crash")

// outcomeOf is everything a wait's caller sees, in comparable form: paths
// relative to the work folder, times relative to dispatch, and the archive's
// files with their contents.
func outcomeOf(work string, res fsm.Result, err error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "err=%q kind=%q source=%q content=%q elapsed=%v polls=%d\n",
		errString(err), handoff.ErrorKind(err), res.Source, res.Content, res.Elapsed, res.Polls)
	if res.ArchivedPath != "" {
		rel, _ := filepath.Rel(work, res.ArchivedPath)
		fmt.Fprintf(&b, "archived=%s\n", rel)
	}
	for _, e := range res.Journal {
		fmt.Fprintf(&b, "  %v %s -%s-> %s (%s)\n", e.At.Sub(res.DispatchedAt), e.From, e.Event, e.To, e.Status)
	}
	files, _ := filepath.Glob(filepath.Join(work, ".tmp", "*", "*"))
	for _, f := range files {
		rel, _ := filepath.Rel(work, f)
		c, _ := os.ReadFile(f)
		if strings.HasSuffix(f, ".lock") {
			c = nil // the holder's pid
		}
		fmt.Fprintf(&b, "file %s %q\n", rel, c)
	}
	return b.String()
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// roundTrip passes a checkpoint through JSON, as a state file does.
func roundTrip(t testing.TB, cp fsm.Checkpoint) fsm.Checkpoint {
	b, err := json.Marshal(cp)
	if err != nil {
		t.Fatal(err)
	}
	var out fsm.Checkpoint
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withoutFilesUpTo drops the file moments a crashed run's script already
// wrote (those at or before elapsed): they are on disk, or consumed.
func withoutFilesUpTo(lines []trace.Line, elapsed time.Duration) []trace.Line {
	out := make([]trace.Line, len(lines))
	for i, l := range lines {
		if l.At <= elapsed {
			l.File = nil
		}
		out[i] = l
	}
	return out
}

type splitRun struct {
	t     *testing.T
	cfg   handoff.Config
	lines []trace.Line
}

// wait runs the timeline in work from dispatch; crashAt ≥ 0 makes the
// crashAt-th checkpoint (0 for the first) the last one, as if the process
// died right after saving it.
func (s splitRun) wait(work string, crashAt int) (fsm.Result, error, []fsm.Checkpoint) {
	p := testkit.ResponseFile(s.t, work, "analyst")
	clk := vclock.New(t0)
	var cps []fsm.Checkpoint
	res, err := fsm.Wait(context.Background(), trace.NewScript(s.lines, clk, p), fsm.Options{
		Config: s.cfg, Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(), Observer: func(fsm.Entry) {},
		OnCheckpoint: func(cp fsm.Checkpoint) error {
			cps = append(cps, roundTrip(s.t, cp))
			if len(cps)-1 == crashAt {
				return errCrash
			}
			return nil
		},
	})
	return res, err, cps
}

// resume goes on from cp in work, in a "new process": a new clock at the
// checkpoint's time and a script that does not write again what the dead
// one wrote.
func (s splitRun) resume(work string, cp fsm.Checkpoint) (fsm.Result, error) {
	p, _ := handoff.ResponsePath(work, "analyst")
	clk := vclock.New(t0)
	script := trace.NewScript(withoutFilesUpTo(s.lines, cp.Core.LastAt.Sub(t0)), clk, p)
	if !cp.Core.LastAt.IsZero() {
		clk.SleepUntil(context.Background(), cp.Core.LastAt)
	}
	return fsm.Wait(context.Background(), script, fsm.Options{
		Config: s.cfg, Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(), Observer: func(fsm.Entry) {},
		Resume: &cp,
	})
}

// TestResumeAtEveryStepEndsAsTheUninterruptedWait splits seeded random
// timelines at every checkpoint (after every poll and before every
// consume), resumes each in a "new process" and checks it ends exactly as
// the uninterrupted wait: outcome, response, journal, polls, archive. A
// crash during a consume is resumed both before and after the file moved.
func TestResumeAtEveryStepEndsAsTheUninterruptedWait(t *testing.T) {
	seeds := 60
	if testing.Short() || raceEnabled {
		seeds = 15
	}
	root := t.TempDir()
	splits, consumes := 0, 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		cfg, lines := randomTimeline(seed)
		if cfg.ResponseTimeout/cfg.Poll > 120 { // long waits: the first 120 polls' worth
			cfg.ResponseTimeout = 120 * cfg.Poll
		}
		s := splitRun{t: t, cfg: cfg, lines: lines}
		whole := filepath.Join(root, fmt.Sprint(seed))
		res, err, cps := s.wait(whole, -1)
		want := outcomeOf(whole, res, err)
		if err != nil && handoff.ErrorKind(err) == "" {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for k, cp := range cps {
			variants := []bool{false}
			if cp.Core.Consuming != nil {
				variants = append(variants, true)
				consumes++
			}
			for _, moved := range variants {
				work := filepath.Join(root, fmt.Sprintf("%d-%d-%v", seed, k, moved))
				_, cerr, got := s.wait(work, k)
				if !errors.Is(cerr, errCrash) || len(got) != k+1 {
					t.Fatalf("seed %d: crash at checkpoint %d: %v after %d checkpoints", seed, k, cerr, len(got))
				}
				cp := got[k]
				if moved {
					// Died inside the consume, after the file was moved.
					p, _ := handoff.ResponsePath(work, "analyst")
					if _, err := responsefile.Consume(p, "analyst", cfg.MaxResponseBytes, cp.Receipt, responsefile.OpenArchive(cp.ArchiveDir, cp.ArchiveSeq)); err != nil {
						t.Fatal(err)
					}
				}
				rres, rerr := s.resume(work, cp)
				if got := outcomeOf(work, rres, rerr); got != want {
					c := trace.Config{Wait: cfg}
					var b strings.Builder
					_ = trace.Write(&b, trace.Trace{Config: &c, Lines: lines})
					t.Fatalf("seed %d, resumed at checkpoint %d of %d (moved %v, %+v):\n got: %s\nwant: %s\ntrace:\n%s",
						seed, k, len(cps), moved, cp.Core, got, want, b.String())
				}
				splits++
			}
		}
	}
	t.Logf("%d timelines split at every checkpoint: %d resumed waits (%d inside a consume), each ended as the uninterrupted one", seeds, splits, consumes)
}

func TestResumeRefusesWhatItCannotContinue(t *testing.T) {
	work, _, clk := setup(t)
	final := fsm.Checkpoint{ArchiveDir: filepath.Join(work, "a"),
		Core: fsm.Snapshot{State: handoff.Done, DispatchedAt: t0, End: handoff.EventFileReady}}
	noArchive := fsm.Checkpoint{Core: fsm.Snapshot{State: handoff.Working, DispatchedAt: t0}}
	for name, cp := range map[string]fsm.Checkpoint{"finished": final, "no archive": noArchive} {
		if _, err := fsm.Wait(context.Background(), &flaky{}, fsm.Options{Role: "analyst", Workdir: work, Clock: clk, Logger: quiet(), Resume: &cp}); !errors.Is(err, fsm.ErrBadSnapshot) {
			t.Errorf("%s: %v, want ErrBadSnapshot", name, err)
		}
	}
	// SendAndWait given a checkpoint resumes too: it never sends again.
	cp := noArchive
	g := newGated("", "")
	if _, err := fsm.SendAndWait(context.Background(), g, &flaky{}, "again", fsm.Options{Role: "analyst", Workdir: work, Resume: &cp}); !errors.Is(err, fsm.ErrBadSnapshot) {
		t.Errorf("SendAndWait with a bad checkpoint: %v, want ErrBadSnapshot", err)
	}
	if g.sent != 0 {
		t.Error("SendAndWait with a checkpoint sent the prompt again")
	}
}

// Ctrl-C: the wait stops within one poll with the context's error, and the
// response file and the archive are as they were.
func TestCancelStopsWithinOnePollAndTouchesNothing(t *testing.T) {
	for i := range 3 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			work, p, _ := setup(t)
			cfg := handoff.DefaultConfig()
			cfg.Poll = 50 * time.Millisecond
			// The agent works, its answer half written.
			if err := os.WriteFile(p, []byte("half an ans"), 0o644); err != nil {
				t.Fatal(err)
			}
			term := newFlaky(p, 1<<30, nil)
			ctx, cancel := context.WithCancel(context.Background())
			polls := make(chan struct{}, 100)
			var cancelled time.Time
			done := make(chan error, 1)
			var last fsm.Checkpoint
			go func() {
				_, err := fsm.Wait(ctx, term, fsm.Options{Config: cfg, Role: "analyst", Workdir: work, Logger: quiet(),
					OnPoll:       func(fsm.Poll) { polls <- struct{}{} },
					OnCheckpoint: func(cp fsm.Checkpoint) error { last = cp; return nil },
				})
				done <- err
			}()
			for range 3 {
				<-polls
			}
			time.Sleep(time.Duration(i) * 15 * time.Millisecond) // at various points of the interval
			cancelled = time.Now()
			cancel()
			err := <-done
			if took := time.Since(cancelled); !errors.Is(err, context.Canceled) || took > cfg.Poll {
				t.Fatalf("%v after %v; want context.Canceled within one poll (%v)", err, took, cfg.Poll)
			}
			if b, err := os.ReadFile(p); err != nil || string(b) != "half an ans" {
				t.Fatalf("response file now %q (%v)", b, err)
			}
			if entries, _ := os.ReadDir(filepath.Join(work, ".tmp")); len(entries) != 1 {
				t.Fatalf("an archive was made: %v", entries)
			}
			if last.Core.State != handoff.Working || last.Core.Polls < 3 {
				t.Fatalf("last checkpoint %+v: want Working after the polls, to resume from", last.Core)
			}
		})
	}
}

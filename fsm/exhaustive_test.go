package fsm_test

import (
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// The exhaustive check: every sequence of observations up to a length, over
// every status × file state × time around each deadline, fed to the pure
// core, each step checked against the invariants the spec promises and
// against an oracle written from the spec's words (not from the core's
// states). The set of moves that occur must be exactly the table's edges.

// fileKind is what one observation finds at the response path.
type fileKind int

const (
	noFile       fileKind = iota // nothing at the path
	answerFile                   // a file with an answer
	blankFile                    // a file with nothing but white space
	unusableFile                 // a thing that cannot be an answer (a symlink, a FIFO, too large)
	// otherFile: a file carrying another dispatch's receipt (an earlier
	// prompt's late answer).
	otherFile
	// notTakenFile: this dispatch's answer, but the agent's screen shows
	// the prompt was not taken whole and once (the check at the end).
	notTakenFile
)

func (f fileKind) String() string {
	return [...]string{"absent", "answer", "blank", "unusable", "other", "not-taken"}[f]
}

// submission is what the agent's screen shows it took, as the driver
// reports it with the file (Core.FileRead).
func (f fileKind) submission() handoff.Submission {
	if f == notTakenFile {
		return handoff.Submission{Messages: []handoff.Message{{Taken: handoff.TakenWhole}, {Taken: handoff.TakenWhole}}}
	}
	return handoff.Submission{}
}

// consumed is what the driver reports to FileConsumed for a file kind:
// what it found when it consumed it, or that it could not.
func (f fileKind) consumed() fsm.FileState {
	switch f {
	case blankFile:
		return fsm.FileBlank
	case otherFile:
		return fsm.FileMismatched
	case unusableFile:
		return fsm.FileUnusable
	}
	return fsm.FileReady
}

// xobs is one observation of an enumerated sequence.
type xobs struct {
	at     time.Duration // since dispatch
	status handoff.Status
	file   fileKind
}

func (o xobs) String() string { return fmt.Sprintf("%v:%s/%s", o.at, o.status, o.file) }

// unreadable stands for a look at a terminal that could not be read (not
// gone): Observation.Unreadable.
const unreadable handoff.Status = "(unreadable)"

// exhaustive is one run of the enumeration: a config, the alphabet and the
// length; it collects the moves seen and counts sequences.
type exhaustive struct {
	t        *testing.T
	cfg      handoff.Config
	statuses []handoff.Status
	depth    int
	delta    time.Duration // "just before / just after" a deadline
	edges    map[[3]string]bool
	table    map[[3]string]bool
	// sequences counts every sequence checked: each one that ends (Done or
	// Failed) and each one still waiting at the full length.
	sequences int
	steps     int
	cores     []*fsm.Core
	failures  int
}

// times are the moments the next observation may be taken at: just after
// the last one, and just before, at and just after the core's next deadline
// (and the response deadline, when it is not the next one). Never before
// the last observation; each moment once.
func (x *exhaustive) times(now time.Duration, deadline time.Duration) []time.Duration {
	cands := []time.Duration{now + x.delta, deadline - x.delta, deadline, deadline + x.delta}
	if rt := x.cfg.ResponseTimeout; rt != deadline {
		cands = append(cands, rt, rt+x.delta)
	}
	var out []time.Duration
	seen := map[time.Duration]bool{}
	for _, c := range cands {
		if c < now || seen[c] {
			continue
		}
		seen[c] = true
		out = append(out, c)
	}
	return out
}

// files are the file states worth telling apart for a status: the core
// only looks at the file while the agent is quiet (idle/completed), and an
// error wins whatever is there, so for those an answer, a blank file and
// another dispatch's answer are the same input (the core sees "something
// at the path", and never asks to consume it).
func files(st handoff.Status) []fileKind {
	if st == unreadable {
		return []fileKind{noFile} // the driver does not look at the file then
	}
	if st.Quiet() {
		return []fileKind{noFile, answerFile, blankFile, unusableFile, otherFile, notTakenFile}
	}
	return []fileKind{noFile, answerFile}
}

// run enumerates from a fresh core.
func (x *exhaustive) run() {
	// One core per length, reset to the parent's snapshot for each child.
	for range x.depth + 1 {
		x.cores = append(x.cores, fsm.NewCore(x.cfg, t0))
	}
	x.walk(x.cores[0].Snapshot(), nil)
}

func (x *exhaustive) walk(snap fsm.Snapshot, hist []xobs) {
	if len(hist) == x.depth {
		x.sequences++
		return
	}
	now := time.Duration(0)
	if n := len(hist); n > 0 {
		now = hist[n-1].at
	}
	c := x.cores[len(hist)]
	c.ResetTo(snap)
	deadline := c.Deadline().Sub(t0)
	for _, at := range x.times(now, deadline) {
		for _, st := range x.statuses {
			for _, f := range files(st) {
				if x.failures > 5 {
					return
				}
				c.ResetTo(snap)
				o := xobs{at: at, status: st, file: f}
				h := append(hist[:len(hist):len(hist)], o)
				r := x.step(c, h)
				if r.State.Final() {
					x.sequences++
					continue
				}
				x.walk(c.Snapshot(), h)
			}
		}
	}
}

// step feeds the last observation of h to c as the driver does, and checks
// what came out.
func (x *exhaustive) step(c *fsm.Core, h []xobs) fsm.Ready {
	x.steps++
	o := h[len(h)-1]
	before := c.State()
	ob := fsm.Observation{At: t0.Add(o.at), Status: o.status, File: fsm.FileAbsent}
	if o.status == unreadable {
		ob.Status, ob.Unreadable, ob.Detail = handoff.StatusError, true, "tmux busy"
	}
	if o.file != noFile {
		ob.File = fsm.FilePresent
	}
	r := c.Step(ob)
	fired := r.Transitions
	if r.Action == fsm.ConsumeFile {
		if !o.status.Quiet() || o.file == noFile {
			x.fail(h, "asked to consume the file while %s with %s", o.status, o.file)
		}
		if len(fired) > 0 {
			x.fail(h, "moved before the file was consumed: %v", fired)
		}
		r = c.FileRead(o.file.consumed(), o.file.submission())
		fired = append(fired, r.Transitions...)
	} else if o.status.Quiet() && o.file != noFile && o.status != handoff.StatusError && !before.Final() {
		x.fail(h, "quiet with a file at the path, but not asked to consume it")
	}

	// The moves are a chain the table allows.
	state := before
	for _, e := range fired {
		k := [3]string{string(e.From), string(e.Event), string(e.To)}
		if e.From != state || !x.table[k] {
			x.fail(h, "move %s -%s-> %s from state %s is not in the table", e.From, e.Event, e.To, state)
		}
		if !e.At.Equal(ob.At) || e.Status != ob.Status {
			x.fail(h, "journal entry %+v does not carry its observation", e)
		}
		x.edges[k] = true
		state = e.To
	}
	if state != r.State || state != c.State() {
		x.fail(h, "ends in %s, ready says %s, core says %s", state, r.State, c.State())
	}

	if o.status == unreadable && r.Outcome == nil && (len(fired) > 0 || r.State != before) {
		x.fail(h, "an unreadable look moved the dispatch: %v", fired)
	}

	// What the spec says should have happened, worked out from the history.
	want := oracle(x.cfg, h)
	got := ""
	if r.Outcome != nil {
		got = r.Outcome.Name
		if last := fired[len(fired)-1]; r.Outcome.Name != outcomeNames[last.Event] {
			x.fail(h, "outcome %s, but the last move was %s", r.Outcome.Name, last.Event)
		}
	}
	if got != want {
		x.fail(h, "outcome %q, the spec says %q", got, want)
	}

	// The invariants, one by one, so a failure names the one broken.
	switch {
	case o.status == handoff.StatusError && got != "terminal_error": // a real error status, not an unreadable look
		x.fail(h, "error status did not win: %q", got)
	case got == "file" && (!o.status.Quiet() || o.file != answerFile):
		x.fail(h, "done from the file while %s with %s", o.status, o.file)
	case o.status.Quiet() && o.file == otherFile && !r.State.Final() && r.State != handoff.AwaitingStart:
		x.fail(h, "another dispatch's answer left the dispatch in %s, not back in AwaitingStart", r.State)
	case o.at >= x.cfg.ResponseTimeout && !r.State.Final():
		x.fail(h, "still waiting (%s) at %v, past the response timeout", r.State, o.at)
	}
	if got == "terminal_error" && o.status == unreadable && o.at < x.cfg.ResponseTimeout {
		n := 0
		for i := len(h) - 1; i >= 0 && h[i].status == unreadable; i-- {
			n++
		}
		if n < x.cfg.MaxPollFailures {
			x.fail(h, "failed after %d unreadable looks in a row, fewer than %d", n, x.cfg.MaxPollFailures)
		}
	}
	if got == "no_response_file" || got == "fallback" {
		since, m := sinceOther(h)
		if !started(since) && o.at < min(m+2*x.cfg.IdleGrace, x.cfg.ResponseTimeout) {
			x.fail(h, "agent never seen starting (since %v) given up on at %v, before min(that + 2×grace, timeout)", m, o.at)
		}
		if o.at < x.cfg.ResponseTimeout && !quietFor(since, m, x.cfg.IdleGrace) {
			x.fail(h, "grace ended at %v without the agent quiet on consecutive observations for the grace", o.at)
		}
	}
	if r.State.Final() != r.Deadline.IsZero() {
		x.fail(h, "state %s with deadline %v", r.State, r.Deadline)
	}
	// (After an unreadable look a deadline may have passed undecided: the
	// next poll decides it.)
	if !r.State.Final() && !r.Deadline.After(ob.At) && o.status != unreadable {
		x.fail(h, "waiting with a deadline %v not after the observation", r.Deadline.Sub(t0))
	}
	// Its snapshot resumes: a sample of them, as Resume builds a machine.
	if x.steps%997 == 0 {
		if _, err := fsm.Resume(x.cfg, c.Snapshot()); err != nil {
			x.fail(h, "snapshot does not resume: %v", err)
		}
	}
	return r
}

func (x *exhaustive) fail(h []xobs, format string, a ...any) {
	x.t.Helper()
	x.failures++
	parts := make([]string, len(h))
	for i, o := range h {
		parts[i] = o.String()
	}
	x.t.Errorf("config %+v, observations [%s]: %s", x.cfg, strings.Join(parts, " "), fmt.Sprintf(format, a...))
}

var outcomeNames = func() map[handoff.Event]string {
	m := map[handoff.Event]string{}
	for _, o := range handoff.Transitions() {
		if o.Outcome != nil {
			m[o.Event] = o.Outcome.Name
		}
	}
	return m
}()

// seen drops the unreadable looks: they are not observations of the agent.
func seen(h []xobs) []xobs {
	var out []xobs
	for _, o := range h {
		if o.status != unreadable {
			out = append(out, o)
		}
	}
	return out
}

// started reports whether the agent was ever seen doing something.
func started(h []xobs) bool {
	for _, o := range h {
		if o.status != unreadable && !o.status.Quiet() {
			return true
		}
	}
	return false
}

// sinceOther is h from its last observation that found another
// dispatch's answer (the agent had been busy with another prompt, so ours
// starts afresh there), and that observation's time; h and 0 when there is
// none.
func sinceOther(h []xobs) ([]xobs, time.Duration) {
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].status.Quiet() && h[i].file == otherFile {
			return h[i:], h[i].at
		}
	}
	return h, 0
}

// quietFor reports whether the last observations of h (unreadable looks
// left out), all quiet and
// without an answer, span at least grace, counted from the first of them
// that counts: after the agent was last seen working, or, for an agent never
// seen working, from the first observation at or after the startup timeout
// (the grace) counted from from (the dispatch, or the last observation that
// found another dispatch's answer).
func quietFor(h []xobs, from, grace time.Duration) bool {
	h = seen(h)
	i := len(h) - 1
	for i > 0 && h[i-1].status.Quiet() {
		i--
	}
	if !started(h) {
		for i < len(h) && h[i].at < from+grace { // the startup timeout is the grace
			i++
		}
		if i == len(h) {
			return false
		}
	}
	return h[len(h)-1].at-h[i].at >= grace
}

// oracle is the spec's rule for the last observation of h, given that none
// before it ended the wait: the outcome's name, or "" to go on waiting.
func oracle(cfg handoff.Config, h []xobs) string {
	o := h[len(h)-1]
	past := o.at >= cfg.ResponseTimeout
	if o.status == unreadable {
		n := 0
		for i := len(h) - 1; i >= 0 && h[i].status == unreadable; i-- {
			n++
		}
		if n >= cfg.MaxPollFailures || past {
			return "terminal_error"
		}
		return ""
	}
	switch {
	case o.status == handoff.StatusError:
		return "terminal_error"
	case !o.status.Quiet():
		if past {
			return "timeout"
		}
		return ""
	case o.file == answerFile:
		return "file"
	case o.file == unusableFile:
		return "unusable_response_file"
	case o.file == notTakenFile:
		return "prompt_not_taken"
	}
	// Quiet without an answer: a blank file counts as none, and so does
	// another dispatch's answer, after which ours counts as not started
	// (the agent was busy with that prompt): the startup timeout runs again
	// from there.
	since, m := sinceOther(h)
	if !started(since) && o.at < m+cfg.StartupTimeout() && !past {
		return ""
	}
	if past || quietFor(since, m, cfg.IdleGrace) {
		if cfg.Strict() {
			return "no_response_file"
		}
		return "fallback"
	}
	return ""
}

func TestExhaustiveCore(t *testing.T) {
	s := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	cfgOf := func(grace, timeout float64, fallback bool) handoff.Config {
		c := handoff.DefaultConfig()
		c.Poll, c.IdleGrace, c.ResponseTimeout, c.Fallback = time.Second, s(grace), s(timeout), fallback
		c.MaxPollFailures = 2 // reachable within the lengths checked
		return c
	}
	core := []handoff.Status{handoff.StatusIdle, handoff.StatusProcessing, handoff.StatusError, unreadable}
	all := []handoff.Status{handoff.StatusIdle, handoff.StatusCompleted, handoff.StatusProcessing,
		handoff.StatusWaitingUserAnswer, "thinking", handoff.StatusError, unreadable}
	// Length 5 (3 for every status) runs in about 5 s; HANDOFF_EXHAUSTIVE_DEPTH=6
	// goes further (docs/reliability.md has the figures). The race detector
	// makes the core ten times slower, so under it the sequences are shorter.
	depth := 5
	switch {
	case raceEnabled:
		depth = 3
	case testing.Short():
		depth = 4
	}
	if v := os.Getenv("HANDOFF_EXHAUSTIVE_DEPTH"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 8 {
			t.Fatalf("HANDOFF_EXHAUSTIVE_DEPTH=%q: want a length from 1 to 8", v)
		}
		depth = n
	}
	allDepth := max(depth-2, 1)
	runs := []struct {
		name     string
		cfg      handoff.Config
		statuses []handoff.Status
		depth    int
	}{
		{"strict, timeout > 2×grace", cfgOf(2, 9, false), core, depth},
		{"fallback, timeout > 2×grace", cfgOf(2, 9, true), core, depth},
		{"strict, timeout = 2×grace", cfgOf(2, 4, false), core, depth},
		{"strict, timeout < 2×grace", cfgOf(2, 3, false), core, depth},
		{"fallback, timeout < grace", cfgOf(2, 1.5, true), core, depth},
		{"strict, zero grace", cfgOf(0, 3, false), core, depth},
		{"every status, strict", cfgOf(2, 9, false), all, allDepth},
		{"every status, fallback", cfgOf(2, 9, true), all, allDepth},
	}
	table := allowed()
	seen := map[[3]string]bool{}
	total, steps := 0, 0
	start := time.Now()
	for _, run := range runs {
		x := &exhaustive{t: t, cfg: run.cfg, statuses: run.statuses, depth: run.depth,
			delta: 250 * time.Millisecond, edges: map[[3]string]bool{}, table: table}
		x.run()
		if x.failures > 0 {
			t.Fatalf("%s: %d failures", run.name, x.failures)
		}
		t.Logf("%-30s length ≤ %d: %9d sequences, %9d steps", run.name, run.depth, x.sequences, x.steps)
		total += x.sequences
		steps += x.steps
		for k := range x.edges {
			seen[k] = true
		}
	}
	t.Logf("exhaustive check: %d sequences of observations (%d core steps) in %v, all invariants held",
		total, steps, time.Since(start).Round(time.Millisecond))

	// The moves that occur are exactly the table's edges: none outside it
	// (checked step by step above) and none of its edges unreachable. The
	// opt-in behaviours (reminders, automatic answers, output or a
	// completion hook as a start signal) are off in the spec's configuration
	// checked here; their edges have their own table tests
	// (TestBehavioursRealAgentsNeed, TestStartOnOutput, the hook tests).
	optIn := map[string]bool{string(handoff.EventRemind): true, string(handoff.EventNeedsUser): true,
		string(handoff.EventOutputChanged): true, string(handoff.EventTurnCompleted): true}
	var missing []string
	specEdges := 0
	for k := range table {
		if optIn[k[1]] {
			continue
		}
		specEdges++
		if !seen[k] {
			missing = append(missing, fmt.Sprintf("%s -%s-> %s", k[0], k[1], k[2]))
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("table edges that no sequence takes: %v", missing)
	}
	if len(seen) != specEdges {
		t.Errorf("%d distinct moves occurred, the table has %d edges outside the opt-in behaviours", len(seen), specEdges)
	}
}

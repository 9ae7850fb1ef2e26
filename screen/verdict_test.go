package screen

import (
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// The order a provider that reads its chrome first decides in: an empty
// screen and a dialog before anything, then no composer, then a sign of
// work; only then the turn, where an error outranks a reply.
func TestAheadAndSettleDecideInTheProvidersOrder(t *testing.T) {
	ahead := func(capture string, nonBlank int, chrome string, working bool) (handoff.Status, string, bool) {
		return Ahead(capture, nonBlank, chrome, working, "dialog", "no composer", "busy")
	}
	for _, c := range []struct {
		name     string
		capture  string
		nonBlank int
		chrome   string
		working  bool
		want     handoff.Status
		reason   string
		decided  bool
	}{
		{"blanks only, even beside a sign of work", "  \n", 0, ChromeNone, true, handoff.StatusError, ReasonEmpty, true},
		{"a dialog while working", "x\n", 1, ChromeDialog, true, handoff.StatusWaitingUserAnswer, "dialog", true},
		{"no composer while working", "x\n", 1, ChromeNone, true, handoff.StatusIdle, "no composer", true},
		{"the composer while working", "x\n", 1, ChromeComposer, true, handoff.StatusProcessing, "busy", true},
		{"the composer, no work: the turn decides", "x\n", 1, ChromeComposer, false, "", "", false},
	} {
		st, reason, ok := ahead(c.capture, c.nonBlank, c.chrome, c.working)
		if st != c.want || reason != c.reason || ok != c.decided {
			t.Errorf("%s: %q %q %v, want %q %q %v", c.name, st, reason, ok, c.want, c.reason, c.decided)
		}
	}
	for _, c := range []struct {
		failed, replied bool
		want            handoff.Status
		reason          string
	}{
		{true, true, handoff.StatusError, "error"},
		{false, true, handoff.StatusCompleted, "completed"},
		{false, false, handoff.StatusIdle, "idle"},
	} {
		if st, reason := Settle(c.failed, c.replied, "error", "completed", "idle"); st != c.want || reason != c.reason {
			t.Errorf("failed %v, replied %v: %s %q, want %s %q", c.failed, c.replied, st, reason, c.want, c.reason)
		}
	}
}

// reading is a provider's reading as Reader sees it.
type reading struct {
	status handoff.Status
	title  string
	err    string
}

func (r *reading) Decide(title string) (handoff.Status, string) {
	r.title = title
	return r.status, "because"
}

func (r *reading) Found() (any, string) { return r.title, r.err }

// Reader hands the title to Decide, reports what the reading found as the
// signals, and quotes the error text only when the status is an error.
func TestReaderQuotesTheErrorOnlyForAnErrorStatus(t *testing.T) {
	for _, st := range []handoff.Status{handoff.StatusError, handoff.StatusCompleted} {
		read := Reader(func(capture string) *reading { return &reading{status: st, err: "boom: " + capture} })
		c := read("cap", "a title")
		if c.Status != st || c.Reason != "because" || c.Signals != "a title" {
			t.Errorf("%s: %+v", st, c)
		}
		if want := map[bool]string{true: "boom: cap", false: ""}[st == handoff.StatusError]; c.Detail != want {
			t.Errorf("%s: detail %q, want %q", st, c.Detail, want)
		}
	}
}

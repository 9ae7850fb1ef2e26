package loop

import "fmt"

// Flow is the loop's steps and gates without the dispatching: which role
// is asked what, in which order, and when a review sends the work back.
// Run drives it with real dispatches and a journal; contrib/temporal's
// workflow drives it with activities. It keeps no state of its own beyond
// one run, holds no clock and starts no goroutine, so a Temporal workflow
// may call it.
type Flow struct {
	// Task is what to build.
	Task string
	// Rounds is how many reviews each stage gets (DefaultRounds if 0).
	Rounds int
	// Ask sends prompt to role's agent and returns its answer; review
	// says the step is a review.
	Ask func(role, prompt string, review bool) (string, error)
	// Round, when set, is told each review's round as it starts, and 0
	// when a stage starts and when it ends.
	Round func(round int)
	// Approve, when set, is asked after a review that does not approve:
	// true approves the stage all the same (an approval from outside, as
	// the Temporal workflow's approve signal).
	Approve func() bool
	// Exhausted, when set, is told of a stage whose last review did not
	// approve: the loop goes on with the last revision.
	Exhausted func(reviewer string, reviews int)
}

// Run runs the loop and returns the tester's report.
func (f Flow) Run() (string, error) {
	if f.Rounds <= 0 {
		f.Rounds = DefaultRounds
	}
	analysis, err := f.reviewed("analyst", "analyst_review", AnalystPrompt(f.Task))
	if err != nil {
		return "", err
	}
	code, err := f.reviewed("programmer", "programmer_review", ProgrammerPrompt(analysis))
	if err != nil {
		return "", err
	}
	return f.Ask("tester", TesterPrompt(code), false)
}

// reviewed asks role, then reviewer; a review that does not approve sends
// the work back with the review, up to f.Rounds reviews.
func (f Flow) reviewed(role, reviewer, prompt string) (string, error) {
	f.round(0)
	work, err := f.Ask(role, prompt, false)
	if err != nil {
		return "", err
	}
	for round := 1; ; round++ {
		f.round(round)
		review, err := f.Ask(reviewer, ReviewPrompt(work), true)
		if err != nil {
			return "", err
		}
		if IsApproved(review) || f.Approve != nil && f.Approve() {
			f.round(0)
			return work, nil
		}
		if round >= f.Rounds {
			if f.Exhausted != nil {
				f.Exhausted(reviewer, round)
			}
			f.round(0)
			return work, nil
		}
		work, err = f.Ask(role, RevisePrompt(review, work), false)
		if err != nil {
			return "", err
		}
	}
}

func (f Flow) round(r int) {
	if f.Round != nil {
		f.Round(r)
	}
}

// exhausted is Run's report of a stage that ran out of reviews.
func exhausted(log interface{ Write([]byte) (int, error) }) func(string, int) {
	return func(reviewer string, n int) {
		fmt.Fprintf(log, "%s: not approved after %d reviews; going on with the last revision\n", reviewer, n)
	}
}

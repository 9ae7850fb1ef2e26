package e2e

import (
	"context"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
)

// captureStep is one phase of a capture script, as data: what the fake
// model is given to answer, what is typed, the screen waited for, and the
// screen taken then. A CLI's own script is a table of steps that play
// runs.
type captureStep struct {
	// replies are scripted on the model first; then prompt is submitted,
	// or paste pasted (not sent), or keys pressed.
	replies []fakemodel.Reply
	prompt  string
	paste   string
	keys    []string
	// until is waited for (what names it in a failure); clear then drops
	// the model's unused replies; settle passes before the shot.
	what   string
	until  func(plain, title string) bool
	clear  bool
	settle time.Duration
	// shot names the screen taken then ("" none), with the status it
	// truthfully means and its note; msg is the last assistant message it
	// shows, detail what the classifier's Detail quotes.
	shot        string
	status      handoff.Status
	note        string
	msg, detail string
}

// shooter takes a rig's screen as a fixture: screenCapturer (both colour
// forms, the conformance manifest) or Codex's capturer (its older one).
type shooter interface {
	take(r *rig, name string, status handoff.Status, note, msg, detail string)
}

// take is shot for play.
func (c *screenCapturer) take(r *rig, name string, status handoff.Status, note, msg, detail string) {
	c.t.Helper()
	c.shot(r, name, status, note, msg, detail)
}

// play runs steps on r, each wait lasting up to patience.
func play(s shooter, r *rig, patience time.Duration, steps ...captureStep) {
	r.t.Helper()
	for _, st := range steps {
		if len(st.replies) > 0 {
			r.model.Script(st.replies...)
		}
		switch {
		case st.prompt != "":
			r.submit(st.prompt)
		case st.paste != "":
			if err := r.cli.Paste(context.Background(), st.paste); err != nil {
				r.t.Fatal(err)
			}
		case len(st.keys) > 0:
			r.keys(st.keys...)
		}
		if st.until != nil {
			r.waitScreen(patience, st.what, st.until)
		}
		if st.clear {
			r.model.Clear()
		}
		time.Sleep(st.settle)
		if st.shot != "" {
			s.take(r, st.shot, st.status, st.note, st.msg, st.detail)
		}
	}
}

// showing is a wait for every part on the screen.
func showing(parts ...string) func(plain, title string) bool {
	return func(p, _ string) bool { return has(p, parts...) }
}

// replies is the replies of a step.
func replies(rs ...fakemodel.Reply) []fakemodel.Reply { return rs }

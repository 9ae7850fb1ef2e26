package tmuxdriver

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Exactly once by construction: Enter is pressed only once the composer
// shows the prompt whole (its provider's handoff.PasteReader reads the
// CLI's fold and its size, or the text's own end), and pressed again only
// when the screen proves the last Enter was not taken: the agent read it
// (the pane's input queue is empty), its composer still shows the same
// prompt whole and it shows no turn.

// Paste waits: a CLI reads a long paste at its own pace (Qwen Code reads
// a paste of many lines at 16–20 KB/s on a quiet machine, far slower on a
// loaded one), so the wait for the whole paste grows with the prompt.
const (
	pasteFloor   = 10 * time.Second
	pastePerKB   = 250 * time.Millisecond // 4 KB/s, a CLI on a loaded machine
	pastePoll    = 100 * time.Millisecond
	wrongHold    = 2 * time.Second        // a wrong reading that lasts this long is final
	stalledAgent = 60 * time.Second       // an agent that has not read its Enter after this is left alone
	starved      = 250 * time.Millisecond // an agent that waited this long for a CPU in a wait was held back
	busyShare    = 0.5                    // an agent that ran or waited to run for more than this share of a wait was at work
	busySlack    = 20 * time.Millisecond
)

// PasteWait is how long Send waits for the composer to show text whole:
// a floor plus time per KB. An agent that has not read the paste by then
// (its terminal still holds it: busy or starved) gets it again, from the
// moment it was last seen unread, until stalledAgent has passed.
func PasteWait(text string) time.Duration {
	return pasteFloor + time.Duration(len(text)/1024)*pastePerKB
}

// awaitPaste watches the composer after the paste until it shows text
// whole on two looks in a row with the screen unchanged, and returns that
// screen and what decided (the fold, or the text's end). A composer in
// another mode is returned at once (lookBeforeEnter clears it). A
// composer whose rules cannot read it (PasteUnread) from the first look
// falls back to waiting until the screen holds still; once the rules have
// read it during this paste, a PasteUnread is the composer lost from
// sight (a CLI redrawing it, or breaking the paste), waited out as a
// paste still arriving. A wrong reading that lasts, a turn shown
// with no Enter pressed while the paste is not whole, or PasteWait
// passing clears the composer and fails with handoff.ErrPasteIncomplete.
// PasteWait does not end the wait while the agent has not read the paste
// (its terminal holds unread input): a CLI still busy with its own
// start-up when the paste comes, on a loaded machine, reads it late and
// whole. The wait then starts again, until stalledAgent past the first.
func (p *Pane) awaitPaste(ctx context.Context, text string) (look, seen string, err error) {
	pr, ok := p.o.Composer.(handoff.PasteReader)
	if !ok {
		look, err := p.awaitStill(ctx, p.o.VerifyTimeout)
		if err != nil {
			return "", "", fmt.Errorf("send: %w", err)
		}
		return look, "", nil
	}
	start := time.Now()
	deadline := start.Add(PasteWait(text))
	stalled := deadline.Add(stalledAgent)
	var prev string
	last, lastSeen, wrongSince, turnSince := handoff.PasteUnread, "", time.Time{}, time.Time{}
	read := false // the rules have read the composer during this paste
	for {
		snap, err := p.Observe(ctx)
		if err != nil {
			return "", "", fmt.Errorf("send: %w", err)
		}
		look = snap.Capture
		if p.o.Composer.Mode(look) != "" {
			return look, "", nil
		}
		got, seen := pr.Pasted(look, text)
		read = read || got != handoff.PasteUnread
		now := time.Now()
		// A turn with no Enter pressed, while the composer does not hold
		// the prompt whole: the CLI took part of the paste as typed keys.
		// Held for wrongHold: a classifier may read a composer being
		// drawn as work (Codex's, on a long unfolded draft).
		if snap.Classification.Status != handoff.StatusProcessing || got == handoff.PasteWhole {
			turnSince = time.Time{}
		} else if turnSince.IsZero() {
			turnSince = now
		}
		switch {
		case !turnSince.IsZero() && now.Sub(turnSince) >= wrongHold:
			return "", "", p.refuse(ctx, look, text, handoff.ErrPasteIncomplete, fmt.Sprintf("the agent started a turn before any Enter (it took part of the paste as typed keys); its composer shows %s (%s)", quoteSeen(seen), got))
		case got == handoff.PasteUnread && !read:
			look, err := p.awaitStill(ctx, p.o.VerifyTimeout)
			if err != nil {
				return "", "", fmt.Errorf("send: %w", err)
			}
			return look, "", nil
		case got == handoff.PasteWhole && last == handoff.PasteWhole && seen == lastSeen && significant(look) == prev:
			return look, seen, nil
		case got == handoff.PasteWrong && (last != handoff.PasteWrong || seen != lastSeen):
			wrongSince = now
		case got == handoff.PasteWrong && now.Sub(wrongSince) >= wrongHold:
			return "", "", p.refuse(ctx, look, text, handoff.ErrPasteIncomplete, "its composer shows "+quoteSeen(seen)+", not the prompt whole")
		}
		if now.After(deadline) {
			unread := p.pendingInput(ctx)
			if unread <= 0 || now.After(stalled) {
				return "", "", p.refuse(ctx, look, text, handoff.ErrPasteIncomplete, fmt.Sprintf("after %v (the wait for a %d-byte prompt) its composer shows %s (%s)%s", now.Sub(start).Round(time.Millisecond), len(text), quoteSeen(seen), got, unreadNote(unread)))
			}
			// The agent has not read the paste yet: its wait starts again.
			deadline = now.Add(PasteWait(text))
		}
		prev, last, lastSeen = significant(look), got, seen
		if err := fsm.Sleep(ctx, pastePoll); err != nil {
			return "", "", err
		}
	}
}

// quoteSeen quotes what decided a reading, for an error.
func quoteSeen(seen string) string {
	if seen == "" {
		return "nothing it can read"
	}
	return fmt.Sprintf("%q", seen)
}

// refuse clears the composer after a refused paste of text (see
// clearRefused) and returns the error wrapping why, saying what decided
// it (what), what Send did to the composer, and, when it could not be
// proven empty, ErrComposerNotCleared.
func (p *Pane) refuse(ctx context.Context, look, text string, why error, what string) error {
	cleared, stuck, err := p.clearRefused(ctx, look, text)
	if err != nil {
		return err
	}
	if stuck {
		return fmt.Errorf("send: pane %s: %w: %s; Send %w %s and pressed no Enter, so nothing was sent", p.o.Target, why, what, ErrComposerNotCleared, cleared)
	}
	return fmt.Errorf("send: pane %s: %w: %s; Send %s and pressed no Enter, so nothing was sent", p.o.Target, why, what, cleared)
}

// Clearing a refused paste: keys pressed to an agent that has not read
// the paste yet, or has not drawn what it did with it, are judged on a
// screen that is not the composer's yet (a busy CLI took the paste after
// its clear keys, or left its mode and kept the text). So keys are
// pressed, and the composer judged, only on a settled screen.
const (
	settleHold = 500 * time.Millisecond // the agent settled (see settled) and its screen unchanged this long
	settleMax  = 3 * time.Second        // an animated screen never holds still: judged after this
	clearWait  = 20 * time.Second       // the bound for an agent to read its keys and show the composer empty
)

// clearRefused empties the composer after a refused paste of text, and
// says what it did, for the error (stuck: what follows "could not clear
// its composer"). It waits until the agent settles (see settled), presses
// the Composer's clear keys, and again, up to clearRounds times, while the
// settled composer is in another mode or holds something of text (its
// fold, its end, ten characters or more of it: a CLI that lost a paste's
// end dumps the rest into its composer when a key comes). Keys are never
// pressed again on a composer that reads empty: there they do something
// else (Ctrl-C offers to quit Codex, Esc Esc opens droid's rewind). It is
// cleared only when a settled screen shows the composer in no mode and
// holding nothing of text; stuck when that was not seen within clearWait,
// or after the last round: the next prompt would join what is left.
func (p *Pane) clearRefused(ctx context.Context, look, text string) (said string, stuck bool, err error) {
	deadline := time.Now().Add(clearWait)
	pressed := []string{}
	for round := 0; ; round++ {
		var calm bool
		look, calm, err = p.settled(ctx, look, deadline)
		if err != nil {
			if ctx.Err() != nil {
				return "", false, ctx.Err()
			}
			return "(it could not look at it again: " + err.Error() + ")", true, nil
		}
		// The first keys are pressed whatever the composer reads: a CLI
		// may hold a paste it has not drawn.
		empty := p.emptied(look, text)
		switch {
		case round > 0 && empty && calm:
			return "cleared its composer (" + strings.Join(pressed, " ") + ")", false, nil
		case round > 0 && !calm:
			now := p.leftover(look, text)
			if empty {
				now = "its composer reads empty, but that is not proven"
			}
			return fmt.Sprintf("for certain (the agent had not settled %v after its clear keys (%s): it had not read them, was stopped, or was starved or at work; %s)", clearWait, strings.Join(pressed, " "), now), true, nil
		case round == clearRounds:
			return "(after its clear keys (" + strings.Join(pressed, " ") + ") " + p.leftover(look, text) + ")", true, nil
		}
		keys := p.o.Composer.ClearKeys(look)
		if len(keys) == 0 {
			if empty {
				return "found its composer empty", false, nil
			}
			return "(the provider names no keys that clear it; " + p.leftover(look, text) + ")", true, nil
		}
		for _, k := range keys {
			if _, err := p.run(ctx, nil, "send-keys", "-t", p.o.Target, k); err != nil {
				return "(" + p.paneErr(err).Error() + "; " + p.leftover(look, text) + ")", true, nil
			}
			// Keys pressed in one burst can read as an escape sequence.
			if err := fsm.Sleep(ctx, 150*time.Millisecond); err != nil {
				return "", false, err
			}
		}
		pressed = append(pressed, keys...)
	}
}

// emptied reports whether the composer on look is in no mode and holds
// nothing of text (a Composer that cannot read a paste: in no mode).
func (p *Pane) emptied(look, text string) bool {
	if p.o.Composer.Mode(look) != "" {
		return false
	}
	pr, ok := p.o.Composer.(handoff.PasteReader)
	if !ok {
		return true
	}
	got, seen := pr.Pasted(look, text)
	return !holdsSomeOf(got, seen, text)
}

// leftover says what the composer on look still holds, for an error.
func (p *Pane) leftover(look, text string) string {
	if mode := p.o.Composer.Mode(look); mode != "" {
		return "its composer still shows " + mode + "; the next prompt would join it"
	}
	seen := ""
	if pr, ok := p.o.Composer.(handoff.PasteReader); ok {
		_, seen = pr.Pasted(look, text)
	}
	return "its composer still holds the refused text (" + quoteSeen(seen) + "); the next prompt would join it"
}

// settled watches the screen from look until the agent is settled: it
// has read all its input (the pane's terminal holds none unread), is not
// held (stopped or frozen), has been quiet on its CPUs (see
// effort.acting: not starved, not busy) for settleHold, and its screen has
// held still as long; or the same but the screen still moving for
// settleMax (an animated screen never holds still); or deadline has
// passed. It returns the last look and whether it settled (false: the
// deadline passed first). An agent that read a key and waits for a CPU,
// or one stopped, has not drawn what the key did: its screen is stale,
// not still. A pane whose input cannot be told counts as read.
func (p *Pane) settled(ctx context.Context, look string, deadline time.Time) (string, bool, error) {
	// Each window starts at a look that saw the agent settled so far: a
	// look apart from the last may be long (a loaded machine), and the
	// time the agent was held or unread before it counts for nothing.
	prev := significant(look)
	var still, quiet, free time.Time // since when: the screen unchanged, the agent quiet, ready
	var from effort                  // the agent's effort when its quiet began
	for {
		if err := fsm.Sleep(ctx, pastePoll); err != nil {
			return "", false, err
		}
		now, err := p.run(ctx, nil, "capture-pane", "-p", "-J", "-t", p.o.Target)
		if err != nil {
			return "", false, p.paneErr(err)
		}
		t := time.Now()
		unread, e, known := p.inputEffort(ctx)
		ready := unread <= 0 && !e.held
		switch {
		case !ready:
			still, quiet, free = time.Time{}, time.Time{}, time.Time{}
		case free.IsZero():
			still, quiet, free, from = t, t, t, e
		default:
			if significant(now) != prev {
				still = t
			}
			if known && (e.running || e.acting(from, t.Sub(quiet))) {
				quiet, from = t, e
			}
		}
		prev = significant(now)
		calm := ready && t.Sub(quiet) >= settleHold
		switch {
		case calm && t.Sub(still) >= settleHold, calm && t.Sub(free) >= settleMax:
			return now, true, nil
		case t.After(deadline):
			return now, false, nil
		}
	}
}

// holdsSomeOf reports whether a composer read as got, seen still holds
// something of text: its fold, its end, the CLI's reading line, or ten
// characters or more of it.
func holdsSomeOf(got handoff.Paste, seen, text string) bool {
	if got != handoff.PasteArriving {
		return got != handoff.PasteUnread
	}
	ink := screen.Ink(seen)
	return strings.HasPrefix(seen, "Pasting") || len([]rune(ink)) >= 10 && strings.Contains(screen.Ink(text), ink)
}

// enterIgnored watches the screen for d after an Enter and says whether
// the agent ignored it: the Enter was read (the pane's input queue is
// empty), the composer still shows the prompt whole as before the Enter
// (seen), and the agent shows no turn. Anything else means the Enter was
// taken, or may yet be (an agent stopped or starved by a loaded machine
// reads its input late): no second Enter. Without a reading of the
// composer (seen ""), a screen that did not change stands for the
// composer, as before.
func (p *Pane) enterIgnored(ctx context.Context, text, seen, pasted string, d time.Duration) (bool, error) {
	pr, ok := p.o.Composer.(handoff.PasteReader)
	if !ok || seen == "" {
		changed, err := p.awaitChange(ctx, pasted, d)
		if err != nil {
			return false, fmt.Errorf("send: verify: %w", err)
		}
		return !changed && p.inputRead(ctx), nil
	}
	first := time.Now()
	var start time.Time // when the agent's current quiet wait began
	var from effort     // its effort then
	for {
		if err := fsm.Sleep(ctx, pastePoll); err != nil {
			return false, err
		}
		snap, err := p.Observe(ctx)
		if err != nil {
			return false, fmt.Errorf("send: verify: %w", err)
		}
		got, now := pr.Pasted(snap.Capture, text)
		if got != handoff.PasteWhole || now != seen || snap.Classification.Status == handoff.StatusProcessing {
			return false, nil
		}
		if time.Since(first) > stalledAgent {
			return false, nil
		}
		// A wait proves nothing unless the agent could act throughout and
		// did not: one frozen, stopped or starved after it read the Enter
		// and before it drew its turn looks just like one that ignored it
		// (Gemini CLI, frozen so, took a second Enter as a second
		// submission), and so does one thawed and at work on the turn but
		// drawing nothing yet (a second Enter came 3.3 s after the first).
		// The wait starts again until the agent is held by nothing and
		// quiet on its CPUs.
		if e, known := effortOf(snap.PID); known && (start.IsZero() || e.acting(from, time.Since(start))) {
			start, from = time.Now(), e
			continue
		}
		if start.IsZero() {
			start = first // no /proc: the screen alone
		}
		if time.Since(start) < d {
			continue
		}
		if p.inputRead(ctx) {
			return true, nil
		}
	}
}

// effort is what an agent's processes (a pane's process and those below
// it) have done up to a moment: whether one of them is held now (frozen
// or stopped: it cannot act), whether a thread of theirs is on a CPU or
// waiting for one now, and how long they have run on a CPU and waited for
// one, in all.
type effort struct {
	held, running bool
	ran, waited   time.Duration
}

// acting reports whether an agent whose effort was from when a wait
// began, and is e elapsed later, could not act or was at work meanwhile:
// held now, starved (it waited starved for a CPU), or busy (it ran on a
// CPU or waited for one, in all, for more than busyShare of elapsed and
// busySlack more). An agent that ignored an Enter sits idle; one that
// read it works on the turn before it draws it, and at work it runs or
// waits to run whatever the load.
func (e effort) acting(from effort, elapsed time.Duration) bool {
	demand := e.ran + e.waited - from.ran - from.waited
	return e.held || e.waited-from.waited >= starved ||
		demand > time.Duration(float64(elapsed)*busyShare)+busySlack
}

// inputRead reports whether the agent has read everything typed into its
// pane: the pane's terminal holds no unread input. False when that cannot
// be told.
func (p *Pane) inputRead(ctx context.Context) bool {
	return p.pendingInput(ctx) == 0
}

// pendingInput is how many bytes typed into the pane its agent has not read
// yet (its terminal's input queue), -1 when that cannot be told.
func (p *Pane) pendingInput(ctx context.Context) int {
	tty, err := p.run(ctx, nil, "display-message", "-p", "-t", p.o.Target, "#{pane_tty}")
	if err != nil {
		return -1
	}
	n, ok := unreadInput(strings.TrimSpace(tty))
	if !ok {
		return -1
	}
	return n
}

// inputEffort is how many bytes typed into the pane its agent has not
// read yet (-1 when that cannot be told), and the agent's effort now
// (known false without /proc), in one tmux call.
func (p *Pane) inputEffort(ctx context.Context) (unread int, e effort, known bool) {
	out, err := p.run(ctx, nil, "display-message", "-p", "-t", p.o.Target, "#{pane_pid} #{pane_tty}")
	if err != nil {
		return -1, effort{}, false
	}
	pid, tty, _ := strings.Cut(strings.TrimSpace(out), " ")
	unread = -1
	if n, ok := unreadInput(tty); ok {
		unread = n
	}
	if n, err := strconv.Atoi(pid); err == nil {
		e, known = effortOf(n)
	}
	return unread, e, known
}

// unreadNote says, for an error, that the agent never read the whole
// paste (n bytes still unread), or nothing when it did or that is unknown.
func unreadNote(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf("; the agent has not read its input (%d bytes still unread)", n)
}

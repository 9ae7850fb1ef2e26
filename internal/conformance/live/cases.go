package live

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/provider"
)

// Check runs every case (Cases) on the CLI at bin: the first six on one
// pane, the confirmation on a second one that asks before commands; each
// pane in a folder of its own under root, which the caller creates and
// removes. After a wrong case the pane's state is unknown, so the next
// case gets a fresh one. A case whose CLI cannot even start is wrong, with
// the reason.
func Check(ctx context.Context, s Subject, bin, root string) []Result {
	type step struct {
		name  string
		setup Setup
		run   func(context.Context, *Rig) (string, error)
	}
	steps := []step{
		{CaseReady, Setup{}, Ready},
		{CaseFile, Setup{}, FileBack},
		{CaseSecond, Setup{}, Second},
		{CaseBang, Setup{}, BangInert},
		{CaseNoFileStrict, Setup{}, NoFileStrict},
		{CaseAPIError, Setup{Retries: s.APIErrors[0].Retries}, func(ctx context.Context, r *Rig) (string, error) {
			return APIErrorCase(ctx, r, r.Subject.APIErrors[0])
		}},
		{CaseConfirmation, Setup{Ask: true}, Confirmation},
	}
	var out []Result
	var r *Rig
	var setup Setup
	end := func() {
		if r != nil {
			_ = r.Close()
			r = nil
		}
	}
	defer end()
	for i, st := range steps {
		if r != nil && st.setup != setup {
			end()
		}
		if r == nil {
			var err error
			setup = st.setup
			if r, err = startFor(ctx, s, bin, filepath.Join(root, fmt.Sprint(i)), setup); err != nil {
				out = append(out, Result{Case: st.name, Reason: "the CLI did not start: " + err.Error()})
				continue
			}
		}
		res := run(ctx, r, st.name, st.run)
		if !res.OK {
			end()
		}
		out = append(out, res)
	}
	return out
}

// startFor starts a rig for setup: in TmuxTerminal when it asks (the
// confirmation), as a pane of a tmux server started by a service gets;
// in the CLI's own default terminal otherwise.
func startFor(ctx context.Context, s Subject, bin, root string, setup Setup) (*Rig, error) {
	term := s.CLI.Terminal
	if setup.Ask {
		term = TmuxTerminal
	}
	start := time.Now()
	r, err := StartRig(ctx, s, bin, root, setup, term)
	if err != nil {
		return nil, err
	}
	r.started = time.Since(start)
	return r, nil
}

// run runs one case and reads its result: the reason it gives, or its
// error; and the screen's last lines.
func run(ctx context.Context, r *Rig, name string, c func(context.Context, *Rig) (string, error)) Result {
	start := time.Now()
	if err := r.Drained(ctx); err != nil {
		return Result{Case: name, Reason: err.Error(), Lines: r.Screen(ctx, 12)}
	}
	reason, err := c(ctx, r)
	res := Result{Case: name, OK: err == nil, Reason: reason, Elapsed: time.Since(start)}
	if err != nil {
		res.Reason = err.Error()
		res.Lines = r.Screen(ctx, 12)
		// What the failed case scripted is not the next case's.
		r.Model.Clear()
	} else {
		res.Lines = r.Screen(ctx, 4)
	}
	return res
}

// Ready: the CLI drew the screen it takes a prompt on, and the provider's
// classifier reads that screen as idle (a dispatch would paste at once).
func Ready(ctx context.Context, r *Rig) (string, error) {
	cl, err := provider.Lookup(r.Subject.CLI.Name)
	if err != nil {
		return "", err
	}
	// A CLI may still finish its start (Codex's title spins a moment
	// after its prompt shows): a dispatch waits for idle too, up to 15 s.
	var got handoff.Classification
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	err = r.Session.WaitFor(wctx, 100*time.Millisecond, func(text, title string) bool {
		got = cl.Classify(text, title)
		return got.Status == handoff.StatusIdle
	})
	if err != nil {
		return "", fmt.Errorf("the fresh CLI reads as %s (%s) for 15 s, want idle", got.Status, got.Reason)
	}
	return fmt.Sprintf("ready %v after start, idle %v later: %s", r.started.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), got.Reason), nil
}

// FileBack: a dispatch whose agent writes the response file (after a slow
// first byte) returns the file's text byte for byte, archives it with its
// receipt line, and the instruction reached the model.
func FileBack(ctx context.Context, r *Rig) (string, error) {
	r.Model.Script(fakemodel.WriteResponse(Answer).After(time.Second), fakemodel.Answer("I wrote the response file."))
	d, err := r.Send(ctx, "analyst", "Analyse the project.", r.Subject.Config(true), nil)
	if err != nil {
		return "", err
	}
	if d.Err != nil {
		return "", fmt.Errorf("dispatch failed: %w", d.Err)
	}
	if d.Res.Content != Answer+"\n" || d.Res.Source != fsm.SourceFile {
		return "", fmt.Errorf("got %q from %s, want the file's %q", d.Res.Content, d.Res.Source, Answer+"\n")
	}
	archived, err := os.ReadFile(d.Res.ArchivedPath)
	if err != nil || string(archived) != d.Res.Receipt.ReceiptLine()+"\n"+d.Res.Content {
		return "", fmt.Errorf("archived copy %q (%v) is not the receipt line and the returned content", archived, err)
	}
	if err := Journaled(d, handoff.Done); err != nil {
		return "", err
	}
	// The tool's result goes back with the CLI's next request, which may
	// come after the dispatch ended on the file (pi, at a load average of
	// 60, sent it after the decision).
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_ = r.Model.WaitTurns(wctx, 2)
	turns := r.Model.Turns()
	// Prompt, not the last user text: a CLI may put a message of its own
	// after the user's (Kimi Code's "Auto permission mode is active"
	// reminder, on the first turn of its --auto mode).
	if len(turns) == 0 || !strings.Contains(turns[0].Prompt(), handoff.InstructionHeader) {
		return "", errors.New("the RESPONSE FILE INSTRUCTION did not reach the model")
	}
	if len(turns) < 2 || len(turns[1].ToolResults) == 0 {
		return "", errors.New("the shell tool's result did not come back to the model")
	}
	return fmt.Sprintf("done from the response file in %v", d.Res.Elapsed.Round(time.Millisecond)), nil
}

// Second: the pane is ready again after a dispatch; the next one gets its
// own answer.
func Second(ctx context.Context, r *Rig) (string, error) {
	r.Model.Script(fakemodel.WriteResponse("second answer"), fakemodel.Answer("Written."))
	d, err := r.Send(ctx, "analyst", "Analyse again.", r.Subject.Config(true), nil)
	if err != nil {
		return "", err
	}
	if d.Err != nil || d.Res.Content != "second answer\n" {
		return "", fmt.Errorf("second dispatch: %q, %v", d.Res.Content, d.Err)
	}
	if err := Journaled(d, handoff.Done); err != nil {
		return "", err
	}
	return fmt.Sprintf("done from its own file in %v", d.Res.Elapsed.Round(time.Millisecond)), nil
}

// BangInert: a prompt that starts with '!' (a shell mode's key in several
// composers) reaches the model as text, once, and nothing in it runs.
func BangInert(ctx context.Context, r *Rig) (string, error) {
	canary := filepath.Join(r.Workdir, "RAN")
	prompt := "!touch " + canary + "; echo this only looks like shell"
	before := len(r.Model.Turns())
	r.Model.Script(fakemodel.WriteResponse("bang answer"), fakemodel.Answer("Written."))
	d, err := r.Send(ctx, "analyst", prompt, r.Subject.Config(true), nil)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(canary); err == nil {
		return "", errors.New("the prompt ran as a shell command: " + canary + " exists")
	}
	if d.Err != nil || d.Res.Content != "bang answer\n" {
		return "", fmt.Errorf("dispatch: %q, %v", d.Res.Content, d.Err)
	}
	// The request this dispatch asked carries its receipt; the prompt is
	// in it once, and the conversation (as the last request carries it)
	// holds it in one message.
	turns := r.Model.Turns()[before:]
	first := ""
	for _, t := range turns {
		if p := t.Prompt(); strings.Contains(p, string(d.Res.Receipt)) {
			first = p
			break
		}
	}
	if n := strings.Count(first, prompt); n != 1 {
		return "", fmt.Errorf("the prompt reached the model %d times in the dispatch's request, want once whole", n)
	}
	n := 0
	for _, u := range turns[len(turns)-1].UserTexts {
		n += strings.Count(u, prompt)
	}
	if n != 1 {
		return "", fmt.Errorf("the conversation holds the prompt %d times, want once", n)
	}
	return "reached the model once as text; nothing ran", nil
}

// reply is what the model answers instead of writing the file.
const reply = "Here is my answer, but I did not write the file."

// NoFileStrict: an agent that answers without writing the file ends the
// strict dispatch with the no-response-file error, not before the grace.
func NoFileStrict(ctx context.Context, r *Rig) (string, error) {
	// A slow first byte keeps the agent visibly busy for many polls.
	r.Model.Script(fakemodel.Answer(reply).After(1500 * time.Millisecond))
	cfg := r.Subject.Config(true)
	d, err := r.Send(ctx, "analyst", "Answer briefly.", cfg, nil)
	if err != nil {
		return "", err
	}
	var we *handoff.WaitError
	if !errors.Is(d.Err, handoff.ErrNoResponseFile) || !errors.As(d.Err, &we) {
		return "", fmt.Errorf("got %v, want the strict no-response-file error", d.Err)
	}
	if err := Journaled(d, handoff.Failed); err != nil {
		return "", err
	}
	switch we.State {
	case handoff.IdleGrace:
	case handoff.StartupTimeout:
		// Never seen working: not before twice the grace.
		if we.Elapsed < 2*cfg.IdleGrace {
			return "", fmt.Errorf("failed after %v from StartupTimeout, before twice the %v grace", we.Elapsed, cfg.IdleGrace)
		}
	default:
		return "", fmt.Errorf("failed in %s, want IdleGrace (or StartupTimeout when the turn was never seen)", we.State)
	}
	return fmt.Sprintf("no_response_file from %s after %v", we.State, we.Elapsed.Round(time.Millisecond)), nil
}

// APIErrorCase: a failed request ends the dispatch as a terminal error
// that quotes the screen, after the CLI's retries.
func APIErrorCase(ctx context.Context, r *Rig, e APIError) (string, error) {
	before := len(r.Model.Turns())
	r.Model.Script(e.Replies...)
	d, err := r.Send(ctx, "programmer_review", "Review the code.", r.Subject.Config(true), nil)
	if err != nil {
		return "", err
	}
	var we *handoff.WaitError
	if !errors.Is(d.Err, handoff.ErrTerminalError) || !errors.As(d.Err, &we) {
		return "", fmt.Errorf("got %v, want a terminal error", d.Err)
	}
	if we.LastStatus != handoff.StatusError || we.Role != "programmer_review" {
		return "", fmt.Errorf("wait error %+v", we)
	}
	if !strings.Contains(d.Err.Error(), e.Detail) {
		return "", fmt.Errorf("the error %q does not quote the screen's %q", d.Err, e.Detail)
	}
	if err := Journaled(d, handoff.Failed); err != nil {
		return "", err
	}
	if n := len(d.Res.Journal); d.Res.Journal[n-1].Event != handoff.EventTerminalError {
		return "", fmt.Errorf("journal %+v does not end on terminal_error", d.Res.Journal)
	}
	if got := len(r.Model.Turns()) - before; got != e.Retries+1 {
		return "", fmt.Errorf("%d requests, want %d (one and %d retries)", got, e.Retries+1, e.Retries)
	}
	if err := reportInTheHome(ctx, r); err != nil {
		return "", err
	}
	return "terminal_error: " + we.Detail, nil
}

// reportInTheHome checks that the CLI's report of a failed request
// (Subject.ErrorReport) is in the session's temporary folder, which goes
// with its home, and not in the machine's.
func reportInTheHome(ctx context.Context, r *Rig) error {
	if r.Subject.ErrorReport == "" {
		return nil
	}
	dir := realcli.TempDir(r.Session.Home)
	// Written beside the screen's error, maybe just after it.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if found, _ := filepath.Glob(filepath.Join(dir, r.Subject.ErrorReport)); len(found) > 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no %s in the CLI's temporary folder %s after the failed request (left in the machine's?)", r.Subject.ErrorReport, dir)
		}
		if err := realcli.Pause(ctx, 100*time.Millisecond); err != nil {
			return err
		}
	}
}

// Confirmation: a CLI that asks before it writes the file reads as
// waiting_user_answer (in state Working) until a person approves, and the
// dispatch then ends with the file. The approval comes a second after the
// dialog was seen, like a person: CLIs ignore keys right after they drew a
// dialog; should it still be there, the key is pressed again.
func Confirmation(ctx context.Context, r *Rig) (string, error) {
	r.Model.Script(r.Subject.Confirm(Answer), fakemodel.Answer("Written after approval."))
	var mu sync.Mutex
	var last handoff.Status
	seen, stop, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		select {
		case <-seen:
		case <-stop:
			return
		}
		for range 5 {
			select {
			case <-time.After(time.Second):
			case <-stop:
				return
			}
			mu.Lock()
			waiting := last == handoff.StatusWaitingUserAnswer
			mu.Unlock()
			if !waiting {
				return
			}
			_ = r.Session.Keys(context.Background(), r.Subject.Approve)
		}
	}()
	d, err := r.Send(ctx, "analyst_review", "Review it.", r.Subject.Config(true), func(p fsm.Poll) {
		mu.Lock()
		last = p.Status
		mu.Unlock()
		if p.Status == handoff.StatusWaitingUserAnswer {
			once.Do(func() { close(seen) })
		}
	})
	close(stop)
	<-done
	if err != nil {
		return "", err
	}
	if !slices.Contains(d.Statuses(), handoff.StatusWaitingUserAnswer) {
		if d.Err != nil {
			return "", fmt.Errorf("the confirmation was never observed as waiting_user_answer (%d polls): the dispatch failed: %w", len(d.Polls), d.Err)
		}
		return "", fmt.Errorf("the confirmation was never observed as waiting_user_answer (%d polls)", len(d.Polls))
	}
	if d.Err != nil {
		return "", fmt.Errorf("dispatch failed: %w", d.Err)
	}
	if d.Res.Content != Answer+"\n" {
		return "", fmt.Errorf("got %q", d.Res.Content)
	}
	if err := Journaled(d, handoff.Done); err != nil {
		return "", err
	}
	for _, p := range d.Polls {
		if p.Status == handoff.StatusWaitingUserAnswer && p.State != handoff.Working {
			return "", fmt.Errorf("waiting for the user in state %s, want Working", p.State)
		}
	}
	return "waiting_user_answer until approved, then done from the file", nil
}

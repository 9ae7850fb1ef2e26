package browser

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/loop"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// A pane's screen, live: what the agent shows appears in the page while it
// is open (a prompt holding markup shown as text, never run), with its
// status and the classifier's rule; a prompt sent from the board's form
// is answered; and once the page is gone nothing reads the screen.
func TestAPanesScreenLiveAndAPromptSentFromThePage(t *testing.T) {
	worker := simagent.Options{Echo: true, Startup: 200 * time.Millisecond, Work: 1500 * time.Millisecond}
	l := startLive(t, worker)
	ctx := browser(t)
	l.signIn(t, ctx)
	// The page's icon is there (no 404 on every load), before and after sign-in.
	icons, err := chromedp.Run(ctx, chromedp.Evaluate[string](`Promise.all([document.querySelector('link[rel=icon]').href, "/favicon.ico"].map((u) => fetch(u).then((r) => r.status))).then((s) => s.join(" "))`, chromedp.EvalAwaitPromise))
	if err != nil || icons != "200 200" {
		t.Errorf("the icon: %s %v, want 200 200", icons, err)
	}
	pane := l.panes[0]
	waitJS(t, ctx, "the pane's link", fmt.Sprintf(`!!document.querySelector('#servers tr[data-pane=%q] a')`, pane))
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.JSPath(fmt.Sprintf(`document.querySelector('#servers tr[data-pane=%q] a')`, pane)))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the screen, idle", `document.querySelector('#pane')?.dataset.status === "idle"`)
	if evalString(t, ctx, `document.querySelector('#p-reason').textContent`) == "" {
		t.Error("no rule shown beside the status")
	}

	// A prompt with markup in it: the agent shows it, the page shows it as text.
	evil := `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold?</b>`
	id := l.submit(t, pane, "analyst", evil)
	waitJS(t, ctx, "the agent working, live", `document.querySelector('#pane')?.dataset.status === "processing"`)
	waitJS(t, ctx, "the prompt on the screen", fmt.Sprintf(`document.querySelector('#p-screen').textContent.includes(%q)`, `<script>window.pwned=2</script>`))
	if got := evalString(t, ctx, `String(document.querySelectorAll('#p-screen img, #p-screen script, #p-screen b').length) + " " + String(window.pwned)`); got != "0 undefined" {
		t.Errorf("markup on the screen became elements or ran: %s", got)
	}
	waitJS(t, ctx, "the screen back to idle", `document.querySelector('#pane')?.dataset.status !== "processing"`)
	if _, err := serve.Wait(context.Background(), l.client, id); err != nil {
		t.Fatal(err)
	}
	if n := evalString(t, ctx, `String(document.querySelectorAll('#p-screen .line.marked').length)`); n == "0" {
		t.Error("no line is marked as one the classifier decided on")
	}
	screenshot(t, ctx, "pane.png")

	// Nobody looks: no more reads.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	before := l.screenReads.Load()
	time.Sleep(2500 * time.Millisecond)
	if after := l.screenReads.Load(); after != before || before < 3 {
		t.Errorf("screen reads: %d while the page was open, %d more after it was left; want several, then none", before, after-before)
	}

	// Send from the board's form; the answer comes back.
	if err := chromedp.Do(ctx, chromedp.Navigate(l.url+"/")); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the pane in the form", fmt.Sprintf(`[...document.querySelectorAll('#send-to option')].some((o) => o.value.includes(%q))`, pane))
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](fmt.Sprintf(`(() => { const s = document.querySelector('#send-to'); s.value = [...s.options].find((o) => o.value.includes(%q)).value; s.dispatchEvent(new Event('change')); return true; })()`, pane))); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetValue("#send-role", "tester"),
		chromedp.SetValue("#send-workdir", l.workdir),
		chromedp.SetValue("#send-prompt", "Answer me from the page"),
		chromedp.Click(chromedp.CSS(`#send button[type="submit"]`)),
	); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the dispatch sent", `!!document.querySelector('#send-msg').dataset.sent`)
	sent := evalString(t, ctx, `document.querySelector('#send-msg').dataset.sent`)
	v, err := serve.Wait(context.Background(), l.client, sent)
	if err != nil || v.Outcome != "done" || !v.Whole || v.Content != "Answer me from the page\n" {
		t.Fatalf("the page's dispatch: %+v %v", v, err)
	}
	waitJS(t, ctx, "its row Done", fmt.Sprintf(`document.querySelector('#dispatches tr[data-id=%q]')?.dataset.state === "Done"`, sent))
	if got := evalString(t, ctx, fmt.Sprintf(`document.querySelector('#dispatches tr[data-id=%q] .pane-cell').textContent`, sent)); !strings.Contains(got, ":") {
		t.Errorf("the dispatch table shows the pane as %q, want its target (session:window.pane)", got)
	}
	// A prompt the API refuses is refused from the page too, in words.
	if err := chromedp.Do(ctx, chromedp.SetValue("#send-prompt", "bell \a in it"), chromedp.Click(chromedp.CSS(`#send button[type="submit"]`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the refusal", `(document.querySelector('#send-msg').dataset.error || "").length > 0`)
}

// A run of the loop (through the service) on its page: its steps appear
// as they finish, with their prompts, answers and verdicts, a send-back,
// and the run ends.
func TestARunStepByStep(t *testing.T) {
	agent := simagent.Options{Echo: true, Startup: 200 * time.Millisecond, Work: 800 * time.Millisecond}
	l := startLive(t, agent, agent, agent, agent, agent)
	journal := filepath.Join(l.workdir, ".tmp", "handoff-run")
	l.board = l.withJournals(t, journal)
	ctx := browser(t)
	agents := map[string]loop.Agent{}
	for i, r := range loop.Roles {
		agents[r] = loop.Agent{Pane: dispatchstate.Pane{Target: l.panes[i], Socket: l.priv.Socket}}
	}
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, 5*time.Second, 2*time.Minute
	done := make(chan error, 1)
	go func() {
		// The echoing reviewers do not approve: each stage is sent back once.
		_, err := loop.Run(context.Background(), loop.Options{Task: "Build a tiny thing", Rounds: 2, Agents: agents,
			Workdir: l.workdir, Config: cfg, Journal: journal, Service: l.client})
		done <- err
	}()
	// The run is listed once its journal exists.
	deadline := time.Now().Add(time.Minute)
	for {
		l.signIn(t, ctx)
		ok, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`new Promise((r) => setTimeout(() => r(!!document.querySelector('#runs tbody tr a')), 500))`, chromedp.EvalAwaitPromise))
		if ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run never appeared on the board")
		}
	}
	// Follow the run's link (the list is redrawn as runs move: by its address).
	if err := chromedp.Do(ctx, chromedp.Navigate(evalString(t, ctx, `document.querySelector('#runs tbody tr a').href`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "a step in flight", `!!document.querySelector('#r-steps li.next')`)
	waitJS(t, ctx, "a finished step", `!!document.querySelector('#r-steps li.done')`)
	if err := <-done; err != nil {
		t.Fatalf("the run: %v", err)
	}
	waitJS(t, ctx, "the run finished", `document.querySelector('#run').dataset.state === "finished"`)
	res, err := loop.ReadRun(journal)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, ctx, `String(document.querySelectorAll('#r-steps li.done').length)`); got != fmt.Sprint(len(res.Steps)) || len(res.Steps) < 5 {
		t.Errorf("%s steps shown, the journal has %d", got, len(res.Steps))
	}
	if got := evalString(t, ctx, `document.querySelector('#r-steps li[data-n="1"] .prompt').textContent`); got != loop.AnalystPrompt("Build a tiny thing") {
		t.Errorf("step 1's prompt shown: %q", got)
	}
	if evalString(t, ctx, `String(document.querySelectorAll('#r-steps .verdict.changes').length)`) == "0" ||
		evalString(t, ctx, `String(document.querySelectorAll('#r-steps .mark').length)`) == "0" {
		t.Error("no review verdict or send-back shown")
	}
	screenshot(t, ctx, "run.png")
}

// Package browser tests the service's web board in a real browser:
// headless Chromium (Debian's package) driven over the DevTools protocol by
// chromedp, against a live service whose panes run simulated agents. It is
// a module of its own so the core's go.mod stays free of the browser
// driver and its protocol bindings (a dozen packages nobody embedding the
// engine needs).
package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent/simtest"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// TestMain lets the test binary double as the simulated agents in the
// panes (simtest).
func TestMain(m *testing.M) { simtest.Main(m) }

// The token programs use; the browser signs in with a login link instead.
const token = "browser-test-token"

// chromium finds Debian's Chromium: skipped without it on a developer's
// machine, a failure in CI (which installs it).
func chromium(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium is not installed but CI is set: .ci/run installs it (apt-get install chromium chromium-driver)")
	}
	t.Skip("chromium is not installed; skipping the browser tests (apt-get install chromium chromium-driver)")
	return ""
}

// browser is a headless Chromium with a fresh profile, ended with the test.
func browser(t testing.TB) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1400, 1000),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cancel()
		cancelAlloc() // waits for the browser's process to end
	})
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// signIn opens the board in the browser by its one-time login link and
// waits for the board to show.
func (l *live) signIn(t testing.TB, ctx context.Context) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(l.board.LoginURL()), chromedp.WaitVisible(chromedp.CSS("#board"))); err != nil {
		t.Fatal(err)
	}
}

// live is a service with its board on loopback, and a private tmux server
// whose panes run simulated agents.
type live struct {
	svc     *serve.Service
	board   *web.Board
	url     string
	client  *serve.Client
	priv    *tmuxdriver.Private
	panes   []string
	workdir string
	// screenReads counts the board's GET /board/screen.
	screenReads atomic.Int64
}

// withJournals gives the live service a second board that knows the run
// journals dirs, on a listener of its own (the first one closes with the
// test).
func (l *live) withJournals(t testing.TB, dirs ...string) *web.Board {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b, err := web.New(l.svc, web.Options{Addr: ln.Addr().String(), Token: token, Servers: []tmuxdriver.Server{l.priv.Server}, Journals: dirs})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(b.Handler())
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close(); b.Close() })
	l.url = ts.URL
	return b
}

// startLive starts one agent per option set, each in its own window
// (simtest.StartEach, which waits for their prompts), and the service and
// its board.
func startLive(t testing.TB, agents ...simagent.Options) *live {
	t.Helper()
	a := simtest.StartEach(t, "hwboard", agents...)
	l := &live{priv: a.Priv, panes: a.Panes, workdir: a.Workdir}
	svc, err := serve.New(serve.Options{StateDir: t.TempDir(), Control: true, Events: true})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b, err := web.New(svc, web.Options{Addr: ln.Addr().String(), Token: token, Servers: []tmuxdriver.Server{a.Priv.Server}})
	if err != nil {
		t.Fatal(err)
	}
	h := b.Handler()
	ts := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/board/screen" {
			l.screenReads.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	ts.Listener.Close()
	ts.Listener = ln
	ts.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		b.Close()
		_ = svc.Close()
	})
	l.svc, l.board, l.url = svc, b, ts.URL
	l.client = serve.NewClient(serve.Address{Network: "tcp", Addr: ln.Addr().String()}, token)
	return l
}

func (l *live) submit(t testing.TB, pane, role, prompt string) string {
	t.Helper()
	cfg := handoff.DefaultConfig()
	cfg.Poll, cfg.IdleGrace, cfg.ResponseTimeout = 250*time.Millisecond, 5*time.Second, 2*time.Minute
	v, err := l.client.Submit(context.Background(), serve.SubmitBody{Pane: dispatchstate.Pane{Target: pane, Socket: l.priv.Socket}, Role: role,
		Workdir: l.workdir, Prompt: prompt, Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	return v.ID
}

// js evaluates expr in the page until it is true (a minute at most).
func waitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr))
		switch {
		case err != nil && !navigating(err):
			t.Fatalf("%s: %v", what, err)
		case ok:
			return
		}
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main:not([hidden])")))
			t.Fatalf("the page never showed %s; it shows:\n%s", what, html)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// navigating reports the error of an evaluation in a page a navigation
// is leaving (a click on a link, still under way on a busy machine: "the
// screen, idle: Inspected target navigated or closed (-32000)" failed a
// cold CI run beside two busy loops). The next evaluation runs in the page
// it arrives at, so a wait goes on.
func navigating(err error) bool {
	for _, s := range []string{"Inspected target navigated or closed", "Execution context was destroyed", "Cannot find context with specified id"} {
		if strings.Contains(err.Error(), s) {
			return true
		}
	}
	return false
}

func evalString(t *testing.T, ctx context.Context, expr string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return s
}

// screenshot writes the page as name: into docs/ with
// HANDOFF_UPDATE_SCREENSHOTS=1 (the images the docs show), else into the
// test's temporary folder.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if len(png) < 1000 || string(png[1:4]) != "PNG" {
		t.Fatalf("screenshot %s: %d bytes, not a PNG", name, len(png))
	}
	dir := t.TempDir()
	if os.Getenv("HANDOFF_UPDATE_SCREENSHOTS") == "1" {
		dir = filepath.Join("..", "..", "docs")
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The board lists the panes; a dispatch appears, moves through its states
// as the agent works and reaches Done in the browser within a second of
// the service deciding it; its page draws its path and the evidence.
func TestTheBoardFollowsADispatchToDone(t *testing.T) {
	worker := simagent.Options{Echo: true, Startup: 300 * time.Millisecond, Work: 1500 * time.Millisecond, Stream: 300 * time.Millisecond}
	l := startLive(t, worker, simagent.Options{Echo: true})
	ctx := browser(t)

	// Signed in by the one-time link, the browser lands on a clean URL.
	l.signIn(t, ctx)
	at, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	if at != l.url+"/" {
		t.Errorf("after the login link the browser is at %s, want %s/ (no code in the history's last entry)", at, l.url)
	}
	for _, p := range l.panes {
		waitJS(t, ctx, "pane "+p+" as idle", fmt.Sprintf(`(() => { const r = document.querySelector('#servers tr[data-pane=%q]'); return !!r && r.dataset.status === "idle"; })()`, p))
	}

	events, err := l.client.Events(context.Background(), "", 0)
	if err != nil {
		t.Fatal(err)
	}
	id := l.submit(t, l.panes[0], "analyst", "Draw my path")
	var decided time.Time
	for e := range events {
		if e.ID == id && e.Type == "transition" && e.To == "Done" {
			decided = e.Time
			break
		}
	}
	if decided.IsZero() {
		t.Fatal("the event stream ended before the dispatch was done")
	}
	row := fmt.Sprintf(`document.querySelector('#dispatches tr[data-id=%q]')`, id)
	waitJS(t, ctx, "the dispatch as Done", row+`?.dataset.state === "Done"`)
	doneAt := evalString(t, ctx, row+`.dataset.doneAt`)
	var ms int64
	fmt.Sscan(doneAt, &ms)
	if lag := time.UnixMilli(ms).Sub(decided); lag > time.Second {
		t.Errorf("the browser showed Done %v after the service decided it; want within a second", lag)
	}
	// The pane's row follows at once, not at the next 5 s refresh.
	shown := time.Now()
	waitJS(t, ctx, "the pane no longer processing", fmt.Sprintf(`document.querySelector('#servers tr[data-pane=%q]')?.dataset.status !== "processing"`, l.panes[0]))
	if lag := time.Since(shown); lag > 3*time.Second {
		t.Errorf("the pane's row said processing %v after the dispatch showed Done; want under 3 s", lag)
	}
	states := evalString(t, ctx, row+`.dataset.states`)
	if !strings.Contains(states, "Working") || !strings.HasSuffix(states, "Done") {
		t.Errorf("the row went through %q; want it to show Working on the way to Done", states)
	}
	waitJS(t, ctx, "the outcome", row+`.querySelector('.outcome').textContent.startsWith("done (exit 0)")`)
	screenshot(t, ctx, "board.png")

	// Its page: the prompt, the answer, the archive, the path drawn on the
	// diagram and each transition's evidence.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.JSPath(row+`.querySelector("a")`))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the dispatch's page with its diagram", `!!document.querySelector('#d-diagram svg g.node.current#state-Done')`)
	if got := evalString(t, ctx, `document.querySelector('#d-prompt').textContent`); got != "Draw my path" {
		t.Errorf("prompt shown %q", got)
	}
	if got := evalString(t, ctx, `document.querySelector('#d-answer').textContent`); got != "Draw my path\n" {
		t.Errorf("answer shown %q", got)
	}
	v, err := l.client.Get(context.Background(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, ctx, `document.querySelector('#d-facts .archived').textContent`); got != v.ArchivedPath || got == "" {
		t.Errorf("archive shown %q, want %q", got, v.ArchivedPath)
	}
	for _, tr := range v.Transitions {
		sel := fmt.Sprintf(`#d-diagram svg .edge.taken[data-pairs~="%s>%s"]`, tr.From, tr.To)
		if evalString(t, ctx, fmt.Sprintf(`document.querySelector(%q) ? "yes" : "no"`, sel)) != "yes" {
			t.Errorf("the diagram does not highlight %s → %s (%s)", tr.From, tr.To, tr.Event)
		}
	}
	// The diagram as the browser drew it: no label's text box overlaps
	// another label's or a state's (getBBox, the rendered geometry).
	if got := evalString(t, ctx, `(() => {
		const svg = document.querySelector('#d-diagram svg');
		const boxes = [...svg.querySelectorAll('text.label')].map((e) => [e.closest('g').id, e.getBBox()]);
		const states = [...svg.querySelectorAll('g.node rect')].map((e) => [e.closest('g').id, e.getBBox()]);
		const hit = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
		const bad = [];
		boxes.forEach(([id, b], i) => {
			boxes.slice(i + 1).forEach(([id2, b2]) => { if (hit(b, b2)) bad.push(id + " on " + id2); });
			states.forEach(([s, r]) => { if (hit(b, r)) bad.push(id + " on " + s); });
		});
		return boxes.length + " labels; " + bad.join(", ");
	})()`); !strings.HasSuffix(got, "; ") || strings.HasPrefix(got, "0 ") {
		t.Errorf("the rendered diagram's labels: %s", got)
	}
	n := evalString(t, ctx, `String(document.querySelectorAll("#d-transitions > tbody > tr").length)`)
	if n != fmt.Sprint(len(v.Transitions)) {
		t.Errorf("%s transitions shown, the service has %d", n, len(v.Transitions))
	}
	if ev := evalString(t, ctx, `document.querySelector('#d-transitions tbody tr[data-event="active"] .evidence').textContent`); !strings.Contains(ev, "screen: ") {
		t.Errorf("the evidence of active: %q, want the screen's reason", ev)
	}
	if ev := evalString(t, ctx, `document.querySelector('#d-transitions tbody tr[data-event="file_ready"] .evidence').textContent`); !strings.Contains(ev, "file: ready → "+v.ArchivedPath) {
		t.Errorf("the evidence of file_ready: %q, want the file and its archive", ev)
	}
	// The evidence in words and a small table; the raw signals only on demand.
	raw := `getComputedStyle(document.querySelector('#d-transitions .evidence .raw')).display`
	if got := evalString(t, ctx, raw); got != "none" {
		t.Errorf("the raw signals show before the toggle (display %s)", got)
	}
	if evalString(t, ctx, `String(document.querySelectorAll('#d-transitions .signals-table tr').length)`) == "0" {
		t.Error("no table of what the classifier saw")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#raw-toggle"))); err != nil {
		t.Fatal(err)
	}
	if got := evalString(t, ctx, raw); got == "none" {
		t.Error("the toggle does not show the raw signals")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#raw-toggle"))); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "dispatch.png")
}

// Cancel on a dispatch's page is the API's DELETE; the same DELETE from a
// page of another origin (another port of 127.0.0.1: same site, so the
// SameSite cookie goes along) is refused; so are requests without the
// token or cookie, and with a foreign Host.
func TestCancelWorksAndOtherPagesAreRefused(t *testing.T) {
	slow := simagent.Options{Echo: true, Startup: 200 * time.Millisecond, Work: 5 * time.Minute}
	l := startLive(t, slow)
	ctx := browser(t)
	l.signIn(t, ctx)
	id := l.submit(t, l.panes[0], "worker_a", "Work for a long time")
	if err := chromedp.Do(ctx, chromedp.Navigate(l.url+"/d/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the dispatch working", `document.querySelector('#dispatch').dataset.state === "Working"`)

	// Another page of the same site, with the board's cookie in the jar.
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "<!doctype html><title>another page</title><p>another page</p>")
	}))
	defer evil.Close()
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL)); err != nil {
		t.Fatal(err)
	}
	// A DELETE is preflighted (and the preflight refused); a POST of
	// text/plain is not: only the board's origin check stands in its way.
	inject, _ := json.Marshal(serve.SubmitBody{Pane: dispatchstate.Pane{Target: l.panes[0], Socket: l.priv.Socket}, Role: "tester", Workdir: l.workdir, Prompt: "injected"})
	status, err := chromedp.Run(ctx, chromedp.Evaluate[string](
		fmt.Sprintf(`Promise.all([
			fetch(%q, {method: "DELETE", credentials: "include"}).then(() => "sent", (e) => "blocked"),
			fetch(%q, {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: %q}).then(() => "sent", (e) => "blocked"),
		]).then((r) => r.join(" "))`, l.url+"/v1/dispatches/"+id, l.url+"/v1/dispatches", inject),
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(status, "sent") {
		t.Fatalf("the other page's POST was not even sent (%s): the test proves nothing", status)
	}
	time.Sleep(500 * time.Millisecond)
	if v, err := l.client.Get(context.Background(), id, 0); err != nil || v.Final {
		t.Fatalf("after another page's DELETE the dispatch is %+v, %v: want it still running", v, err)
	}
	if list, err := l.client.List(context.Background(), map[string][]string{"role": {"tester"}}); err != nil || len(list) != 0 {
		t.Fatalf("another page's POST made dispatches %+v (%v): want it refused", list, err)
	}

	// From its own page, Cancel ends it.
	if err := chromedp.Do(ctx, chromedp.Navigate(l.url+"/d/"+id)); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the cancel button", `!document.querySelector('#cancel').hidden`)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS("#cancel"))); err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "the dispatch cancelled", `document.querySelector('#dispatch').dataset.state === "Cancelled"`)
	if v, err := l.client.Get(context.Background(), id, 0); err != nil || v.Outcome != "cancelled" {
		t.Fatalf("the service has %+v, %v: want it cancelled", v, err)
	}

	// Without the token or the cookie, or under another name: refused.
	for _, c := range []struct {
		name, host, auth string
		want             int
	}{
		{"no token", "", "", http.StatusUnauthorized},
		{"a wrong token", "", "Bearer nope", http.StatusUnauthorized},
		{"a foreign Host", "rebound.example:" + strings.Split(l.url, ":")[2], "Bearer " + token, http.StatusMisdirectedRequest},
	} {
		req, _ := http.NewRequest("GET", l.url+"/v1/dispatches", nil)
		if c.host != "" {
			req.Host = c.host
		}
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != c.want {
			t.Errorf("%s: %d, want %d", c.name, res.StatusCode, c.want)
		}
	}
}

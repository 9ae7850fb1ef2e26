package web_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/serve/web"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

const token = "s3cret-token"

// rig is a service (no dispatch) with its board on a loopback test server.
type rig struct {
	board *web.Board
	url   string
	host  string
	// hc follows no redirect: the tests look at each answer.
	hc *http.Client
}

func newRig(t *testing.T) *rig {
	t.Helper()
	svc, err := serve.New(serve.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	host := ts.Listener.Addr().String()
	b, err := web.New(svc, web.Options{Addr: host, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	ts.Config.Handler = b.Handler()
	ts.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		svc.Close()
	})
	return &rig{board: b, url: ts.URL, host: host,
		hc: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (r *rig) do(t *testing.T, method, path string, hdr map[string]string, cookie *http.Cookie) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, r.url+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range hdr {
		if k == "Host" {
			req.Host = v
		} else {
			req.Header.Set(k, v)
		}
	}
	if cookie != nil {
		req.AddCookie(cookie)
	}
	res, err := r.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// login trades a fresh one-time link for the session cookie.
func (r *rig) login(t *testing.T) *http.Cookie {
	t.Helper()
	u, err := url.Parse(r.board.LoginURL())
	if err != nil {
		t.Fatal(err)
	}
	res := r.do(t, "GET", u.RequestURI(), nil, nil)
	for _, c := range res.Cookies() {
		if c.Name == web.CookieName {
			return c
		}
	}
	t.Fatalf("the login link set no cookie: %d %v", res.StatusCode, res.Header)
	return nil
}

var bearer = map[string]string{"Authorization": "Bearer " + token}

func TestWithoutTokenOrCookieNothingIsServed(t *testing.T) {
	r := newRig(t)
	for _, path := range []string{"/v1/dispatches", "/v1/events", "/v1/panes", "/board/panes", "/board/dispatches/x/diagram.svg"} {
		if res := r.do(t, "GET", path, nil, nil); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without a token: %d, want 401", path, res.StatusCode)
		}
	}
	if res := r.do(t, "GET", "/v1/dispatches", map[string]string{"Authorization": "Bearer wrong"}, nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", res.StatusCode)
	}
	if res := r.do(t, "GET", "/v1/dispatches", nil, &http.Cookie{Name: web.CookieName, Value: "made-up"}); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("a made-up cookie: %d, want 401", res.StatusCode)
	}
	// A person opening the board without a session is sent to sign in.
	if res := r.do(t, "GET", "/", nil, nil); res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login" {
		t.Errorf("GET / without a session: %d %s, want a redirect to /login", res.StatusCode, res.Header.Get("Location"))
	}
	if res := r.do(t, "GET", "/v1/dispatches", bearer, nil); res.StatusCode != http.StatusOK {
		t.Errorf("with the token: %d, want 200", res.StatusCode)
	}
}

// A DNS-rebound page reaches the port under its own name: refused, token
// or not.
func TestAForeignHostIsRefused(t *testing.T) {
	r := newRig(t)
	for _, host := range []string{"evil.example", "evil.example:" + strings.Split(r.host, ":")[1], "127.0.0.1:1", "localhost.evil.example"} {
		for _, path := range []string{"/", "/v1/dispatches", "/login"} {
			hdr := map[string]string{"Host": host, "Authorization": "Bearer " + token}
			if res := r.do(t, "GET", path, hdr, nil); res.StatusCode != http.StatusMisdirectedRequest {
				t.Errorf("GET %s with Host %s: %d, want 421", path, host, res.StatusCode)
			}
		}
	}
	port := strings.Split(r.host, ":")[1]
	for _, host := range []string{r.host, "localhost:" + port, "LOCALHOST:" + port} {
		if res := r.do(t, "GET", "/v1/dispatches", map[string]string{"Host": host, "Authorization": "Bearer " + token}, nil); res.StatusCode != http.StatusOK {
			t.Errorf("Host %s: %d, want 200", host, res.StatusCode)
		}
	}
}

// The login link is good once: it sets an HttpOnly, SameSite=Strict
// cookie and sends the browser on to a URL with no secret in it.
func TestTheLoginLinkIsGoodOnce(t *testing.T) {
	r := newRig(t)
	link, err := url.Parse(r.board.LoginURL())
	if err != nil || link.Host != r.host {
		t.Fatalf("link %v %v, want one on %s", link, err, r.host)
	}
	res := r.do(t, "GET", link.RequestURI(), nil, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("the link: %d → %q, want 303 to /", res.StatusCode, res.Header.Get("Location"))
	}
	var c *http.Cookie
	for _, k := range res.Cookies() {
		if k.Name == web.CookieName {
			c = k
		}
	}
	if c == nil || !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Value == "" || strings.Contains(link.RawQuery, c.Value) {
		t.Fatalf("cookie %+v: want HttpOnly, SameSite=Strict, not the link's code", c)
	}
	if got := r.do(t, "GET", "/v1/dispatches", nil, c); got.StatusCode != http.StatusOK {
		t.Errorf("with the cookie: %d, want 200", got.StatusCode)
	}
	if got := r.do(t, "GET", "/", nil, c); got.StatusCode != http.StatusOK {
		t.Errorf("the board with the cookie: %d, want 200", got.StatusCode)
	}
	again := r.do(t, "GET", link.RequestURI(), nil, nil)
	if again.StatusCode != http.StatusForbidden || len(again.Cookies()) != 0 {
		t.Errorf("the link used again: %d %v, want 403 and no cookie", again.StatusCode, again.Cookies())
	}
	if got := r.do(t, "GET", "/login?code=0123", nil, nil); got.StatusCode != http.StatusForbidden {
		t.Errorf("a made-up code: %d, want 403", got.StatusCode)
	}
}

// The login form takes the bearer token in a POST body (never in a URL).
func TestTheLoginFormTakesTheToken(t *testing.T) {
	r := newRig(t)
	post := func(tok string, hdr map[string]string) *http.Response {
		req, _ := http.NewRequest("POST", r.url+"/login", strings.NewReader(url.Values{"token": {tok}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := r.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	if res := post("wrong", map[string]string{"Sec-Fetch-Site": "same-origin"}); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
		t.Errorf("a wrong token: %d %v", res.StatusCode, res.Cookies())
	}
	// Another site's page posting the form (login CSRF) is refused.
	if res := post(token, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "http://evil.example"}); res.StatusCode != http.StatusForbidden || len(res.Cookies()) != 0 {
		t.Errorf("a cross-site login: %d %v", res.StatusCode, res.Cookies())
	}
	res := post(token, map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": r.url})
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) != 1 || !res.Cookies()[0].HttpOnly {
		t.Errorf("the right token: %d %v, want 303 and the cookie", res.StatusCode, res.Cookies())
	}
}

// A change (DELETE, POST) needs the cookie or token AND this origin: a
// page of another site that rides on the cookie is refused.
func TestAChangeMustComeFromTheBoardsOrigin(t *testing.T) {
	r := newRig(t)
	c := r.login(t)
	for _, hdr := range []map[string]string{
		{"Sec-Fetch-Site": "cross-site"},
		{"Sec-Fetch-Site": "same-site"},
		{"Origin": "http://evil.example"},
		{"Origin": "http://localhost.evil.example"},
	} {
		if res := r.do(t, "DELETE", "/v1/dispatches/some-id", hdr, c); res.StatusCode != http.StatusForbidden {
			t.Errorf("DELETE with %v: %d, want 403", hdr, res.StatusCode)
		}
		if res := r.do(t, "POST", "/v1/dispatches", hdr, c); res.StatusCode != http.StatusForbidden {
			t.Errorf("POST with %v: %d, want 403", hdr, res.StatusCode)
		}
	}
	// Without the cookie, the same origin is not enough.
	if res := r.do(t, "DELETE", "/v1/dispatches/some-id", map[string]string{"Sec-Fetch-Site": "same-origin"}, nil); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("DELETE from the origin without the cookie: %d, want 401", res.StatusCode)
	}
	// From the board's own page it reaches the API (which knows no such
	// dispatch); so does a program with the token and no browser headers.
	if res := r.do(t, "DELETE", "/v1/dispatches/some-id", map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": r.url}, c); res.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE from the board: %d, want the API's 404", res.StatusCode)
	}
	if res := r.do(t, "DELETE", "/v1/dispatches/some-id", bearer, nil); res.StatusCode != http.StatusNotFound {
		t.Errorf("DELETE with the token: %d, want the API's 404", res.StatusCode)
	}
}

// The page and its assets are in the binary and load nothing from
// elsewhere: it works offline.
func TestThePageLoadsNothingFromElsewhere(t *testing.T) {
	files, _ := filepath.Glob("assets/*")
	if len(files) < 4 {
		t.Fatalf("assets: %v", files)
	}
	remote := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?(https?:)?//|fetch\(\s*["']https?:`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := remote.Find(b); m != nil {
			t.Errorf("%s loads from elsewhere: %s", f, m)
		}
	}
	r := newRig(t)
	c := r.login(t)
	for _, p := range []string{"/assets/board.js", "/assets/board.css"} {
		if res := r.do(t, "GET", p, nil, c); res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", p, res.StatusCode)
		}
	}
	res := r.do(t, "GET", "/", nil, c)
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("CSP %q", csp)
	}
}

// A board nobody looks at does nothing: making it and its handler starts
// no goroutine, no timer loop, no tmux client.
func TestABoardNobodyLooksAtDoesNothing(t *testing.T) {
	svc, err := serve.New(serve.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	b, err := web.New(svc, web.Options{Addr: "127.0.0.1:1", Token: token})
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Handler()
	_ = b.LoginURL()
	time.Sleep(100 * time.Millisecond)
	// The board's own goroutines, not the process's count: other tests'
	// servers and connections wind down at their own pace.
	buf := make([]byte, 1<<20)
	for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
		if strings.Contains(g, "handoff-fsm/serve/web.") {
			t.Errorf("the board runs a goroutine by itself, with nobody looking:\n%s", g)
		}
	}
	b.Close()
}

// privatePane starts a private tmux server (80 columns, height rows) whose
// one pane runs command; it is closed when the test ends.
func privatePane(t *testing.T, prefix string, height int, command string) *tmuxdriver.Private {
	t.Helper()
	testkit.RequireTmux(t)
	priv, err := tmuxdriver.StartPrivate(context.Background(), tmuxdriver.PrivateOptions{Prefix: prefix, Session: "s",
		Width: 80, Height: height, Dir: t.TempDir(), Command: command})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { priv.Close(context.Background()) })
	return priv
}

// controlBoard is a board on a service with tmux control clients, looking
// at servers; no listener serves it: a test calls its handler.
func controlBoard(t *testing.T, servers ...tmuxdriver.Server) *web.Board {
	t.Helper()
	svc, err := serve.New(serve.Options{StateDir: t.TempDir(), Control: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := web.New(svc, web.Options{Addr: "127.0.0.1:1", Token: token, Servers: servers})
	if err != nil {
		svc.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		b.Close()
		svc.Close()
	})
	return b
}

// getJSON sends an authorised GET of path to h and decodes the answer into
// v; it returns the status code.
func getJSON(t *testing.T, h http.Handler, path string, v any) int {
	t.Helper()
	req := httptest.NewRequest("GET", "http://127.0.0.1:1"+path, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if err := json.Unmarshal(rec.Body.Bytes(), v); err != nil && rec.Code == http.StatusOK {
		t.Fatalf("GET %s: %v in %s", path, err, rec.Body)
	}
	return rec.Code
}

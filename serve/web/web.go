// Package web is the service's web board: a page (embedded, no CDN, plain
// HTML, CSS and JavaScript) that shows the panes of each tmux server the
// service knows, the dispatches live over the event stream, and each
// dispatch's transitions with their evidence drawn on the state diagram;
// served over TCP in front of the service's API, with its own guard.
//
// A browser cannot reach the unix socket, so the board needs TCP, and TCP
// is where a browser's other pages can reach the service too. The guard:
//   - the Host header must name this listener (a loopback name and the
//     port, or a host given in Options.Hosts): a DNS-rebound name is
//     refused before anything else is read;
//   - every other request needs the bearer token (Authorization: Bearer,
//     for programs) or the board's session cookie (HttpOnly,
//     SameSite=Strict), which a person gets from a one-time login link
//     (LoginURL): the link's code is exchanged for the cookie once, then
//     the browser is sent on to a clean URL, so no secret stays usable in
//     its history; the login page also takes the token in a form (POST, no
//     secret in any URL);
//   - a request that changes something (POST, DELETE, …) must come from
//     this origin (Sec-Fetch-Site, else Origin, checked by
//     http.CrossOriginProtection) on top of the token or cookie.
package web

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/diagram"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/team"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

//go:embed assets
var assets embed.FS

// CookieName is the board's session cookie.
const CookieName = "handoff_board"

// How long a login link and a session last.
const (
	LinkTTL    = 10 * time.Minute
	SessionTTL = 12 * time.Hour
)

// Options configure a Board.
type Options struct {
	// Addr is the listener's address (host:port) as clients reach it: the
	// Host header must be it, or localhost, 127.0.0.1 or [::1] with its
	// port, or one of Hosts.
	Addr string
	// Hosts are further host[:port] names the board answers to (a name
	// given with --allow-remote); none by default.
	Hosts []string
	// Token is the bearer token programs send; "" lets only the board's
	// own cookie in.
	Token string
	// Servers are the tmux servers whose panes the board shows, besides
	// those the service's dispatches named.
	Servers []tmuxdriver.Server
	// Teams are team files (handoff-fsm up) whose agents' health and runs
	// the board shows: each run's journal is where `handoff-fsm run` keeps
	// it (<workdir>/.tmp/handoff-run).
	Teams []string
	// Journals are more run journals' folders (run --journal DIR).
	Journals []string
}

// HoldFor is how long the board keeps a tmux server's control client
// after a page last asked for its panes; RetryAfter is how long it waits
// before it asks a server that could not be read again.
const (
	HoldFor    = 30 * time.Second
	RetryAfter = 30 * time.Second
)

// Board serves the page, its assets and the service's API behind the
// guard. Its methods are safe for concurrent use.
type Board struct {
	svc *serve.Service
	api http.Handler
	o   Options
	// pic is the transition table laid out, on the first diagram asked
	// for (the layout is searched for: a moment's work, done once).
	pic     *diagram.Picture
	picOnce sync.Once

	mu       sync.Mutex
	codes    map[string]time.Time // one-time login codes → expiry
	sessions map[string]time.Time // session cookies → expiry
	seen     map[string]paneSeen  // server and pane → status and since when
	held     map[tmuxdriver.Server]*held
	failed   map[tmuxdriver.Server]failure
	closed   bool
}

// held is a server's control client the board keeps while pages look.
type held struct {
	release func()
	timer   *time.Timer
}

// failure is a server that could not be read, and until when the board
// does not try again.
type failure struct {
	err   string
	until time.Time
}

// paneSeen is a pane's status and when the board first saw it in it.
type paneSeen struct {
	status handoff.Status
	since  time.Time
	first  bool // since the board's first look
}

// New returns the board of svc; o.Addr is required (the Host check).
func New(svc *serve.Service, o Options) (*Board, error) {
	if _, _, err := net.SplitHostPort(o.Addr); err != nil {
		return nil, fmt.Errorf("web: the listener's address %q: %w", o.Addr, err)
	}
	return &Board{svc: svc, api: svc.Handler(""), o: o, codes: map[string]time.Time{},
		sessions: map[string]time.Time{}, seen: map[string]paneSeen{}, held: map[tmuxdriver.Server]*held{},
		failed: map[tmuxdriver.Server]failure{}}, nil
}

// Close lets go of the tmux control clients the board holds.
func (b *Board) Close() {
	b.mu.Lock()
	hs := b.held
	b.held, b.closed = map[tmuxdriver.Server]*held{}, true
	b.mu.Unlock()
	for _, h := range hs {
		h.timer.Stop()
		h.release()
	}
}

// hold keeps srv's control client for HoldFor after this look, so a page
// that refreshes every few seconds starts no tmux process; with no page
// open the client is let go and the board costs nothing.
func (b *Board) hold(srv tmuxdriver.Server) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	if h, ok := b.held[srv]; ok && h.timer.Stop() {
		h.timer.Reset(HoldFor)
		return
	}
	h := &held{release: b.svc.Hold(context.Background(), srv)}
	h.timer = time.AfterFunc(HoldFor, func() {
		b.mu.Lock()
		if b.held[srv] == h {
			delete(b.held, srv)
		}
		b.mu.Unlock()
		h.release()
	})
	b.held[srv] = h
}

// LoginURL makes a one-time login link for a browser: its code is good
// once, for LinkTTL.
func (b *Board) LoginURL() string {
	code := random()
	b.mu.Lock()
	b.codes[code] = time.Now().Add(LinkTTL)
	b.mu.Unlock()
	return "http://" + b.o.Addr + "/login?code=" + code
}

func random() string {
	var r [24]byte
	_, _ = rand.Read(r[:])
	return hex.EncodeToString(r[:])
}

// Handler is the board and the API (/v1/…) behind the guard.
func (b *Board) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", b.page)
	mux.HandleFunc("GET /d/{id}", b.page)
	mux.HandleFunc("GET /pane", b.page)
	mux.HandleFunc("GET /r/{key}", b.page)
	mux.HandleFunc("GET /board/screen", b.screen)
	mux.HandleFunc("GET /board/runs", b.runs)
	mux.HandleFunc("GET /board/runs/{key}", b.run)
	mux.HandleFunc("GET /board/teams", b.teams)
	mux.HandleFunc("GET /board/panes", b.panes)
	mux.HandleFunc("GET /board/dispatches/{id}/diagram.svg", b.diagram)
	mux.HandleFunc("POST /board/link", b.link)
	mux.Handle("/v1/", b.api)

	authed := b.requireAuth(mux)
	outer := http.NewServeMux()
	outer.HandleFunc("GET /login", b.login)
	outer.HandleFunc("POST /login", b.loginForm)
	// The icon, for a browser that asks for /favicon.ico (on the login
	// page too): no 404 on every load.
	outer.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		icon, _ := assets.ReadFile("assets/icon.svg")
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "max-age=86400")
		w.Write(icon)
	})
	outer.Handle("/", authed)
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusForbidden, serve.APIError{Error: "a change must come from the board's own page (cross-origin request refused)"})
	}))
	return b.checkHost(headers(cop.Handler(outer)))
}

// Links serves POST /board/link (a new login link, as JSON {"url"}) in
// front of next: for the unix socket, which only its user can reach.
func (b *Board) Links(next http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /board/link", b.link)
	mux.Handle("/", next)
	return mux
}

func (b *Board) link(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"url": b.LoginURL()})
}

// checkHost refuses a Host header that is not this listener's: a page of
// another site whose name was rebound to 127.0.0.1 reaches the port, but
// sends its own name.
func (b *Board) checkHost(next http.Handler) http.Handler {
	_, port, _ := net.SplitHostPort(b.o.Addr)
	allowed := []string{b.o.Addr, "localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port}
	for _, h := range b.o.Hosts {
		allowed = append(allowed, h)
		if !strings.Contains(h, ":") || strings.HasSuffix(h, "]") {
			allowed = append(allowed, h+":"+port)
		}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !slices.Contains(allowed, strings.ToLower(r.Host)) {
			writeJSON(w, http.StatusMisdirectedRequest, serve.APIError{Error: fmt.Sprintf("Host %q is not this service (%s): refused", r.Host, b.o.Addr)})
			return
		}
		next.ServeHTTP(w, r)
	})
}

// headers are the board's security headers: its own scripts only, no
// framing, no referrer. Inline styles are allowed for the state diagram's
// SVG, which carries its own <style> (it is the service's drawing of its
// own table; the page never inserts markup from anything a user wrote).
func headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}

// requireAuth lets in the bearer token or a live session cookie; a browser
// asking for a page without either is sent to the login page.
func (b *Board) requireAuth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if b.authed(r) {
			next.ServeHTTP(w, r)
			return
		}
		if r.Method == http.MethodGet && (r.URL.Path == "/" || r.URL.Path == "/pane" || strings.HasPrefix(r.URL.Path, "/d/") || strings.HasPrefix(r.URL.Path, "/r/")) {
			http.Redirect(w, r, "/login", http.StatusSeeOther)
			return
		}
		w.Header().Set("WWW-Authenticate", "Bearer")
		writeJSON(w, http.StatusUnauthorized, serve.APIError{Error: "a bearer token (Authorization: Bearer TOKEN) or the board's login is required"})
	})
}

func (b *Board) authed(r *http.Request) bool {
	if b.o.Token != "" {
		want := []byte("Bearer " + b.o.Token)
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) == 1 {
			return true
		}
	}
	c, err := r.Cookie(CookieName)
	if err != nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	exp, ok := b.sessions[c.Value]
	if ok && time.Now().After(exp) {
		delete(b.sessions, c.Value)
		return false
	}
	return ok
}

// login exchanges a one-time code for the session cookie and sends the
// browser on to the board, so the address in its history holds a used
// code; without a code it shows the token form.
func (b *Board) login(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	code := r.URL.Query().Get("code")
	if code == "" {
		serveAsset(w, "login.html")
		return
	}
	now := time.Now()
	b.mu.Lock()
	exp, ok := b.codes[code]
	delete(b.codes, code)
	for c, e := range b.codes {
		if now.After(e) {
			delete(b.codes, c)
		}
	}
	b.mu.Unlock()
	if !ok || now.After(exp) {
		refuse(w, "This login link was used already or has expired. Ask for a new one (handoff-fsm board prints one; POST /board/link with the bearer token makes another), or sign in with the token at /login.")
		return
	}
	b.startSession(w)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// loginForm takes the bearer token from the login page's form.
func (b *Board) loginForm(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	r.Body = http.MaxBytesReader(w, r.Body, 4096)
	tok := r.PostFormValue("token")
	if b.o.Token == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(b.o.Token)) != 1 {
		refuse(w, "Wrong token.")
		return
	}
	b.startSession(w)
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// refuse answers a person's failed sign-in: 403, in words.
func refuse(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	fmt.Fprintln(w, msg)
}

func (b *Board) startSession(w http.ResponseWriter) {
	s := random()
	now := time.Now()
	b.mu.Lock()
	for k, e := range b.sessions {
		if now.After(e) {
			delete(b.sessions, k)
		}
	}
	b.sessions[s] = now.Add(SessionTTL)
	b.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: s, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, MaxAge: int(SessionTTL / time.Second)})
}

func (b *Board) page(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	serveAsset(w, "index.html")
}

func serveAsset(w http.ResponseWriter, name string) {
	page, err := assets.ReadFile("assets/" + name)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(page)
}

// diagram is the state diagram with the dispatch's path on it.
func (b *Board) diagram(w http.ResponseWriter, r *http.Request) {
	v, err := b.svc.Get(r.Context(), r.PathValue("id"), 0)
	if err != nil {
		writeJSON(w, http.StatusNotFound, serve.APIError{Error: err.Error()})
		return
	}
	steps := make([]diagram.Step, len(v.Transitions))
	for i, t := range v.Transitions {
		steps[i] = diagram.Step{From: handoff.State(t.From), To: handoff.State(t.To), Event: handoff.Event(t.Event)}
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-store")
	b.picOnce.Do(func() { b.pic = diagram.NewPicture(handoff.Transitions()) })
	w.Write([]byte(b.pic.SVG(steps)))
}

// ServerPanes is one tmux server's panes on the board.
type ServerPanes struct {
	Socket     string     `json:"socket,omitempty"`
	SocketPath string     `json:"socket_path,omitempty"`
	Error      string     `json:"error,omitempty"`
	Panes      []PaneView `json:"panes"`
}

// PaneView is a pane of the board: the service's row, since when the
// board has seen it in its status, and a timed-out dispatch's mark.
type PaneView struct {
	serve.PaneRow
	Since time.Time `json:"since"`
	// SinceFirstLook: the pane has shown this status since the board's
	// first look at it, so Since is a lower bound (it was so before).
	SinceFirstLook bool `json:"since_first_look,omitempty"`
	// TimedOut describes the dispatch that timed out on the pane and left
	// it marked busy; "" when none did.
	TimedOut string `json:"timed_out,omitempty"`
}

// panes reads the panes of every tmux server the service knows: the
// default one and each one a dispatch in its history named. Only when a
// page asks: the board does no work for nobody.
func (b *Board) panes(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
	defer cancel()
	var out []ServerPanes
	now := time.Now()
	live := map[string]bool{}
	for _, srv := range b.servers() {
		sp := ServerPanes{Socket: srv.Socket, SocketPath: srv.SocketPath, Panes: []PaneView{}}
		b.mu.Lock()
		f, failed := b.failed[srv]
		b.mu.Unlock()
		if failed && now.Before(f.until) {
			sp.Error = f.err
			out = append(out, sp)
			continue
		}
		b.hold(srv)
		rows, err := b.svc.Board(ctx, srv, "", "")
		if err != nil {
			sp.Error = err.Error()
			b.mu.Lock()
			b.failed[srv] = failure{sp.Error, now.Add(RetryAfter)}
			h := b.held[srv]
			delete(b.held, srv)
			b.mu.Unlock()
			if h != nil {
				h.timer.Stop()
				h.release()
			}
			out = append(out, sp)
			continue
		}
		b.mu.Lock()
		delete(b.failed, srv)
		b.mu.Unlock()
		marks := timedOutMarks(ctx, srv)
		for _, row := range rows {
			key := srv.Socket + "\x00" + srv.SocketPath + "\x00" + row.ID
			live[key] = true
			b.mu.Lock()
			s, ok := b.seen[key]
			if !ok || s.status != row.Status {
				s = paneSeen{row.Status, now, !ok}
				b.seen[key] = s
			}
			b.mu.Unlock()
			sp.Panes = append(sp.Panes, PaneView{PaneRow: row, Since: s.since, SinceFirstLook: s.first, TimedOut: marks[row.ID]})
		}
		out = append(out, sp)
	}
	b.mu.Lock()
	for k := range b.seen {
		if !live[k] {
			delete(b.seen, k)
		}
	}
	b.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"servers": out, "now": now})
}

// servers are the tmux servers of the board: those of Options.Servers,
// each team's, then each one the service's dispatches named, in the order
// first named.
func (b *Board) servers() []tmuxdriver.Server {
	var out []tmuxdriver.Server
	for _, s := range b.o.Servers {
		if k := (tmuxdriver.Server{Socket: s.Socket, SocketPath: s.SocketPath}); !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, f := range b.o.Teams {
		if t, err := team.Load(f); err == nil {
			if k := (tmuxdriver.Server{Socket: t.Socket}); !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	for _, v := range b.svc.Dispatches(serve.Filter{}) {
		k := tmuxdriver.Server{Socket: v.Socket, SocketPath: v.SocketPath}
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

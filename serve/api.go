package serve

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
	"github.com/handoff-fsm/handoff-fsm/version"
)

// MaxBody bounds a request body (the prompt is in it).
const MaxBody = 4 << 20

// MaxWait bounds GET /v1/dispatches/{id}?wait=.
const MaxWait = 10 * time.Minute

// SubmitBody is the JSON of POST /v1/dispatches. Durations are seconds.
// Config is the wait's settings in handoff.Config's JSON form: send's knobs
// by their JSON names, a key left out is the spec's default (send --server
// passes them all); nil is the defaults.
type SubmitBody struct {
	// Pane is the agent's pane, its keys inline (target, socket,
	// socket_path, provider).
	dispatchstate.Pane
	Role        string          `json:"role"`
	Workdir     string          `json:"workdir"`
	Prompt      string          `json:"prompt"`
	History     *int            `json:"history,omitempty"`
	AllowShell  bool            `json:"allow_shell,omitempty"`
	TmuxTimeout *float64        `json:"tmux_timeout,omitempty"`
	WaitSlot    bool            `json:"wait_slot,omitempty"`
	Config      *handoff.Config `json:"config,omitempty"`
	// HookDir is the absolute folder the agent's turn-end hook writes its
	// markers to (handoff-fsm hook --dir): the wait decides on its Stop
	// marker at once. "" for none.
	HookDir string `json:"hook_dir,omitempty"`
}

// APIError is the body of every 4xx and 5xx answer.
type APIError struct {
	Error string `json:"error"`
	// Field names the request field that is wrong (400).
	Field string `json:"field,omitempty"`
	// Holder is who holds a busy slot (409).
	Holder *Holder `json:"holder,omitempty"`
}

// Holder is a busy slot's holder: a dispatch of the service, or a process.
type Holder struct {
	ID  string `json:"id,omitempty"`
	PID int    `json:"pid,omitempty"`
}

// badField is a 400 naming field.
type badField struct {
	field string
	msg   string
}

func (e *badField) Error() string { return e.field + ": " + e.msg }
func (e *badField) Unwrap() error { return ErrBadInput }

// ErrBadInput is wrapped by the errors that refuse a request for its
// input (a 400 of the API, naming the field): a Service's, and a Client's
// StatusError for a 400.
var ErrBadInput = errors.New("bad input")

func bad(field, format string, a ...any) error {
	return &badField{field, fmt.Sprintf(format, a...)}
}

// Handler serves the API (see docs/serve.md): token, when not empty, is the
// bearer token every request must carry (compared in constant time).
func (s *Service) Handler(token string) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/dispatches", s.postDispatch)
	mux.HandleFunc("GET /v1/dispatches", s.listDispatches)
	mux.HandleFunc("GET /v1/dispatches/{id}", s.getDispatch)
	mux.HandleFunc("DELETE /v1/dispatches/{id}", s.deleteDispatch)
	mux.HandleFunc("GET /v1/wait", s.waitDispatches)
	mux.HandleFunc("GET /v1/events", s.events)
	mux.HandleFunc("GET /v1/panes", s.panes)
	mux.HandleFunc("GET /v1/health", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"ok": true, "version": version.Get()})
	})
	mux.HandleFunc("GET /v1/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, version.Get())
	})
	if token == "" {
		return mux
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			writeJSON(w, http.StatusUnauthorized, APIError{Error: "a bearer token is required (Authorization: Bearer TOKEN)"})
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

func (s *Service) postDispatch(w http.ResponseWriter, r *http.Request) {
	body, err := readSubmit(http.MaxBytesReader(w, r.Body, MaxBody))
	var st *dispatchstate.State
	if err == nil {
		st, err = body.State()
	}
	var bf *badField
	if errors.As(err, &bf) {
		writeJSON(w, http.StatusBadRequest, APIError{Error: bf.Error(), Field: bf.field})
		return
	}
	if err != nil {
		writeJSON(w, http.StatusBadRequest, APIError{Error: err.Error()})
		return
	}
	v, err := s.Accept(Request{State: st})
	var busy *SlotBusyError
	switch {
	case errors.As(err, &bf):
		writeJSON(w, http.StatusBadRequest, APIError{Error: bf.Error(), Field: bf.field})
	case errors.As(err, &busy):
		writeJSON(w, http.StatusConflict, APIError{Error: busy.Error(), Holder: &Holder{ID: busy.ID, PID: busy.PID}})
	case errors.Is(err, dispatchstate.ErrMalformed):
		writeJSON(w, http.StatusBadRequest, APIError{Error: err.Error()})
	case err != nil:
		writeJSON(w, http.StatusInternalServerError, APIError{Error: err.Error()})
	default:
		w.Header().Set("Location", "/v1/dispatches/"+v.ID)
		writeJSON(w, http.StatusCreated, v)
	}
}

// readSubmit decodes a SubmitBody; errors name the field.
func readSubmit(r io.Reader) (*SubmitBody, error) {
	b, err := io.ReadAll(r)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return nil, bad("body", "larger than %d bytes", tooBig.Limit)
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var body SubmitBody
	if err := dec.Decode(&body); err != nil {
		var typ *json.UnmarshalTypeError
		switch {
		case errors.Is(err, handoff.ErrInvalidConfig):
			return nil, configBad(err)
		case errors.As(err, &typ):
			return nil, bad(typ.Field, "a %s is not a %v", typ.Value, typ.Type)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return nil, bad(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`), "unknown field")
		}
		return nil, bad("body", "not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, bad("body", "more than one JSON object")
	}
	return &body, nil
}

// State is the persisted dispatch the body asks for (without its id and
// times, which Submit gives it); errors name the field.
func (b *SubmitBody) State() (*dispatchstate.State, error) {
	switch {
	case b.Target == "":
		return nil, bad("target", "missing: the agent's tmux pane (%%id or session:window.pane)")
	case b.Socket != "" && b.SocketPath != "":
		return nil, bad("socket_path", "give socket or socket_path, not both")
	case b.Role == "":
		return nil, bad("role", "missing (one of %s, or a role of your own)", strings.Join(handoff.Roles(), ", "))
	case b.Workdir == "":
		return nil, bad("workdir", "missing: the absolute folder the response files live under")
	case !filepath.IsAbs(b.Workdir):
		return nil, bad("workdir", "%q is not an absolute path (the service does not know your current folder)", b.Workdir)
	case strings.TrimSpace(b.Prompt) == "":
		return nil, bad("prompt", "missing or blank")
	case b.HookDir != "" && !filepath.IsAbs(b.HookDir):
		return nil, bad("hook_dir", "%q is not an absolute path", b.HookDir)
	}
	if err := handoff.CheckPrompt(b.Prompt); err != nil {
		return nil, bad("prompt", "%v", err)
	}
	if err := checkWorkdir(b.Workdir); err != nil {
		return nil, err
	}
	if _, _, err := handoff.ResolveRole(b.Role); err != nil {
		return nil, bad("role", "%v", err)
	}
	prov := b.Provider
	if prov == "" {
		prov = provider.Default
	}
	if _, err := provider.Lookup(prov); err != nil && prov != provider.Auto {
		return nil, bad("provider", "%v (or auto)", err)
	}
	st := &dispatchstate.State{Pane: dispatchstate.Pane{Target: b.Target, Socket: b.Socket, SocketPath: filepath.Clean(b.SocketPath), Provider: prov},
		History: tmuxdriver.DefaultHistory, AllowShell: b.AllowShell, TmuxTimeout: tmuxdriver.DefaultCallTimeout.String(),
		Role: b.Role, Workdir: filepath.Clean(b.Workdir), Prompt: b.Prompt, WaitSlot: b.WaitSlot, HookDir: b.HookDir}
	if b.SocketPath == "" {
		st.SocketPath = ""
	}
	if b.History != nil {
		if *b.History < 0 {
			return nil, bad("history", "negative")
		}
		st.History = *b.History
	}
	if b.TmuxTimeout != nil {
		d, err := seconds("tmux_timeout", *b.TmuxTimeout)
		if err != nil || d <= 0 {
			return nil, bad("tmux_timeout", "want a positive number of seconds")
		}
		st.TmuxTimeout = d.String()
	}
	st.Config = handoff.DefaultConfig()
	if b.Config != nil {
		st.Config = *b.Config
	}
	if err := st.Config.Validate(); err != nil {
		return nil, configBad(err)
	}
	return st, nil
}

// configBad is a config that cannot be read or used, naming its key
// (config.poll) when the error does (handoff.ConfigError).
func configBad(err error) error {
	var ce *handoff.ConfigError
	if errors.As(err, &ce) {
		return bad("config."+ce.Field, "%v", ce.Err)
	}
	return bad("config", "%v", err)
}

// checkWorkdir rejects a work folder that is a file, or lies below one:
// the service makes a missing folder itself, but a file there would fail
// only when it makes the response folder, as a 500. Other errors (no
// permission to look) are left to that step, which reports them itself.
func checkWorkdir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return bad("workdir", "%q is a file, not a folder", dir)
	case errors.Is(err, syscall.ENOTDIR):
		return bad("workdir", "%q lies below a file, not a folder", dir)
	}
	return nil
}

func seconds(field string, v float64) (time.Duration, error) {
	if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v*float64(time.Second) > math.MaxInt64 {
		return 0, bad(field, "%v is not a number of seconds (non-negative)", v)
	}
	return time.Duration(math.Round(v * float64(time.Second))), nil
}

func (s *Service) getDispatch(w http.ResponseWriter, r *http.Request) {
	var wait time.Duration
	if q := r.URL.Query().Get("wait"); q != "" {
		d, err := handoff.ParseDuration(q)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, APIError{Error: err.Error(), Field: "wait"})
			return
		}
		wait = min(d, MaxWait)
	}
	v, err := s.Get(r.Context(), r.PathValue("id"), wait)
	if err != nil {
		writeJSON(w, http.StatusNotFound, APIError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, v)
}

func (s *Service) deleteDispatch(w http.ResponseWriter, r *http.Request) {
	v, err := s.Cancel(r.Context(), r.PathValue("id"))
	if err != nil {
		writeJSON(w, http.StatusNotFound, APIError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// ParseFilter reads the list filters from a query: role, state (a state
// name, running or final), since (RFC 3339, or a duration: that long ago),
// limit.
func ParseFilter(q map[string][]string, now time.Time) (Filter, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	f := Filter{Role: get("role"), State: get("state")}
	if s := get("since"); s != "" {
		if t, err := time.Parse(time.RFC3339, s); err == nil {
			f.Since = t
		} else if d, err := handoff.ParseDuration(s); err == nil {
			f.Since = now.Add(-d)
		} else {
			return f, bad("since", "%q is neither an RFC 3339 time nor a duration", s)
		}
	}
	if s := get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return f, bad("limit", "%q is not a count", s)
		}
		f.Limit = n
	}
	return f, nil
}

func (s *Service) listDispatches(w http.ResponseWriter, r *http.Request) {
	f, err := ParseFilter(r.URL.Query(), time.Now())
	if err != nil {
		var bf *badField
		errors.As(err, &bf)
		writeJSON(w, http.StatusBadRequest, APIError{Error: err.Error(), Field: bf.field})
		return
	}
	list := s.Dispatches(f)
	if list == nil {
		list = []View{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"dispatches": list})
}

// events streams every event: JSON lines, or server-sent events when the
// client accepts text/event-stream (or asks format=sse). id= keeps one
// dispatch's; after= (or an SSE client's Last-Event-ID) first sends the
// kept events numbered after it.
func (s *Service) events(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	sse := strings.Contains(r.Header.Get("Accept"), "text/event-stream") || q.Get("format") == "sse"
	last := q.Get("after")
	if last == "" {
		last = r.Header.Get("Last-Event-ID")
	}
	var after uint64
	if last != "" {
		n, err := strconv.ParseUint(last, 10, 64)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, APIError{Error: fmt.Sprintf("after: %q is not an event number", last), Field: "after"})
			return
		}
		after = n
	}
	c, cancel := s.hub.subscribe(q.Get("id"), after)
	defer cancel()
	if sse {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
	} else {
		w.Header().Set("Content-Type", "application/x-ndjson")
	}
	w.WriteHeader(http.StatusOK)
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	flush()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.ctx.Done():
			return
		case <-keep.C:
			if sse {
				io.WriteString(w, ": keep-alive\n\n")
				flush()
			}
		case e, ok := <-c:
			if !ok {
				return // fell behind: the client reconnects
			}
			b, _ := json.Marshal(e)
			if sse {
				fmt.Fprintf(w, "id: %d\nevent: %s\ndata: %s\n\n", e.Seq, e.Type, b)
			} else {
				w.Write(append(b, '\n'))
			}
			flush()
		}
	}
}

func (s *Service) panes(w http.ResponseWriter, r *http.Request) {
	rows, err := s.Panes(r.Context(), r.URL.Query())
	var bf *badField
	if errors.As(err, &bf) && bf.field == "socket_path" {
		writeJSON(w, http.StatusBadRequest, APIError{Error: bf.msg, Field: bf.field})
		return
	}
	if err != nil {
		writeJSON(w, http.StatusBadGateway, APIError{Error: err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"panes": rows})
}

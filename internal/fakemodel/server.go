// Package fakemodel is one scripted stand-in for the model APIs agent CLIs
// talk to, good enough for the real CLIs to run real turns against it on a
// 127.0.0.1 listener: the server (script, request log, problems, delays)
// is written once, and an API value encodes what the "model" says in one
// wire format — OpenAIResponses (Codex), AnthropicMessages (Claude Code),
// Gemini (Gemini CLI).
//
// A test queues Replies with Script; each turn request (the main
// conversation) takes the next one. A CLI's side requests — a task title,
// a topic check, token counting — are answered on the side without using
// up a reply. Replies are API-neutral: text, a call to the agent's shell
// tool, an error; the API turns them into its events.
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/fsm"
)

// Kind says what a request was.
type Kind string

// The kinds of request the server tells apart.
const (
	KindTurn        Kind = "turn"         // the main conversation: takes a scripted reply
	KindSide        Kind = "side"         // a side request (title, topic, routing): answered on the side
	KindCountTokens Kind = "count_tokens" // token counting
	KindOther       Kind = "other"        // anything else (answered 404, logged as a problem)
)

// Request is one request the server saw, with what the tests assert on.
type Request struct {
	At     time.Time // when it arrived
	Method string
	Path   string
	Kind   Kind
	// Model is the model the request asked for.
	Model string
	// Stream: the request asked for server-sent events.
	Stream bool
	// Tools is how many tools the request offers.
	Tools int
	// Reply is the name of the scripted reply that answered it ("" for side
	// requests, unknown paths and an exhausted script).
	Reply string
	// UserText is the text of the last user message (the prompt as the CLI
	// passed it on, possibly wrapped in tags or followed by reminders).
	UserText string
	// UserTexts are the texts of every user message of the conversation,
	// in order (tool results come in user messages too, often without text).
	UserTexts []string
	// ToolResults are the tool results sent back in the last user message
	// (or, for OpenAI Responses, in the whole input), in order.
	ToolResults []string
	// Body is the raw JSON body.
	Body json.RawMessage
}

// Prompt is the user's prompt the conversation is about: the last user text
// that carries a RESPONSE FILE INSTRUCTION heredoc, else the last non-empty
// user text. While a turn runs tools, the last user message holds only tool
// results; the prompt sits further up.
func (r Request) Prompt() string {
	last := ""
	for i := len(r.UserTexts) - 1; i >= 0; i-- {
		t := r.UserTexts[i]
		if _, ok := handoff.ParseInstruction(t); ok {
			return t
		}
		if last == "" && strings.TrimSpace(t) != "" {
			last = t
		}
	}
	return last
}

// API is one model API's wire format.
type API interface {
	// BaseURL is the URL the CLI is pointed at, given the server's root
	// (http://127.0.0.1:PORT).
	BaseURL(root string) string
	// Read tells what r is (req.Kind) and fills in what the tests assert
	// on. An error means an unreadable body.
	Read(r *http.Request, body []byte, req *Request) error
	// Side is the reply side requests get unless Server.SetSide changes it.
	Side() Reply
	// CountTokens is the JSON answer to a token-counting request.
	CountTokens(body []byte) any
	// Events encodes what the model says as the stream's events.
	Events(req Request, parts []Part, newID func(prefix string) string) []Event
	// Assemble turns the events into the one JSON answer of a request that
	// did not ask for a stream, with its HTTP status.
	Assemble(req Request, events []Event) (int, any)
	// ErrorBody is the JSON body of an HTTP error reply.
	ErrorBody(status int, typ, msg string) any
	// CloseAfterStream: the CLI waits for the connection to close, not
	// only for the stream's last event.
	CloseAfterStream() bool
}

// Event is one server-sent event, sent after Pause. Name, when set, goes
// in an "event:" line; Data is the JSON of the "data:" line, Raw (when
// Data is nil) its text as is ("[DONE]"). An event with neither is a pause
// only.
type Event struct {
	Pause time.Duration
	Name  string
	Data  map[string]any
	Raw   string
}

// Server is a running fake model server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL the CLI is configured with (API.BaseURL).
	URL string
	// Root is http://127.0.0.1:PORT.
	Root string

	api    API
	srv    *http.Server
	done   chan struct{}
	cancel context.CancelFunc // ends every request still served

	mu       sync.Mutex
	script   []Reply
	requests []Request
	problems []string
	nextID   int
	cond     chan struct{} // closed and replaced whenever a request is logged
	side     Reply
}

// Start listens on a free 127.0.0.1 port and serves api until Close (or
// ctx ends).
func Start(ctx context.Context, api API) (*Server, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakemodel: listen: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	root := "http://" + ln.Addr().String()
	s := &Server{
		URL:    api.BaseURL(root),
		Root:   root,
		api:    api,
		cancel: cancel,
		done:   make(chan struct{}),
		cond:   make(chan struct{}),
		side:   api.Side(),
	}
	s.srv = &http.Server{
		Handler:           http.HandlerFunc(s.serve),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// Close stops the server and ends any streams still open (also those
// still waiting for their first byte).
func (s *Server) Close() error {
	s.cancel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// Script queues replies; each turn request takes the next.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
}

// Clear drops the scripted replies not yet used (a test that scripted
// more failures than the CLI's retries used up).
func (s *Server) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = nil
}

// SetSide changes the reply every side request gets. Its Delay and Status
// apply too.
func (s *Server) SetSide(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.side = r
}

// Pending is the number of scripted replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.script)
}

// Requests returns a copy of the requests seen so far, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Turns returns the turn requests seen so far, in arrival order.
func (s *Server) Turns() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == KindTurn {
			out = append(out, r)
		}
	}
	return out
}

// Problems lists requests the server could not serve as scripted (an
// exhausted script, a body it could not parse, an unknown path). A test
// should report them: they usually explain a confusing screen.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// WaitTurns blocks until at least n turn requests that took a scripted
// reply have arrived, or ctx ends.
func (s *Server) WaitTurns(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		count := 0
		for _, r := range s.requests {
			if r.Kind == KindTurn && r.Reply != "" {
				count++
			}
		}
		ch := s.cond
		s.mu.Unlock()
		if count >= n {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("fakemodel: waiting for %d turn requests (saw %d): %w", n, count, ctx.Err())
		case <-ch:
		}
	}
}

func (s *Server) log(r Request, problem string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
	if problem != "" {
		s.problems = append(s.problems, problem)
	}
	close(s.cond)
	s.cond = make(chan struct{})
}

func (s *Server) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	return fmt.Sprintf("%s_fake%04d", prefix, s.nextID)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Kind: KindOther, Body: body}
	if err := s.api.Read(r, body, &req); err != nil {
		s.log(req, fmt.Sprintf("unparsable body of %s %s: %v", r.Method, r.URL.Path, err))
		writeJSON(w, http.StatusBadRequest, s.api.ErrorBody(http.StatusBadRequest, "invalid_request_error", "fakemodel: bad JSON"))
		return
	}
	var reply Reply
	switch req.Kind {
	case KindCountTokens:
		s.log(req, "")
		writeJSON(w, http.StatusOK, s.api.CountTokens(body))
		return
	case KindSide:
		s.mu.Lock()
		reply = s.side
		s.mu.Unlock()
		s.log(req, "")
	case KindTurn:
		s.mu.Lock()
		ok := len(s.script) > 0
		if ok {
			reply = s.script[0]
			s.script = s.script[1:]
		}
		s.mu.Unlock()
		if !ok {
			s.log(req, "turn request with an exhausted script")
			reply = HTTPError(http.StatusBadRequest, "invalid_request_error", "fakemodel: no scripted reply left for this request")
			break
		}
		req.Reply = reply.Name
		s.log(req, "")
	default:
		s.log(req, fmt.Sprintf("unexpected request %s %s", r.Method, r.URL.Path))
		writeJSON(w, http.StatusNotFound, s.api.ErrorBody(http.StatusNotFound, "not_found_error", "fakemodel: "+r.URL.Path+" is not served"))
		return
	}
	s.respond(r.Context(), w, reply, req)
}

// respond writes reply as the HTTP response: an error status, one JSON
// answer (a request without stream) or server-sent events.
func (s *Server) respond(ctx context.Context, w http.ResponseWriter, reply Reply, req Request) {
	if fsm.Sleep(ctx, reply.Delay) != nil {
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.RetryAfter > 0 {
			w.Header().Set("retry-after", strconv.Itoa(int(reply.RetryAfter/time.Second)))
		}
		writeJSON(w, reply.Status, s.api.ErrorBody(reply.Status, reply.ErrorType, reply.ErrorMessage))
		return
	}
	events := s.api.Events(req, reply.parts(req), s.newID)
	if !req.Stream {
		status, body := s.api.Assemble(req, events)
		writeJSON(w, status, body)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("request-id", "req_fake")
	if s.api.CloseAfterStream() {
		h.Set("Connection", "close")
	}
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for _, ev := range events {
		if fsm.Sleep(ctx, ev.Pause) != nil {
			return
		}
		data := ev.Raw
		if ev.Data != nil {
			b, err := json.Marshal(ev.Data)
			if err != nil {
				return // events are built from maps of plain values: cannot happen
			}
			data = string(b)
		}
		if data == "" {
			continue // a pause only
		}
		frame := "data: " + data + "\n\n"
		if ev.Name != "" {
			frame = "event: " + ev.Name + "\n" + frame
		}
		if _, err := io.WriteString(w, frame); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_fake")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// addUser takes text as the conversation's next user message.
func (r *Request) addUser(text string) {
	r.UserText = text
	r.UserTexts = append(r.UserTexts, text)
}

// sideOrTurn sets Kind for an API that tells a turn by its form: a
// streamed request that offers tools is a turn, anything else a side
// request (a title, a summary).
func (r *Request) sideOrTurn() {
	r.Kind = KindSide
	if r.Stream && r.Tools > 0 {
		r.Kind = KindTurn
	}
}

// decodePost decodes body into v when r is a POST to a path that ends in
// suffix; it reports false, and leaves the request KindOther, for any
// other request.
func decodePost(r *http.Request, body []byte, suffix string, v any) (bool, error) {
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, suffix) {
		return false, nil
	}
	return true, json.Unmarshal(body, v)
}

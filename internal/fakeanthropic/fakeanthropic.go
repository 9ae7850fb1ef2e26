// Package fakeanthropic is a scripted stand-in for the Anthropic Messages
// API, good enough for the real Claude Code CLI to run real turns against it:
// it answers POST /v1/messages (stream:true) with server-sent events on a
// real 127.0.0.1 listener, so a Claude Code process in tmux can reach it with
// ANTHROPIC_BASE_URL=<Server.URL>.
//
// A test queues Replies with Script; each turn request Claude Code makes
// (one that offers tools, i.e. the main conversation) takes the next one.
// Claude Code's side requests — a title or topic check with a small model,
// token counting, quota probes — are answered on the side without using up
// a reply (see Side). Every request is logged for assertions and debugging.
package fakeanthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Kind says what a request was.
type Kind string

// The kinds of request the server tells apart.
const (
	KindTurn        Kind = "turn"         // the main conversation: takes a scripted reply
	KindSide        Kind = "side"         // a side request (title, topic, quota): answered on the side
	KindCountTokens Kind = "count_tokens" // POST /v1/messages/count_tokens
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
	// UserText is the text of the last user message's text blocks (the
	// prompt as Claude Code passed it on, possibly wrapped in tags and
	// followed by system reminders).
	UserText string
	// UserTexts are the texts of every user message of the conversation,
	// in order (tool results come in user messages too, often without text).
	UserTexts []string
	// ToolResults are the tool_result contents sent back in the last user
	// message, in order.
	ToolResults []string
	// Body is the raw JSON body.
	Body json.RawMessage
}

// Server is a running fake model server. Its methods are safe for concurrent
// use.
type Server struct {
	// URL is the base URL for ANTHROPIC_BASE_URL (no /v1: Claude Code adds it).
	URL string

	srv    *http.Server
	ln     net.Listener
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

// Start listens on a free 127.0.0.1 port and serves until Close (or ctx ends).
func Start(ctx context.Context) (*Server, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakeanthropic: listen: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	s := &Server{
		cancel: cancel,
		URL:    "http://" + ln.Addr().String(),
		ln:     ln,
		done:   make(chan struct{}),
		cond:   make(chan struct{}),
		side:   Answer(SideAnswer),
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

// SideAnswer is what side requests get by default: a short title-like text
// that also parses as the JSON object some of them ask for.
const SideAnswer = `{"title":"Fake task title","isNewTopic":false}`

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
// more failures than Claude Code's retries used up).
func (s *Server) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = nil
}

// SetSide changes the reply every side request gets (Answer(SideAnswer) by
// default). Its Delay and Status apply too.
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

// WaitTurns blocks until at least n turn requests that took a scripted reply
// have arrived, or ctx ends.
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
			return fmt.Errorf("fakeanthropic: waiting for %d turn requests (saw %d): %w", n, count, ctx.Err())
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

// messagesBody is the part of a Messages API request the server reads.
type messagesBody struct {
	Model    string            `json:"model"`
	Stream   bool              `json:"stream"`
	Messages []message         `json:"messages"`
	Tools    []json.RawMessage `json:"tools"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"` // a string or a list of blocks
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"` // tool_result: a string or blocks
}

// blocks returns a message's content as blocks (a plain string is one text
// block).
func (m message) blocks() []block {
	var s string
	if json.Unmarshal(m.Content, &s) == nil {
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(m.Content, &bs)
	return bs
}

func textOf(bs []block) string {
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Kind: KindOther, Body: body}
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		req.Kind = KindCountTokens
		s.log(req, "")
		// A rough count: Claude Code only shows it, and only sometimes asks.
		writeJSON(w, http.StatusOK, map[string]any{"input_tokens": 1 + len(body)/4})
		return
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	default:
		s.log(req, fmt.Sprintf("unexpected request %s %s", r.Method, r.URL.Path))
		writeJSON(w, http.StatusNotFound, errorBody("not_found_error", "fakeanthropic: only POST /v1/messages is served"))
		return
	}
	var mb messagesBody
	if err := json.Unmarshal(body, &mb); err != nil {
		s.log(req, fmt.Sprintf("unparsable body: %v", err))
		writeJSON(w, http.StatusBadRequest, errorBody("invalid_request_error", "fakeanthropic: bad JSON"))
		return
	}
	req.Model, req.Stream, req.Tools = mb.Model, mb.Stream, len(mb.Tools)
	fillUser(&req, mb.Messages)
	// The main conversation offers tools (Bash, Read, …); Claude Code's side
	// requests (title, topic, quota) offer none.
	if len(mb.Tools) == 0 {
		req.Kind = KindSide
		s.mu.Lock()
		side := s.side
		s.mu.Unlock()
		s.log(req, "")
		s.respond(r.Context(), w, side, req, mb.Stream)
		return
	}
	req.Kind = KindTurn
	s.mu.Lock()
	var reply Reply
	ok := len(s.script) > 0
	if ok {
		reply = s.script[0]
		s.script = s.script[1:]
	}
	s.mu.Unlock()
	if !ok {
		s.log(req, "turn request with an exhausted script")
		s.respond(r.Context(), w, HTTPError(http.StatusBadRequest, "invalid_request_error", "fakeanthropic: no scripted reply left for this request"), req, mb.Stream)
		return
	}
	req.Reply = reply.Name
	s.log(req, "")
	s.respond(r.Context(), w, reply, req, mb.Stream)
}

// fillUser sets the request's user texts and tool results from messages.
func fillUser(req *Request, msgs []message) {
	for _, m := range msgs {
		if m.Role != "user" {
			continue
		}
		bs := m.blocks()
		req.UserText = textOf(bs)
		req.UserTexts = append(req.UserTexts, req.UserText)
		req.ToolResults = nil
		for _, b := range bs {
			if b.Type != "tool_result" {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) == nil {
				req.ToolResults = append(req.ToolResults, s)
				continue
			}
			var inner []block
			_ = json.Unmarshal(b.Content, &inner)
			req.ToolResults = append(req.ToolResults, textOf(inner))
		}
	}
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

// statusOf is the HTTP status the real API sends with an error type.
func statusOf(typ string) int {
	switch typ {
	case "overloaded_error":
		return 529
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	}
	return http.StatusInternalServerError
}

func errorBody(typ, msg string) map[string]any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("request-id", "req_fake")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// respond writes reply as the HTTP response: an error status, one JSON
// message (stream:false) or SSE events.
func (s *Server) respond(ctx context.Context, w http.ResponseWriter, reply Reply, req Request, stream bool) {
	if !sleep(ctx, reply.Delay) {
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.RetryAfter > 0 {
			w.Header().Set("retry-after", strconv.Itoa(int(reply.RetryAfter/time.Second)))
		}
		writeJSON(w, reply.Status, errorBody(reply.ErrorType, reply.ErrorMessage))
		return
	}
	msgID := s.newID("msg")
	steps := reply.build(req, msgID, s.newID)
	if !stream {
		// Claude Code retries a failed stream without streaming: an error
		// event becomes the HTTP error the real API would send.
		if last := steps[len(steps)-1].event; last != nil && last["type"] == "error" {
			e := last["error"].(map[string]any)
			typ, _ := e["type"].(string)
			writeJSON(w, statusOf(typ), last)
			return
		}
		writeJSON(w, http.StatusOK, assemble(steps, msgID, req.Model))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("request-id", "req_fake")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	if flusher != nil {
		flusher.Flush()
	}
	for _, st := range steps {
		if !sleep(ctx, st.pause) {
			return
		}
		if st.event == nil {
			continue // a pause only
		}
		ev := st.event
		if ev["type"] == "message_start" {
			m := ev["message"].(map[string]any)
			m["model"] = req.Model
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return // events are built from maps of plain values: cannot happen
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev["type"], b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
}

// assemble turns the events of a reply into the one JSON message a
// non-streaming request gets.
func assemble(steps []step, msgID, model string) map[string]any {
	var content []map[string]any
	partial := map[int]string{}
	stop := "end_turn"
	for _, st := range steps {
		ev := st.event
		switch ev["type"] {
		case "content_block_start":
			cb := cloneMap(ev["content_block"].(map[string]any))
			content = append(content, cb)
		case "content_block_delta":
			i := ev["index"].(int)
			d := ev["delta"].(map[string]any)
			if i >= len(content) {
				continue
			}
			switch d["type"] {
			case "text_delta":
				content[i]["text"] = content[i]["text"].(string) + d["text"].(string)
			case "input_json_delta":
				partial[i] += d["partial_json"].(string)
			}
		case "message_delta":
			if d, ok := ev["delta"].(map[string]any); ok {
				if r, ok := d["stop_reason"].(string); ok {
					stop = r
				}
			}
		}
	}
	for i, js := range partial {
		var in map[string]any
		if json.Unmarshal([]byte(js), &in) == nil {
			content[i]["input"] = in
		}
	}
	if content == nil {
		content = []map[string]any{}
	}
	return map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
	}
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// ResponseCommand builds the heredoc command the RESPONSE FILE INSTRUCTION
// in prompt asks for (its last one), with answer as the response: the
// instruction's receipt as the delimiter and the first line, as a model
// that follows it writes. It fails when the prompt carries no instruction.
func ResponseCommand(prompt, answer string) (string, error) {
	t, ok := handoff.ParseInstruction(prompt)
	if !ok {
		return "", errors.New("fakeanthropic: the prompt has no RESPONSE FILE INSTRUCTION heredoc")
	}
	return strings.TrimSuffix(t.Command(answer), "\n"), nil
}

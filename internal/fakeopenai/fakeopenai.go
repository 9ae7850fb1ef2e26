// Package fakeopenai is a scripted stand-in for the OpenAI Responses API, good
// enough for the real Codex CLI to run real turns against it: it answers
// POST /v1/responses (stream:true) with server-sent events on a real
// 127.0.0.1 listener, so a Codex process in tmux can reach it.
//
// A test queues Replies with Script; each model request Codex makes takes the
// next one. The small "title" request Codex sends next to each turn (no
// tools) is answered on the side without using up a reply. Every request is
// logged for assertions and debugging.
package fakeopenai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Request is one request the server saw, with what the tests assert on.
type Request struct {
	At     time.Time // when it arrived
	Method string
	Path   string
	// Title is true for Codex's side request asking for a task title; it
	// does not consume a scripted reply.
	Title bool
	// Reply is the name of the scripted reply that answered it ("" for
	// titles, unknown paths and an exhausted script).
	Reply string
	// UserText is the text of the last user message in the request's input.
	UserText string
	// UserTexts are the texts of all the user messages in the request's
	// input, in order.
	UserTexts []string
	// ToolOutputs are the outputs of function calls sent back in the input
	// (function_call_output items), in order.
	ToolOutputs []string
	// Body is the raw JSON body.
	Body json.RawMessage
}

// Server is a running fake model server. Its methods are safe for concurrent
// use.
type Server struct {
	// URL is the base URL for Codex's provider config, ending in /v1.
	URL string

	srv  *http.Server
	ln   net.Listener
	done chan struct{}

	mu       sync.Mutex
	script   []Reply
	requests []Request
	problems []string
	nextID   int
	cond     chan struct{} // closed and replaced whenever a request is logged
}

// Start listens on a free 127.0.0.1 port and serves until Close (or ctx ends).
func Start(ctx context.Context) (*Server, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakeopenai: listen: %w", err)
	}
	s := &Server{
		URL:  "http://" + ln.Addr().String() + "/v1",
		ln:   ln,
		done: make(chan struct{}),
		cond: make(chan struct{}),
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

// Close stops the server and ends any streams still open.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		err = s.srv.Close()
	}
	<-s.done
	return err
}

// Script queues replies; each model request (titles aside) takes the next.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, replies...)
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

// Problems lists requests the server could not serve as scripted (an
// exhausted script, a body it could not parse, an unknown path). A test
// should report them: they usually explain a confusing screen.
func (s *Server) Problems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.problems...)
}

// WaitRequests blocks until at least n model requests (titles excluded) have
// arrived, or ctx ends.
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		count := 0
		for _, r := range s.requests {
			if !r.Title && r.Reply != "" {
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
			return fmt.Errorf("fakeopenai: waiting for %d model requests (saw %d): %w", n, count, ctx.Err())
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
	return fmt.Sprintf("%s_%d", prefix, s.nextID)
}

// responsesBody is the part of a Responses API request the server reads.
type responsesBody struct {
	Stream bool        `json:"stream"`
	Input  []inputItem `json:"input"`
	Text   struct {
		Format struct {
			Type   string `json:"type"`
			Schema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schema"`
		} `json:"format"`
	} `json:"text"`
	ClientMetadata map[string]string `json:"client_metadata"`
}

// isTitleRequest reports Codex's side request for a task title: it asks for
// a JSON object with a "title" property, and its turn metadata says
// thread_source "thread_title" (0.169).
func (b responsesBody) isTitleRequest() bool {
	if b.Text.Format.Type == "json_schema" {
		if _, ok := b.Text.Format.Schema.Properties["title"]; ok {
			return true
		}
	}
	return strings.Contains(b.ClientMetadata["x-codex-turn-metadata"], `"thread_source":"thread_title"`)
}

type inputItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	req := Request{At: time.Now(), Method: r.Method, Path: r.URL.Path, Body: body}
	if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/responses") {
		s.log(req, fmt.Sprintf("unexpected request %s %s", r.Method, r.URL.Path))
		http.Error(w, `{"error":{"message":"fakeopenai: only POST /v1/responses is served"}}`, http.StatusNotFound)
		return
	}
	var rb responsesBody
	if err := json.Unmarshal(body, &rb); err != nil {
		s.log(req, fmt.Sprintf("unparsable body: %v", err))
		http.Error(w, `{"error":{"message":"fakeopenai: bad JSON"}}`, http.StatusBadRequest)
		return
	}
	req.UserTexts = userTexts(rb.Input)
	if n := len(req.UserTexts); n > 0 {
		req.UserText = req.UserTexts[n-1]
	}
	req.ToolOutputs = toolOutputs(rb.Input)
	// Codex asks for a short task title on the side: answer it without
	// touching the script, in the JSON shape it asked for.
	if rb.isTitleRequest() {
		req.Title = true
		s.log(req, "")
		s.stream(r.Context(), w, Answer(`{"title":"Fake task title"}`), req)
		return
	}
	s.mu.Lock()
	var reply Reply
	ok := len(s.script) > 0
	if ok {
		reply = s.script[0]
		s.script = s.script[1:]
	}
	s.mu.Unlock()
	if !ok {
		s.log(req, "model request with an exhausted script")
		s.stream(r.Context(), w, Failed("fakeopenai: no scripted reply left for this request"), req)
		return
	}
	req.Reply = reply.Name
	s.log(req, "")
	s.stream(r.Context(), w, reply, req)
}

// stream writes reply as the HTTP response: an error status, or SSE events.
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, reply Reply, req Request) {
	if !sleep(ctx, reply.Delay) {
		return
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(reply.Status)
		_, _ = io.WriteString(w, reply.ErrorBody)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	respID := s.newID("resp")
	for _, step := range reply.build(req, respID, s.newID) {
		if !sleep(ctx, step.pause) {
			return
		}
		b, err := json.Marshal(step.event)
		if err != nil {
			return // events are built from maps of strings: cannot happen
		}
		if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", step.event["type"], b); err != nil {
			return
		}
		if flusher != nil {
			flusher.Flush()
		}
	}
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

func userTexts(items []inputItem) []string {
	var out []string
	for _, it := range items {
		if it.Type != "message" || it.Role != "user" {
			continue
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(it.Content, &parts); err != nil {
			var s string
			if json.Unmarshal(it.Content, &s) == nil {
				out = append(out, s)
			}
			continue
		}
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		out = append(out, b.String())
	}
	return out
}

func toolOutputs(items []inputItem) []string {
	var out []string
	for _, it := range items {
		if it.Type != "function_call_output" {
			continue
		}
		var s string
		if json.Unmarshal(it.Output, &s) == nil {
			out = append(out, s)
			continue
		}
		out = append(out, string(it.Output))
	}
	return out
}

// ResponseCommand builds the heredoc command the RESPONSE FILE INSTRUCTION
// in prompt asks for (its last one), with answer as the response: the
// instruction's receipt as the delimiter and the first line, as a model
// that follows it writes. It fails when the prompt carries no instruction.
func ResponseCommand(prompt, answer string) (string, error) {
	t, ok := handoff.ParseInstruction(prompt)
	if !ok {
		return "", errors.New("fakeopenai: the prompt has no RESPONSE FILE INSTRUCTION heredoc")
	}
	return strings.TrimSuffix(t.Command(answer), "\n"), nil
}

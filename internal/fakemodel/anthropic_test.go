package fakemodel

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// event is one parsed server-sent event.
type event struct {
	Name string
	Data map[string]any
}

// startAPI starts a server for api, closed when the test ends.
func startAPI(t *testing.T, api API) *Server {
	t.Helper()
	s, err := Start(context.Background(), api)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func start(t *testing.T) *Server { return startAPI(t, AnthropicMessages{}) }

// turn is a Messages API request shaped like Claude Code 2.1.330's main
// conversation: tools offered, the prompt after a system reminder, a
// system message after the user's.
func turn(user string, extra ...map[string]any) map[string]any {
	msgs := []any{
		map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "text", "text": "<system-reminder>\nAttribution …\n</system-reminder>\n"},
			map[string]any{"type": "text", "text": user},
		}},
		map[string]any{"role": "system", "content": []any{map[string]any{"type": "text", "text": "# Environment"}}},
	}
	for _, e := range extra {
		msgs = append(msgs, e)
	}
	return map[string]any{
		"model": "claude-opus-5-5", "stream": true, "max_tokens": 128000, "messages": msgs,
		"tools": []any{map[string]any{"name": "Bash"}, map[string]any{"name": "Read"}},
	}
}

// post sends body to path and returns the status, the parsed events (for a
// stream) and the raw body.
func post(t *testing.T, s *Server, path string, body map[string]any) (int, []event, string) {
	t.Helper()
	return postTo(t, s.URL+path, body)
}

// postTo posts body as JSON to url and returns the status, the parsed
// events (for a stream: "event:" names, JSON "data:" lines) and the raw
// body.
func postTo(t *testing.T, url string, body map[string]any) (int, []event, string) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var (
		evs  []event
		raw  strings.Builder
		name string
	)
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		raw.WriteString(line + "\n")
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			continue
		}
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case line == "data: [DONE]": // Chat Completions' end; kept in raw
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if typ, ok := d["type"]; ok && name != "" && typ != name {
				t.Fatalf("event %q carries type %v", name, typ)
			}
			evs = append(evs, event{Name: name, Data: d})
			name = ""
		}
	}
	return resp.StatusCode, evs, raw.String()
}

func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

// text joins the text deltas; input joins the input_json_delta pieces.
func text(evs []event) (txt, input string) {
	for _, e := range evs {
		if e.Name != "content_block_delta" {
			continue
		}
		d := e.Data["delta"].(map[string]any)
		switch d["type"] {
		case "text_delta":
			txt += d["text"].(string)
		case "input_json_delta":
			input += d["partial_json"].(string)
		}
	}
	return txt, input
}

func TestAnswerStreamsAMessage(t *testing.T) {
	s := start(t)
	s.Script(Answer("Hello."))
	code, evs, _ := post(t, s, "/v1/messages", turn("Say hello"))
	want := []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop", "message_delta", "message_stop"}
	if code != 200 || !slices.Equal(names(evs), want) {
		t.Fatalf("status %d, events %v; want 200 and %v", code, names(evs), want)
	}
	if txt, _ := text(evs); txt != "Hello." {
		t.Fatalf("text %q", txt)
	}
	m := evs[0].Data["message"].(map[string]any)
	if m["model"] != "claude-opus-5-5" || m["role"] != "assistant" {
		t.Fatalf("message_start %v", m)
	}
	if stop := evs[4].Data["delta"].(map[string]any)["stop_reason"]; stop != "end_turn" {
		t.Fatalf("stop_reason %v", stop)
	}
	reqs := s.Requests()
	if len(reqs) != 1 || reqs[0].Kind != KindTurn || reqs[0].Reply != "answer" || reqs[0].Model != "claude-opus-5-5" || reqs[0].Tools != 2 {
		t.Fatalf("requests %+v", reqs)
	}
	if !strings.HasSuffix(reqs[0].UserText, "\nSay hello") || reqs[0].Prompt() != reqs[0].UserText {
		t.Fatalf("user text %q, prompt %q", reqs[0].UserText, reqs[0].Prompt())
	}
	if s.Pending() != 0 || len(s.Problems()) != 0 {
		t.Fatalf("pending %d, problems %v", s.Pending(), s.Problems())
	}
}

func TestStreamedSpreadsDeltasOverTime(t *testing.T) {
	s := start(t)
	s.Script(Streamed("abcdefghij", 5, 250*time.Millisecond))
	begin := time.Now()
	_, evs, _ := post(t, s, "/v1/messages", turn("Stream"))
	if took := time.Since(begin); took < 200*time.Millisecond {
		t.Fatalf("streamed in %v, want about 250ms", took)
	}
	if txt, _ := text(evs); txt != "abcdefghij" {
		t.Fatalf("text %q", txt)
	}
	n := 0
	for _, e := range evs {
		if e.Name == "content_block_delta" {
			n++
		}
	}
	if n != 5 {
		t.Fatalf("%d deltas, want 5", n)
	}
}

func TestAfterDelaysTheFirstByte(t *testing.T) {
	s := start(t)
	s.Script(Answer("late").After(300 * time.Millisecond))
	begin := time.Now()
	code, _, _ := post(t, s, "/v1/messages", turn("x"))
	if took := time.Since(begin); code != 200 || took < 300*time.Millisecond {
		t.Fatalf("status %d after %v, want 200 after ≥300ms", code, took)
	}
	if r := s.Turns()[0].Reply; r != "answer+slow" {
		t.Fatalf("reply name %q", r)
	}
}

// The heredoc the fake model sends through Bash, run by a real shell,
// writes the answer byte for byte to the path of the instruction.
func TestWriteResponseRunsTheInstructionsHeredoc(t *testing.T) {
	s := start(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "it's a $dir", "analyst_summary.md")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const answer = "Line 1.\nIt's 100% \"real\": $HOME and \\n stay.\nLast."
	s.Script(WriteResponse(answer), Answer("Written."))
	prompt := handoff.WithInstruction("Analyse it.", path, "TESTRECEIPTAAAAAAAAA")
	_, evs, _ := post(t, s, "/v1/messages", turn(prompt))
	var start map[string]any
	for _, e := range evs {
		if e.Name == "content_block_start" {
			start = e.Data["content_block"].(map[string]any)
		}
	}
	if start["type"] != "tool_use" || start["name"] != "Bash" || !strings.HasPrefix(start["id"].(string), "toolu_") {
		t.Fatalf("content block %v, want a Bash tool_use", start)
	}
	if stop := evs[len(evs)-2].Data["delta"].(map[string]any)["stop_reason"]; stop != "tool_use" {
		t.Fatalf("stop_reason %v, want tool_use", stop)
	}
	_, input := text(evs)
	var in struct{ Command, Description string }
	if err := json.Unmarshal([]byte(input), &in); err != nil {
		t.Fatalf("input %q: %v", input, err)
	}
	if out, err := exec.Command("bash", "-c", in.Command).CombinedOutput(); err != nil {
		t.Fatalf("bash: %v: %s", err, out)
	}
	got, err := os.ReadFile(path)
	if want := "<!-- handoff:TESTRECEIPTAAAAAAAAA -->\n" + answer + "\n"; err != nil || string(got) != want {
		t.Fatalf("file %q (%v), want %q", got, err, want)
	}

	// The tool result comes back in a user message of tool_result blocks;
	// the next reply answers it.
	id := start["id"].(string)
	_, evs, _ = post(t, s, "/v1/messages", turn(prompt,
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": in}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": id,
			"content": "(Bash completed with no output)"}}}))
	if txt, _ := text(evs); txt != "Written." {
		t.Fatalf("second reply %q", txt)
	}
	second := s.Turns()[1]
	if !slices.Equal(second.ToolResults, []string{"(Bash completed with no output)"}) || second.UserText != "" {
		t.Fatalf("tool results %q, user text %q", second.ToolResults, second.UserText)
	}
	if !strings.Contains(second.Prompt(), handoff.InstructionHeader) {
		t.Fatalf("the prompt is lost behind the tool result: %q", second.Prompt())
	}
}

func TestWriteResponseWithoutInstructionIsAnErrorEvent(t *testing.T) {
	s := start(t)
	s.Script(WriteResponse("x"))
	_, evs, _ := post(t, s, "/v1/messages", turn("no instruction here"))
	if got := names(evs); !slices.Equal(got, []string{"message_start", "error"}) {
		t.Fatalf("events %v", got)
	}
}

func TestToolUseCarriesTextAndInput(t *testing.T) {
	s := start(t)
	q := map[string]any{"questions": []any{map[string]any{"question": "Which?", "header": "Pick", "options": []any{}}}}
	s.Script(ToolUse("AskUserQuestion", q, "Let me ask."))
	_, evs, _ := post(t, s, "/v1/messages", turn("ask"))
	txt, input := text(evs)
	if txt != "Let me ask." || !strings.Contains(input, `"question":"Which?"`) {
		t.Fatalf("text %q, input %q", txt, input)
	}
	var indexes []float64
	for _, e := range evs {
		if e.Name == "content_block_start" {
			indexes = append(indexes, e.Data["index"].(float64))
		}
	}
	if !slices.Equal(indexes, []float64{0, 1}) {
		t.Fatalf("block indexes %v", indexes)
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, tc := range []struct {
		reply      Reply
		status     int
		typ        string
		retryAfter string
	}{
		{ServerError(), 500, "api_error", ""},
		{Overloaded(), 529, "overloaded_error", ""},
		{RateLimited(3 * time.Second), 429, "rate_limit_error", "3"},
	} {
		t.Run(tc.reply.Name, func(t *testing.T) {
			s := start(t)
			s.Script(tc.reply)
			b, _ := json.Marshal(turn("x"))
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != tc.status || body.Type != "error" || body.Error.Type != tc.typ || body.Error.Message == "" {
				t.Fatalf("status %d, body %+v", resp.StatusCode, body)
			}
			if got := resp.Header.Get("retry-after"); got != tc.retryAfter {
				t.Fatalf("retry-after %q, want %q", got, tc.retryAfter)
			}
		})
	}
}

func TestTimesRepeatsAReply(t *testing.T) {
	s := start(t)
	s.Script(Times(3, ServerError())...)
	if s.Pending() != 3 {
		t.Fatalf("pending %d", s.Pending())
	}
	s.Clear()
	if s.Pending() != 0 {
		t.Fatalf("pending %d after Clear", s.Pending())
	}
}

// Claude Code retries a failed stream without streaming; the error event
// then becomes the HTTP error.
func TestStreamErrorStreamedAndNot(t *testing.T) {
	s := start(t)
	s.Script(StreamError("overloaded_error", "Overloaded", "partial"), StreamError("overloaded_error", "Overloaded", ""))
	_, evs, _ := post(t, s, "/v1/messages", turn("x"))
	want := []string{"message_start", "content_block_start", "content_block_delta", "error"}
	if !slices.Equal(names(evs), want) {
		t.Fatalf("events %v, want %v", names(evs), want)
	}
	body := turn("x")
	body["stream"] = false
	code, _, raw := post(t, s, "/v1/messages", body)
	if code != 529 || !strings.Contains(raw, "overloaded_error") {
		t.Fatalf("non-streaming: %d %s", code, raw)
	}
}

func TestNonStreamingAssemblesTheMessage(t *testing.T) {
	s := start(t)
	s.Script(ToolUse("Bash", map[string]any{"command": "ls"}, "Listing."))
	body := turn("x")
	body["stream"] = false
	code, _, raw := post(t, s, "/v1/messages", body)
	var m struct {
		StopReason string `json:"stop_reason"`
		Content    []map[string]any
	}
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		t.Fatal(err)
	}
	if code != 200 || m.StopReason != "tool_use" || len(m.Content) != 2 || m.Content[0]["text"] != "Listing." {
		t.Fatalf("%d %s", code, raw)
	}
	if in, _ := m.Content[1]["input"].(map[string]any); in["command"] != "ls" {
		t.Fatalf("tool input %v", m.Content[1])
	}
}

// Requests without tools (Claude Code's title, topic or quota checks) are
// answered on the side and leave the script alone; so are token counts.
func TestSideRequestsDoNotUseTheScript(t *testing.T) {
	s := start(t)
	s.Script(Answer("main"))
	side := map[string]any{"model": "claude-haiku", "max_tokens": 512, "stream": false,
		"messages": []any{map[string]any{"role": "user", "content": "Give a title"}}}
	code, _, raw := post(t, s, "/v1/messages", side)
	if code != 200 || !strings.Contains(raw, "Fake task title") {
		t.Fatalf("side: %d %s", code, raw)
	}
	side["stream"] = true
	_, evs, _ := post(t, s, "/v1/messages", side)
	if txt, _ := text(evs); txt != SideAnswer {
		t.Fatalf("streamed side answer %q", txt)
	}
	code, _, raw = post(t, s, "/v1/messages/count_tokens", turn("count me"))
	if code != 200 || !strings.Contains(raw, `"input_tokens"`) {
		t.Fatalf("count_tokens: %d %s", code, raw)
	}
	if s.Pending() != 1 {
		t.Fatal("a side request used up the scripted reply")
	}
	var kinds []Kind
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if !slices.Equal(kinds, []Kind{KindSide, KindSide, KindCountTokens}) {
		t.Fatalf("kinds %v", kinds)
	}
	s.SetSide(Overloaded())
	if code, _, _ := post(t, s, "/v1/messages", side); code != 529 {
		t.Fatalf("SetSide: status %d", code)
	}
}

func TestProblemsAreReported(t *testing.T) {
	s := start(t)
	code, _, raw := post(t, s, "/v1/messages", turn("nothing scripted"))
	if code != 400 || !strings.Contains(raw, "no scripted reply") {
		t.Fatalf("exhausted script: %d %s", code, raw)
	}
	resp, err := http.Get(s.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
	resp, err = http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader("{"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if p := s.Problems(); len(p) != 3 {
		t.Fatalf("problems %q, want 3", p)
	}
}

func TestWaitTurns(t *testing.T) {
	s := start(t)
	s.Script(Answer("a"))
	go func() {
		b, _ := json.Marshal(turn("x"))
		if resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(string(b))); err == nil {
			resp.Body.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.WaitTurns(ctx, 1); err != nil {
		t.Fatal(err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	if err := s.WaitTurns(short, 2); err == nil {
		t.Fatal("WaitTurns(2) returned without a second turn")
	}
}

// Close ends a stream that is still sleeping before its first byte.
func TestCloseEndsSlowStreams(t *testing.T) {
	s, err := Start(context.Background(), AnthropicMessages{})
	if err != nil {
		t.Fatal(err)
	}
	s.Script(Answer("never").After(time.Minute))
	go func() {
		b, _ := json.Marshal(turn("x"))
		resp, err := http.Post(s.URL+"/v1/messages", "application/json", strings.NewReader(string(b)))
		if err == nil {
			resp.Body.Close()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.WaitTurns(ctx, 1); err != nil {
		t.Fatal(err)
	}
	begin := time.Now()
	_ = s.Close()
	if took := time.Since(begin); took > 3*time.Second {
		t.Fatalf("Close took %v", took)
	}
}

package fakeopenai

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
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

func start(t *testing.T) *Server {
	t.Helper()
	s, err := Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// post sends a Responses API request shaped like Codex 0.169's and returns
// the status and the parsed events.
func post(t *testing.T, s *Server, body map[string]any) (int, []event) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(s.URL+"/responses", "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var evs []event
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var name string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			var d map[string]any
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &d); err != nil {
				t.Fatalf("bad data line %q: %v", line, err)
			}
			if d["type"] != name {
				t.Fatalf("event %q carries type %v", name, d["type"])
			}
			evs = append(evs, event{Name: name, Data: d})
		}
	}
	return resp.StatusCode, evs
}

func turn(user string, extra ...map[string]any) map[string]any {
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "instructions"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": user}}},
	}
	for _, e := range extra {
		input = append(input, e)
	}
	return map[string]any{"model": "gpt-5.5", "stream": true, "input": input}
}

func names(evs []event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Name)
	}
	return out
}

func TestAnswerStreamsAMessageThenCompletes(t *testing.T) {
	s := start(t)
	s.Script(Answer("Hello."))
	code, evs := post(t, s, turn("hi"))
	if code != 200 {
		t.Fatalf("status %d", code)
	}
	want := []string{"response.created", "response.output_item.added", "response.output_text.delta", "response.output_item.done", "response.completed"}
	if strings.Join(names(evs), ",") != strings.Join(want, ",") {
		t.Fatalf("events %v, want %v", names(evs), want)
	}
	item := evs[3].Data["item"].(map[string]any)
	text := item["content"].([]any)[0].(map[string]any)["text"]
	if item["type"] != "message" || text != "Hello." {
		t.Fatalf("done item %v", item)
	}
	if s.Pending() != 0 {
		t.Fatalf("reply not consumed")
	}
}

func TestTitleRequestDoesNotConsumeAReply(t *testing.T) {
	s := start(t)
	s.Script(Answer("the real answer"))
	title := turn("Generate a concise, single-line task title …")
	title["text"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{
		"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}}
	_, evs := post(t, s, title)
	done := evs[len(evs)-2].Data["item"].(map[string]any)
	text := done["content"].([]any)[0].(map[string]any)["text"].(string)
	var got struct{ Title string }
	if err := json.Unmarshal([]byte(text), &got); err != nil || got.Title == "" {
		t.Fatalf("title reply %q is not the JSON Codex asked for: %v", text, err)
	}
	if s.Pending() != 1 {
		t.Fatalf("title request used up a scripted reply")
	}
	reqs := s.Requests()
	if len(reqs) != 1 || !reqs[0].Title {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestWriteResponseRunsTheInstructionsHeredoc(t *testing.T) {
	s := start(t)
	path := "/tmp/it's here/.tmp/agent-responses/analyst_summary.md"
	prompt := handoff.WithInstruction("Analyse.", path, "TESTRECEIPTAAAAAAAAA")
	s.Script(WriteResponse("line 1\nit's $HOME", "/tmp/w"), Answer("Written."))
	_, evs := post(t, s, turn(prompt))
	if got := names(evs); strings.Join(got, ",") != "response.created,response.output_item.done,response.completed" {
		t.Fatalf("events %v", got)
	}
	item := evs[1].Data["item"].(map[string]any)
	if item["type"] != "function_call" || item["name"] != "exec_command" || item["call_id"] == "" {
		t.Fatalf("item %v", item)
	}
	var args ShellArgs
	if err := json.Unmarshal([]byte(item["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	want := "cat << 'HANDOFF_EOF_TESTRECEIPTAAAAAAAAA' > " + handoff.ShellQuote(path) +
		"\n<!-- handoff:TESTRECEIPTAAAAAAAAA -->\nline 1\nit's $HOME\nHANDOFF_EOF_TESTRECEIPTAAAAAAAAA"
	if args.Cmd != want || args.Workdir != "/tmp/w" || args.SandboxPermissions != "" {
		t.Fatalf("args %+v\nwant cmd %q", args, want)
	}
	// The tool output comes back; the next reply answers it.
	_, evs = post(t, s, turn(prompt, map[string]any{"type": "function_call_output", "call_id": item["call_id"], "output": "ok"}))
	if evs[len(evs)-1].Name != "response.completed" {
		t.Fatalf("events %v", names(evs))
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[1].Reply != "answer" || len(reqs[1].ToolOutputs) != 1 || reqs[1].ToolOutputs[0] != "ok" {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestWriteResponseWithoutInstructionFailsTheResponse(t *testing.T) {
	s := start(t)
	s.Script(WriteResponse("x", ""))
	_, evs := post(t, s, turn("no instruction here"))
	last := evs[len(evs)-1]
	if last.Name != "response.failed" || !strings.Contains(last.Data["response"].(map[string]any)["error"].(map[string]any)["message"].(string), "RESPONSE FILE INSTRUCTION") {
		t.Fatalf("events %v", evs)
	}
}

func TestEscalatedShellAsksForEscalation(t *testing.T) {
	s := start(t)
	s.Script(EscalatedShell("touch x", "/w", "Create x?"))
	_, evs := post(t, s, turn("go"))
	var args ShellArgs
	_ = json.Unmarshal([]byte(evs[1].Data["item"].(map[string]any)["arguments"].(string)), &args)
	if args.SandboxPermissions != "require_escalated" || args.Justification != "Create x?" {
		t.Fatalf("args %+v", args)
	}
}

func TestHTTPErrorAndExhaustedScript(t *testing.T) {
	s := start(t)
	s.Script(HTTPError(500, "boom"))
	code, _ := post(t, s, turn("a"))
	if code != 500 {
		t.Fatalf("status %d, want 500", code)
	}
	_, evs := post(t, s, turn("b"))
	if evs[len(evs)-1].Name != "response.failed" {
		t.Fatalf("exhausted script answered %v", names(evs))
	}
	if len(s.Problems()) != 1 {
		t.Fatalf("problems %v", s.Problems())
	}
}

func TestStreamedSpreadsDeltasOverTime(t *testing.T) {
	s := start(t)
	s.Script(Streamed("abcdefghij", 5, 200*time.Millisecond))
	_, evs := post(t, s, turn("go"))
	var text strings.Builder
	deltas := 0
	for _, e := range evs {
		if e.Name == "response.output_text.delta" {
			deltas++
			text.WriteString(e.Data["delta"].(string))
		}
	}
	if deltas != 5 || text.String() != "abcdefghij" {
		t.Fatalf("%d deltas %q", deltas, text.String())
	}
}

func TestAfterDelaysTheFirstByte(t *testing.T) {
	s := start(t)
	s.Script(Answer("late").After(300 * time.Millisecond))
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/responses", strings.NewReader(`{"stream":true,"input":[]}`))
	if _, err := http.DefaultClient.Do(req); err == nil {
		t.Fatal("headers arrived before the delay")
	}
}

func TestResponseCommandNeedsTheInstruction(t *testing.T) {
	if _, err := ResponseCommand("plain prompt", "x"); err == nil {
		t.Fatal("no error for a prompt without the instruction")
	}
}

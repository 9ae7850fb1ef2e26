package fakemodel

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

func startOpenAI(t *testing.T) *Server { return startAPI(t, OpenAIResponses{}) }

// shellArgs are the arguments of Codex's exec_command tool as the fake
// model sends them.
type shellArgs struct {
	Cmd                string `json:"cmd"`
	Workdir            string `json:"workdir"`
	SandboxPermissions string `json:"sandbox_permissions"`
	Justification      string `json:"justification"`
}

// postOpenAI sends a Responses API request shaped like Codex 0.169's and
// returns the status and the parsed events.
func postOpenAI(t *testing.T, s *Server, body map[string]any) (int, []event) {
	t.Helper()
	code, evs, _ := postTo(t, s.URL+"/responses", body)
	return code, evs
}

func openaiTurn(user string, extra ...map[string]any) map[string]any {
	input := []any{
		map[string]any{"type": "message", "role": "developer", "content": []any{map[string]any{"type": "input_text", "text": "instructions"}}},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": user}}},
	}
	for _, e := range extra {
		input = append(input, e)
	}
	return map[string]any{"model": "gpt-5.5", "stream": true, "input": input}
}

func TestAnswerStreamsAMessageThenCompletes(t *testing.T) {
	s := startOpenAI(t)
	s.Script(Answer("Hello."))
	code, evs := postOpenAI(t, s, openaiTurn("hi"))
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
	s := startOpenAI(t)
	s.Script(Answer("the real answer"))
	title := openaiTurn("Generate a concise, single-line task title …")
	title["text"] = map[string]any{"format": map[string]any{"type": "json_schema", "schema": map[string]any{
		"type": "object", "properties": map[string]any{"title": map[string]any{"type": "string"}}}}}
	_, evs := postOpenAI(t, s, title)
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
	if len(reqs) != 1 || reqs[0].Kind != KindSide {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestWriteResponseRunsTheInstructionsHeredocOpenAI(t *testing.T) {
	s := startOpenAI(t)
	path := "/tmp/it's here/.tmp/agent-responses/analyst_summary.md"
	prompt := handoff.WithInstruction("Analyse.", path, "TESTRECEIPTAAAAAAAAA")
	s.Script(WriteResponse("line 1\nit's $HOME").In("/tmp/w"), Answer("Written."))
	_, evs := postOpenAI(t, s, openaiTurn(prompt))
	if got := names(evs); strings.Join(got, ",") != "response.created,response.output_item.done,response.completed" {
		t.Fatalf("events %v", got)
	}
	item := evs[1].Data["item"].(map[string]any)
	if item["type"] != "function_call" || item["name"] != "exec_command" || item["call_id"] == "" {
		t.Fatalf("item %v", item)
	}
	var args shellArgs
	if err := json.Unmarshal([]byte(item["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	want := "cat << 'HANDOFF_EOF_TESTRECEIPTAAAAAAAAA' > " + handoff.ShellQuote(path) +
		"\n<!-- handoff:TESTRECEIPTAAAAAAAAA -->\nline 1\nit's $HOME\nHANDOFF_EOF_TESTRECEIPTAAAAAAAAA"
	if args.Cmd != want || args.Workdir != "/tmp/w" || args.SandboxPermissions != "" {
		t.Fatalf("args %+v\nwant cmd %q", args, want)
	}
	// The tool output comes back; the next reply answers it.
	_, evs = postOpenAI(t, s, openaiTurn(prompt, map[string]any{"type": "function_call_output", "call_id": item["call_id"], "output": "ok"}))
	if evs[len(evs)-1].Name != "response.completed" {
		t.Fatalf("events %v", names(evs))
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[1].Reply != "answer" || len(reqs[1].ToolResults) != 1 || reqs[1].ToolResults[0] != "ok" {
		t.Fatalf("requests %+v", reqs)
	}
}

func TestWriteResponseWithoutInstructionFailsTheResponse(t *testing.T) {
	s := startOpenAI(t)
	s.Script(WriteResponse("x"))
	_, evs := postOpenAI(t, s, openaiTurn("no instruction here"))
	last := evs[len(evs)-1]
	if last.Name != "response.failed" || !strings.Contains(last.Data["response"].(map[string]any)["error"].(map[string]any)["message"].(string), "RESPONSE FILE INSTRUCTION") {
		t.Fatalf("events %v", evs)
	}
}

func TestEscalatedShellAsksForEscalation(t *testing.T) {
	s := startOpenAI(t)
	s.Script(Shell("touch x", "").In("/w").Escalated("Create x?"))
	_, evs := postOpenAI(t, s, openaiTurn("go"))
	var args shellArgs
	_ = json.Unmarshal([]byte(evs[1].Data["item"].(map[string]any)["arguments"].(string)), &args)
	if args.SandboxPermissions != "require_escalated" || args.Justification != "Create x?" {
		t.Fatalf("args %+v", args)
	}
}

func TestHTTPErrorAndExhaustedScript(t *testing.T) {
	s := startOpenAI(t)
	s.Script(HTTPError(500, "server_error", "boom"))
	code, _ := postOpenAI(t, s, openaiTurn("a"))
	if code != 500 {
		t.Fatalf("status %d, want 500", code)
	}
	if code, _ := postOpenAI(t, s, openaiTurn("b")); code != 400 {
		t.Fatalf("exhausted script answered %d, want 400", code)
	}
	if len(s.Problems()) != 1 {
		t.Fatalf("problems %v", s.Problems())
	}
}

func TestStreamedSpreadsDeltasOverTimeOpenAI(t *testing.T) {
	s := startOpenAI(t)
	s.Script(Streamed("abcdefghij", 5, 200*time.Millisecond))
	_, evs := postOpenAI(t, s, openaiTurn("go"))
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

func TestAfterDelaysTheFirstByteOpenAI(t *testing.T) {
	s := startOpenAI(t)
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

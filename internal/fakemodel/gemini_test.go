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

func startGemini(t *testing.T) *Server { return startAPI(t, Gemini{}) }

// geminiTurn is a streamGenerateContent body shaped like Gemini CLI
// 0.61.0's: a session context, the prompt, tools offered.
func geminiTurn(user string, extra ...map[string]any) map[string]any {
	contents := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "<session_context>…</session_context>"}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": user}}},
	}
	for _, e := range extra {
		contents = append(contents, e)
	}
	return map[string]any{"contents": contents, "tools": []any{map[string]any{"functionDeclarations": []any{
		map[string]any{"name": "run_shell_command"}, map[string]any{"name": "read_file"}}}}}
}

const streamPath = "/v1beta/models/gemini-3.1-pro-preview:streamGenerateContent?alt=sse"

// parts joins the chunks' parts.
func geminiParts(evs []event) []map[string]any {
	var out []map[string]any
	for _, e := range evs {
		c := e.Data["candidates"].([]any)[0].(map[string]any)
		for _, p := range c["content"].(map[string]any)["parts"].([]any) {
			out = append(out, p.(map[string]any))
		}
	}
	return out
}

func TestGeminiAnswerStreamsChunksAndClosesTheConnection(t *testing.T) {
	s := startGemini(t)
	s.Script(Streamed("Hello there.", 3, 30*time.Millisecond))
	b, _ := json.Marshal(geminiTurn("hi"))
	resp, err := http.Post(s.URL+streamPath, "application/json", strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !resp.Close && resp.Header.Get("Connection") != "close" {
		t.Errorf("the stream does not close the connection (headers %v)", resp.Header)
	}
	_, evs, _ := postTo(t, s.URL+streamPath, geminiTurn("hi"))
	if len(evs) != 0 {
		t.Fatalf("exhausted script: %d events", len(evs))
	}
	s.Script(Streamed("Hello there.", 3, 30*time.Millisecond))
	code, evs, _ := postTo(t, s.URL+streamPath, geminiTurn("hi"))
	if code != 200 || len(evs) != 3 {
		t.Fatalf("status %d, %d chunks", code, len(evs))
	}
	var text strings.Builder
	for _, p := range geminiParts(evs) {
		text.WriteString(p["text"].(string))
	}
	last := evs[len(evs)-1].Data
	if text.String() != "Hello there." || last["candidates"].([]any)[0].(map[string]any)["finishReason"] != "STOP" || last["usageMetadata"] == nil {
		t.Fatalf("text %q, last chunk %v", text.String(), last)
	}
	turns := s.Turns()
	if len(turns) == 0 || turns[len(turns)-1].UserText != "hi" || turns[len(turns)-1].Tools != 2 || turns[len(turns)-1].Model != "gemini-3.1-pro-preview" {
		t.Fatalf("turns %+v", turns)
	}
}

func TestGeminiWriteResponseCallsRunShellCommand(t *testing.T) {
	s := startGemini(t)
	path := "/tmp/it's here/.tmp/agent-responses/analyst_summary.md"
	prompt := handoff.WithInstruction("Analyse.", path, "TESTRECEIPTAAAAAAAAA")
	s.Script(WriteResponse("line 1\nit's $HOME"), Answer("Written."))
	_, evs, _ := postTo(t, s.URL+streamPath, geminiTurn(prompt))
	ps := geminiParts(evs)
	if len(ps) != 1 || ps[0]["functionCall"] == nil {
		t.Fatalf("parts %v", ps)
	}
	call := ps[0]["functionCall"].(map[string]any)
	args := call["args"].(map[string]any)
	want := "cat << 'HANDOFF_EOF_TESTRECEIPTAAAAAAAAA' > " + handoff.ShellQuote(path) +
		"\n<!-- handoff:TESTRECEIPTAAAAAAAAA -->\nline 1\nit's $HOME\nHANDOFF_EOF_TESTRECEIPTAAAAAAAAA"
	if call["name"] != "run_shell_command" || args["command"] != want || args["description"] == "" {
		t.Fatalf("call %v\nwant command %q", call, want)
	}
	// The tool's output comes back as a function response.
	_, evs, _ = postTo(t, s.URL+streamPath, geminiTurn(prompt,
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": call}}},
		map[string]any{"role": "user", "parts": []any{map[string]any{"functionResponse": map[string]any{
			"name": "run_shell_command", "response": map[string]any{"output": "Output: (empty)"}}}}}))
	if ps := geminiParts(evs); len(ps) != 1 || ps[0]["text"] != "Written." {
		t.Fatalf("second reply %v", ps)
	}
	turns := s.Turns()
	if len(turns) != 2 || len(turns[1].ToolResults) != 1 || turns[1].ToolResults[0] != "Output: (empty)" || !strings.Contains(turns[1].Prompt(), "HANDOFF_EOF_") {
		t.Fatalf("turns %+v", turns)
	}
}

func TestGeminiSideCallsCountTokensAndErrors(t *testing.T) {
	s := startGemini(t)
	s.Script(Answer("the real answer"))
	code, _, raw := postTo(t, s.URL+"/v1beta/models/gemini-3.5-flash-lite:generateContent", map[string]any{
		"contents": []any{map[string]any{"role": "user", "parts": []any{map[string]any{"text": "route this"}}}}})
	var side struct {
		Candidates []struct {
			Content struct{ Parts []struct{ Text string } }
		}
	}
	if err := json.Unmarshal([]byte(raw), &side); code != 200 || err != nil || len(side.Candidates) != 1 {
		t.Fatalf("side call: %d %v %s", code, err, raw)
	}
	var js map[string]any
	if err := json.Unmarshal([]byte(side.Candidates[0].Content.Parts[0].Text), &js); err != nil || js["next_speaker"] != "user" {
		t.Fatalf("side answer is not the JSON the checks want: %q", side.Candidates[0].Content.Parts[0].Text)
	}
	if code, _, raw := postTo(t, s.URL+"/v1beta/models/gemini-3.1-pro-preview:countTokens", geminiTurn("x")); code != 200 || !strings.Contains(raw, "totalTokens") {
		t.Fatalf("countTokens: %d %s", code, raw)
	}
	if s.Pending() != 1 {
		t.Fatal("a side call used up the script")
	}
	s.Clear()
	s.Script(HTTPError(400, "", "bad (fake)"))
	code, _, raw = postTo(t, s.URL+streamPath, geminiTurn("x"))
	if code != 400 || !strings.Contains(raw, `"status":"INVALID_ARGUMENT"`) || !strings.Contains(raw, "bad (fake)") {
		t.Fatalf("HTTP error: %d %s", code, raw)
	}
	if code, _, _ := postTo(t, s.URL+"/v1/other", geminiTurn("x")); code != 404 || len(s.Problems()) != 1 {
		t.Fatalf("unknown path: %d, problems %v", code, s.Problems())
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := s.WaitTurns(ctx, 1); err != nil {
		t.Fatal(err)
	}
}

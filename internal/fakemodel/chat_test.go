package fakemodel

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// chatTurn is a chat/completions body shaped like Qwen Code 0.24.4's: a
// system message, the prompt, tools offered, streamed.
func chatTurn(user string, extra ...map[string]any) map[string]any {
	msgs := []any{
		map[string]any{"role": "system", "content": "You are Qwen Code."},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": user}}},
	}
	for _, e := range extra {
		msgs = append(msgs, e)
	}
	return map[string]any{"model": "fake-model", "stream": true, "messages": msgs,
		"tools": []any{map[string]any{"type": "function", "function": map[string]any{"name": "run_shell_command"}}}}
}

// deltas are the chunks' choices[0].delta.
func deltas(evs []event) (text string, calls []map[string]any, finish string) {
	for _, e := range evs {
		c := e.Data["choices"].([]any)[0].(map[string]any)
		d := c["delta"].(map[string]any)
		if s, ok := d["content"].(string); ok {
			text += s
		}
		for _, tc := range asSlice(d["tool_calls"]) {
			calls = append(calls, tc.(map[string]any)["function"].(map[string]any))
		}
		if f, ok := c["finish_reason"].(string); ok {
			finish = f
		}
	}
	return text, calls, finish
}

func asSlice(v any) []any { s, _ := v.([]any); return s }

func TestChatAnswerStreamsDeltasThenDone(t *testing.T) {
	s := startAPI(t, ChatCompletions{})
	s.Script(Streamed("Hello there.", 3, 30*time.Millisecond))
	code, evs, raw := postTo(t, s.URL+"/chat/completions", chatTurn("hi"))
	text, calls, finish := deltas(evs)
	if code != 200 || text != "Hello there." || len(calls) != 0 || finish != "stop" {
		t.Fatalf("%d: %q %v %q", code, text, calls, finish)
	}
	if !strings.HasSuffix(raw, "data: [DONE]\n\n") {
		t.Fatalf("the stream does not end with [DONE]:\n%s", raw)
	}
	if r := s.Turns()[0]; r.UserText != "hi" || r.Tools != 1 || !r.Stream || r.Model != "fake-model" {
		t.Fatalf("request read as %+v", r)
	}
}

func TestChatWriteResponseCallsRunShellCommandAndReadsTheToolResult(t *testing.T) {
	s := startAPI(t, ChatCompletions{})
	s.Script(WriteResponse("the answer"), Answer("Done."))
	prompt := handoff.WithInstruction("Analyse.", "/tmp/w/.handoff/analyst_summary.md", "RECEIPTAAAAAAAAAAAAA")
	_, evs, _ := postTo(t, s.URL+"/chat/completions", chatTurn(prompt))
	_, calls, finish := deltas(evs)
	if len(calls) != 1 || calls[0]["name"] != "run_shell_command" || finish != "tool_calls" {
		t.Fatalf("calls %v, finish %q", calls, finish)
	}
	var args struct {
		Command      string `json:"command"`
		IsBackground *bool  `json:"is_background"`
	}
	if err := json.Unmarshal([]byte(calls[0]["arguments"].(string)), &args); err != nil {
		t.Fatal(err)
	}
	want, _ := ResponseCommand(prompt, "the answer")
	if args.Command != want || args.IsBackground == nil || *args.IsBackground {
		t.Fatalf("arguments %+v, want the heredoc %q in the foreground", args, want)
	}
	postTo(t, s.URL+"/chat/completions", chatTurn(prompt,
		map[string]any{"role": "assistant", "content": nil},
		map[string]any{"role": "tool", "tool_call_id": "call_1", "content": []any{map[string]any{"type": "text", "text": "Output: (empty)"}}}))
	if r := s.Turns()[1]; len(r.ToolResults) != 1 || r.ToolResults[0] != "Output: (empty)" || r.Prompt() != prompt {
		t.Fatalf("tool result read as %+v", r)
	}
}

// OpenCode's shell tool is bash {command, description}: the same reply goes
// to the tool the API value names, without Qwen Code's is_background.
func TestChatShellCallGoesToTheNamedTool(t *testing.T) {
	var args map[string]any
	if err := json.Unmarshal([]byte(shellCall(t, ChatCompletions{ShellTool: "bash"}, Shell("echo hi", ""))), &args); err != nil {
		t.Fatal(err)
	}
	if len(args) != 2 || args["command"] != "echo hi" || args["description"] == "" {
		t.Fatalf("arguments %v, want command and a description only", args)
	}
}

// Factory droid's Execute takes the command, a summary and a risk level,
// and no other argument: ShellArgs replace the description.
func TestChatShellArgsReplaceTheDescription(t *testing.T) {
	api := ChatCompletions{ShellTool: "Execute", ShellArgs: map[string]any{"summary": "Say hi to everyone", "riskLevel": "low"}}
	var args map[string]any
	if err := json.Unmarshal([]byte(shellCall(t, api, Shell("echo hi", "Say hi"))), &args); err != nil {
		t.Fatal(err)
	}
	if len(args) != 3 || args["command"] != "echo hi" || args["summary"] != "Say hi to everyone" || args["riskLevel"] != "low" {
		t.Fatalf("arguments %v, want command, summary and riskLevel only", args)
	}
}

// Cline's shell tool is run_commands {commands: [...]}: the command goes in
// the list, and nothing else.
func TestChatShellCallAsAListOfCommands(t *testing.T) {
	if got := shellCall(t, ChatCompletions{ShellTool: "run_commands", Commands: true}, Shell("echo hi", "Say hi")); got != `{"commands":["echo hi"]}` {
		t.Fatalf("arguments %v, want the command alone in a list", got)
	}
}

func TestChatSideCallsAndErrors(t *testing.T) {
	s := startAPI(t, ChatCompletions{})
	side := chatTurn("Is the answer complete?")
	delete(side, "tools")
	side["stream"] = false
	s.Script(HTTPError(400, "invalid_request_error", "bad thing"))
	code, _, raw := postTo(t, s.URL+"/chat/completions", side)
	if code != 200 || !strings.Contains(raw, `"next_speaker`) || s.Pending() != 1 {
		t.Fatalf("side call: %d %s (pending %d)", code, raw, s.Pending())
	}
	code, _, raw = postTo(t, s.URL+"/chat/completions", chatTurn("fail"))
	if code != 400 || !strings.Contains(raw, `"message":"bad thing"`) {
		t.Fatalf("error: %d %s", code, raw)
	}
}

func TestPrefixedPutsThePrefixBeforeShellCommands(t *testing.T) {
	s := startAPI(t, ChatCompletions{})
	s.Script(Shell("ls", "list").Prefixed("mkdir -p x && "))
	_, evs, _ := postTo(t, s.URL+"/chat/completions", chatTurn("hi"))
	_, calls, _ := deltas(evs)
	if len(calls) != 1 || !strings.Contains(calls[0]["arguments"].(string), `"command":"mkdir -p x \u0026\u0026 ls"`) {
		t.Fatalf("calls %v", calls)
	}
}

// shellCall scripts the shell reply sh on a chat API set up as api, sends a
// user turn, and returns the arguments of the one tool call that comes
// back, which must go to api's shell tool.
func shellCall(t *testing.T, api ChatCompletions, sh Reply) string {
	t.Helper()
	s := startAPI(t, api)
	s.Script(sh)
	_, evs, _ := postTo(t, s.URL+"/chat/completions", chatTurn("run it"))
	_, calls, _ := deltas(evs)
	if len(calls) != 1 || calls[0]["name"] != api.ShellTool {
		t.Fatalf("calls %v, want one to %s", calls, api.ShellTool)
	}
	args, _ := calls[0]["arguments"].(string)
	return args
}

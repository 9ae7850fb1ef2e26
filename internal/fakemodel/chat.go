package fakemodel

import (
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"time"
)

// ChatCompletions is the OpenAI Chat Completions API as OpenAI-compatible
// CLIs use it (Qwen Code, OpenCode): POST …/chat/completions. A streamed
// request that offers tools is a turn; anything else (a request without
// tools, or not streamed: a CLI's next-speaker check, a title) is a side
// call, answered with SideJSON.
//
// A stream is "data:" chunks of choices[0].delta (role, content, or
// tool_calls with the whole arguments in one chunk), a last chunk with the
// finish reason ("stop" or "tool_calls") and the usage, then "data: [DONE]".
//
// The CLIs name their shell tool differently (Qwen Code run_shell_command,
// OpenCode bash): ShellTool says which one a call goes to.
type ChatCompletions struct {
	// ShellTool is the CLI's shell tool. "" is Qwen Code's
	// run_shell_command {command, description, is_background}; any other
	// name gets {command, description} (OpenCode's bash requires the
	// description).
	ShellTool string
	// ShellArgs, when set, are the other arguments ShellTool requires, in
	// place of the description (Factory droid's Execute takes a summary
	// and a risk level and refuses any other argument).
	ShellArgs map[string]any
	// Commands: the shell tool takes a list of commands, {commands: [cmd]},
	// and nothing else (Cline's run_commands).
	Commands bool
}

// qwenShell is Qwen Code's shell tool, ShellTool's default.
const qwenShell = "run_shell_command"

var _ API = ChatCompletions{}

// BaseURL ends in /v1, as OPENAI_BASE_URL is usually given.
func (ChatCompletions) BaseURL(root string) string { return root + "/v1" }

// Side answers with SideJSON: the fields side checks ask for.
func (ChatCompletions) Side() Reply { return Answer(SideJSON) }

// CountTokens is not part of the API.
func (ChatCompletions) CountTokens([]byte) any { return map[string]any{"input_tokens": 1} }

// CloseAfterStream: clients read to "data: [DONE]".
func (ChatCompletions) CloseAfterStream() bool { return false }

type chatBody struct {
	Model    string        `json:"model"`
	Stream   bool          `json:"stream"`
	Tools    []any         `json:"tools"`
	Messages []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// Read takes POST …/chat/completions. Tool results are the tool messages
// after the last user message.
func (ChatCompletions) Read(r *http.Request, body []byte, req *Request) error {
	var cb chatBody
	if ok, err := decodePost(r, body, "/chat/completions", &cb); !ok || err != nil {
		return err
	}
	req.Model, req.Tools, req.Stream = cb.Model, len(cb.Tools), cb.Stream
	for _, m := range cb.Messages {
		switch m.Role {
		case "user":
			req.addUser(contentText(m.Content))
			req.ToolResults = nil
		case "tool":
			req.ToolResults = append(req.ToolResults, contentText(m.Content))
		}
	}
	req.sideOrTurn()
	return nil
}

// Events: a first chunk with the assistant role, one chunk per text delta
// or call (a shell call goes to ShellTool with the arguments that tool
// requires), a last chunk with the finish reason and usage, and [DONE]. A
// fault is an error object in the stream.
func (c ChatCompletions) Events(req Request, parts []Part, newID func(string) string) []Event {
	id := newID("chatcmpl")
	chunk := func(pause time.Duration, delta map[string]any, finish any) Event {
		return Event{Pause: pause, Data: map[string]any{
			"id": id, "object": "chat.completion.chunk", "created": 0, "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		}}
	}
	out := []Event{chunk(0, map[string]any{"role": "assistant", "content": ""}, nil)}
	finish, call := "stop", 0
	for _, p := range parts {
		switch {
		case p.Fault != nil:
			return append(out, Event{Pause: p.Pause, Data: map[string]any{
				"error": map[string]any{"message": p.Fault.Message, "type": p.Fault.Type, "code": nil},
			}})
		case p.Call != nil:
			name, args := p.Call.Name, p.Call.Input
			if p.Call.Shell {
				name, args = c.shellCall(p.Call)
			}
			b, _ := json.Marshal(args)
			out = append(out, chunk(p.Pause, map[string]any{"tool_calls": []any{map[string]any{
				"index": call, "id": newID("call"), "type": "function",
				"function": map[string]any{"name": name, "arguments": string(b)},
			}}}, nil))
			call++
			finish = "tool_calls"
		default:
			out = append(out, chunk(p.Pause, map[string]any{"content": p.Text}, nil))
		}
	}
	last := chunk(0, map[string]any{}, finish)
	last.Data["usage"] = map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
	return append(out, last, Event{Raw: "[DONE]"})
}

// shellCall is a call to the CLI's shell tool with its arguments.
func (c ChatCompletions) shellCall(call *Call) (string, map[string]any) {
	name := c.ShellTool
	if c.Commands {
		return name, map[string]any{"commands": []string{call.Command}}
	}
	a := map[string]any{"command": call.Command}
	if name == "" || name == qwenShell {
		name = qwenShell
		a["is_background"] = false
	}
	switch {
	case c.ShellArgs != nil:
		maps.Copy(a, c.ShellArgs)
	case call.Description != "":
		a["description"] = call.Description
	case name != qwenShell:
		a["description"] = "Run a shell command"
	}
	for k, v := range call.Extra {
		a[k] = v
	}
	return name, a
}

// Assemble merges the chunks into one chat.completion; an error chunk
// becomes the HTTP error the real API would send.
func (ChatCompletions) Assemble(req Request, events []Event) (int, any) {
	var text strings.Builder
	var calls []any
	finish := "stop"
	for _, e := range events {
		if e.Data == nil {
			continue
		}
		if e.Data["error"] != nil {
			return http.StatusInternalServerError, map[string]any{"error": e.Data["error"]}
		}
		c := e.Data["choices"].([]any)[0].(map[string]any)
		d := c["delta"].(map[string]any)
		if s, ok := d["content"].(string); ok {
			text.WriteString(s)
		}
		if tc, ok := d["tool_calls"].([]any); ok {
			calls = append(calls, tc...)
		}
		if f, ok := c["finish_reason"].(string); ok {
			finish = f
		}
	}
	msg := map[string]any{"role": "assistant", "content": text.String()}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return http.StatusOK, map[string]any{
		"id": "chatcmpl_fake", "object": "chat.completion", "created": 0, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
	}
}

// ErrorBody is OpenAI's error object (as OpenAIResponses sends it).
func (ChatCompletions) ErrorBody(status int, typ, msg string) any {
	return OpenAIResponses{}.ErrorBody(status, typ, msg)
}

package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// OpenAIResponses is the OpenAI Responses API as Codex uses it: POST
// /v1/responses, always answered as server-sent events. Codex's side
// request for a task title is answered with {"title":"Fake task title"}.
type OpenAIResponses struct{}

var _ API = OpenAIResponses{}

// BaseURL ends in /v1, as Codex's provider config wants it.
func (OpenAIResponses) BaseURL(root string) string { return root + "/v1" }

// Side answers Codex's title request in the JSON shape it asked for.
func (OpenAIResponses) Side() Reply { return Answer(`{"title":"Fake task title"}`) }

// CountTokens is not part of what Codex calls.
func (OpenAIResponses) CountTokens([]byte) any { return map[string]any{"input_tokens": 1} }

// CloseAfterStream: Codex reads to response.completed.
func (OpenAIResponses) CloseAfterStream() bool { return false }

// responsesBody is the part of a Responses API request the server reads.
type responsesBody struct {
	Model string      `json:"model"`
	Input []inputItem `json:"input"`
	Tools []any       `json:"tools"`
	Text  struct {
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

// Read takes POST …/responses; a title request is a side request.
func (OpenAIResponses) Read(r *http.Request, body []byte, req *Request) error {
	var rb responsesBody
	if ok, err := decodePost(r, body, "/responses", &rb); !ok || err != nil {
		return err
	}
	req.Model, req.Tools, req.Stream = rb.Model, len(rb.Tools), true
	for _, it := range rb.Input {
		switch {
		case it.Type == "message" && it.Role == "user":
			req.addUser(contentText(it.Content))
		case it.Type == "function_call_output":
			var s string
			if json.Unmarshal(it.Output, &s) == nil {
				req.ToolResults = append(req.ToolResults, s)
			} else {
				req.ToolResults = append(req.ToolResults, string(it.Output))
			}
		}
	}
	req.Kind = KindTurn
	if rb.isTitleRequest() {
		req.Kind = KindSide
	}
	return nil
}

// contentText is the text of a message's content: a string or a list of
// parts with text.
func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(c, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// Events: response.created; each message as output_item.added, its
// output_text deltas and output_item.done; each call as a function_call
// item; then response.completed, or response.failed for a fault.
func (OpenAIResponses) Events(_ Request, parts []Part, newID func(string) string) []Event {
	respID := newID("resp")
	ev := func(pause time.Duration, data map[string]any) Event {
		return Event{Pause: pause, Name: data["type"].(string), Data: data}
	}
	out := []Event{ev(0, map[string]any{"type": "response.created", "response": map[string]any{"id": respID}})}
	index := 0
	for i := 0; i < len(parts); {
		p := parts[i]
		switch {
		case p.Fault != nil:
			return append(out, ev(p.Pause, map[string]any{
				"type":     "response.failed",
				"response": map[string]any{"id": respID, "error": map[string]any{"code": p.Fault.Type, "message": p.Fault.Message}},
			}))
		case p.Call != nil:
			name, args := "exec_command", map[string]any{"cmd": p.Call.Command}
			for k, v := range p.Call.Extra {
				args[k] = v
			}
			if !p.Call.Shell {
				name, args = p.Call.Name, nil
			}
			var b []byte
			if args != nil {
				b, _ = json.Marshal(args)
			} else {
				b, _ = json.Marshal(p.Call.Input)
			}
			out = append(out, ev(p.Pause, map[string]any{
				"type": "response.output_item.done", "output_index": index,
				"item": map[string]any{
					"type": "function_call", "id": newID("fc"), "call_id": newID("call"),
					"name": name, "arguments": string(b), "status": "completed",
				},
			}))
			index++
			i++
		default:
			id := newID("msg")
			out = append(out, ev(0, map[string]any{"type": "response.output_item.added", "output_index": index, "item": messageItem(id, "")}))
			var text strings.Builder
			for ; i < len(parts) && parts[i].Call == nil && parts[i].Fault == nil; i++ {
				text.WriteString(parts[i].Text)
				out = append(out, ev(parts[i].Pause, map[string]any{
					"type": "response.output_text.delta", "item_id": id, "output_index": index, "content_index": 0, "delta": parts[i].Text,
				}))
			}
			out = append(out, ev(0, map[string]any{"type": "response.output_item.done", "output_index": index, "item": messageItem(id, text.String())}))
			index++
		}
	}
	return append(out, ev(0, map[string]any{
		"type": "response.completed",
		"response": map[string]any{
			"id": respID,
			"usage": map[string]any{
				"input_tokens": 0, "input_tokens_details": nil,
				"output_tokens": 0, "output_tokens_details": nil,
				"total_tokens": 0,
			},
		},
	}))
}

func messageItem(id, text string) map[string]any {
	content := []any{}
	if text != "" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "role": "assistant", "id": id, "status": "completed", "content": content}
}

// Assemble: the Responses API is only streamed here; a non-streaming
// request gets the events' items in one response object.
func (OpenAIResponses) Assemble(_ Request, events []Event) (int, any) {
	var items []any
	for _, e := range events {
		if e.Data["type"] == "response.output_item.done" {
			items = append(items, e.Data["item"])
		}
	}
	return http.StatusOK, map[string]any{"object": "response", "status": "completed", "output": items}
}

// ErrorBody is OpenAI's error object.
func (OpenAIResponses) ErrorBody(_ int, typ, msg string) any {
	if typ == "" {
		typ = "server_error"
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": typ, "code": nil}}
}

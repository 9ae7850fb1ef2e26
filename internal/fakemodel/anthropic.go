package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
)

// AnthropicMessages is the Anthropic Messages API as Claude Code uses it:
// POST /v1/messages (streamed or not) and /v1/messages/count_tokens. A
// request that offers tools is the main conversation (a turn); one without
// tools is a side request (title, topic, quota), answered with SideAnswer.
type AnthropicMessages struct{}

var _ API = AnthropicMessages{}

// SideAnswer is what Claude Code's side requests get by default: a short
// title-like text that also parses as the JSON object some of them ask for.
const SideAnswer = `{"title":"Fake task title","isNewTopic":false}`

// BaseURL is the root: Claude Code adds /v1 itself (ANTHROPIC_BASE_URL).
func (AnthropicMessages) BaseURL(root string) string { return root }

// Side answers with SideAnswer.
func (AnthropicMessages) Side() Reply { return Answer(SideAnswer) }

// CloseAfterStream: Claude Code reads to message_stop.
func (AnthropicMessages) CloseAfterStream() bool { return false }

// CountTokens answers with a rough count: Claude Code only shows it.
func (AnthropicMessages) CountTokens(body []byte) any {
	return map[string]any{"input_tokens": 1 + len(body)/4}
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

// Read takes POST /v1/messages and /v1/messages/count_tokens.
func (AnthropicMessages) Read(r *http.Request, body []byte, req *Request) error {
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages/count_tokens":
		req.Kind = KindCountTokens
		return nil
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
	default:
		return nil // KindOther
	}
	var mb messagesBody
	if err := json.Unmarshal(body, &mb); err != nil {
		return err
	}
	req.Model, req.Stream, req.Tools = mb.Model, mb.Stream, len(mb.Tools)
	for _, m := range mb.Messages {
		if m.Role != "user" {
			continue
		}
		bs := m.blocks()
		req.addUser(textOf(bs))
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
	// The main conversation offers tools (Bash, Read, …); Claude Code's side
	// requests (title, topic, quota) offer none.
	req.Kind = KindSide
	if len(mb.Tools) > 0 {
		req.Kind = KindTurn
	}
	return nil
}

// Events: message_start, a content block per message (text deltas) or
// call (tool_use with its input in three input_json_delta pieces),
// message_delta with the stop reason and message_stop; a fault is an error
// event that ends the stream.
func (AnthropicMessages) Events(req Request, parts []Part, newID func(string) string) []Event {
	ev := func(data map[string]any) Event { return Event{Name: data["type"].(string), Data: data} }
	out := []Event{ev(map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": newID("msg"), "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
		},
	})}
	stop := "end_turn"
	index := 0
	for i := 0; i < len(parts); {
		p := parts[i]
		switch {
		case p.Fault != nil:
			e := ev(map[string]any{"type": "error", "error": map[string]any{"type": p.Fault.Type, "message": p.Fault.Message}})
			e.Pause = p.Pause
			return append(out, e)
		case p.Call != nil:
			name, input := p.Call.tool("Bash")
			b, _ := json.Marshal(input) // plain values: cannot fail
			start := ev(map[string]any{
				"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "tool_use", "id": newID("toolu"), "name": name, "input": map[string]any{}},
			})
			start.Pause = p.Pause
			out = append(out, start)
			for _, piece := range split(string(b), 3) {
				out = append(out, ev(map[string]any{
					"type": "content_block_delta", "index": index,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": piece},
				}))
			}
			out = append(out, ev(map[string]any{"type": "content_block_stop", "index": index}))
			stop = "tool_use"
			index++
			i++
		default:
			out = append(out, ev(map[string]any{
				"type": "content_block_start", "index": index,
				"content_block": map[string]any{"type": "text", "text": ""},
			}))
			for ; i < len(parts) && parts[i].Call == nil && parts[i].Fault == nil; i++ {
				d := ev(map[string]any{
					"type": "content_block_delta", "index": index,
					"delta": map[string]any{"type": "text_delta", "text": parts[i].Text},
				})
				d.Pause = parts[i].Pause
				out = append(out, d)
			}
			if i < len(parts) && parts[i].Fault != nil {
				continue // the error cuts the block short
			}
			out = append(out, ev(map[string]any{"type": "content_block_stop", "index": index}))
			index++
		}
	}
	return append(out, ev(map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10},
	}), ev(map[string]any{"type": "message_stop"}))
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

// Assemble turns the events of a reply into the one JSON message a
// non-streaming request gets. Claude Code retries a failed stream without
// streaming: an error event becomes the HTTP error the real API would send.
func (AnthropicMessages) Assemble(req Request, events []Event) (int, any) {
	if n := len(events); n > 0 && events[n-1].Data["type"] == "error" {
		e := events[n-1].Data["error"].(map[string]any)
		typ, _ := e["type"].(string)
		return statusOf(typ), events[n-1].Data
	}
	var content []map[string]any
	partial := map[int]string{}
	stop := "end_turn"
	msgID := ""
	for _, e := range events {
		d := e.Data
		switch d["type"] {
		case "message_start":
			msgID, _ = d["message"].(map[string]any)["id"].(string)
		case "content_block_start":
			cb := map[string]any{}
			for k, v := range d["content_block"].(map[string]any) {
				cb[k] = v
			}
			content = append(content, cb)
		case "content_block_delta":
			i := d["index"].(int)
			delta := d["delta"].(map[string]any)
			if i >= len(content) {
				continue
			}
			switch delta["type"] {
			case "text_delta":
				content[i]["text"] = content[i]["text"].(string) + delta["text"].(string)
			case "input_json_delta":
				partial[i] += delta["partial_json"].(string)
			}
		case "message_delta":
			if delta, ok := d["delta"].(map[string]any); ok {
				if r, ok := delta["stop_reason"].(string); ok {
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
	return http.StatusOK, map[string]any{
		"id": msgID, "type": "message", "role": "assistant", "model": req.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 10, "output_tokens": 10},
	}
}

// ErrorBody is Anthropic's error object.
func (AnthropicMessages) ErrorBody(_ int, typ, msg string) any {
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

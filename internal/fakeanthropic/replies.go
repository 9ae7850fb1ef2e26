package fakeanthropic

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Reply is what the fake model answers to one turn request. Build one with
// Answer, Streamed, Bash, WriteResponse, ToolUse, StreamError or HTTPError
// (Overloaded, RateLimited, ServerError), and slow it down with After.
type Reply struct {
	// Name says which kind of reply answered a request (in Request.Reply).
	Name string
	// Delay passes before the first byte (headers included): a model that
	// is slow to start.
	Delay time.Duration
	// Status, when not 0 or 200, is sent with an Anthropic error body
	// {"type":"error","error":{"type":ErrorType,"message":ErrorMessage}}
	// instead of a stream, and a retry-after header when RetryAfter is set.
	Status       int
	ErrorType    string
	ErrorMessage string
	RetryAfter   time.Duration

	events func(req Request, newID func(string) string) []step
}

// step is one SSE event, sent after a pause (an event of nil is a pause
// only).
type step struct {
	pause time.Duration
	event map[string]any
}

// After returns r delayed by d before its first byte.
func (r Reply) After(d time.Duration) Reply {
	r.Delay = d
	r.Name += "+slow"
	return r
}

// build returns the reply's events, framed by message_start and
// message_stop unless the reply ends in an error event.
func (r Reply) build(req Request, msgID string, newID func(string) string) []step {
	var body []step
	if r.events != nil {
		body = r.events(req, newID)
	}
	steps := []step{{event: map[string]any{
		"type": "message_start",
		"message": map[string]any{
			"id": msgID, "type": "message", "role": "assistant", "model": "",
			"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": 10, "output_tokens": 1},
		},
	}}}
	steps = append(steps, body...)
	if n := len(steps); n > 0 && steps[n-1].event != nil && steps[n-1].event["type"] == "error" {
		return steps
	}
	return append(steps, step{event: map[string]any{"type": "message_stop"}})
}

func messageDelta(stop string) step {
	return step{event: map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 10},
	}}
}

// textBlock streams chunks as the text content block at index, with pause
// before each delta.
func textBlock(index int, chunks []string, pause time.Duration) []step {
	steps := []step{{event: map[string]any{
		"type": "content_block_start", "index": index,
		"content_block": map[string]any{"type": "text", "text": ""},
	}}}
	for _, c := range chunks {
		steps = append(steps, step{pause: pause, event: map[string]any{
			"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "text_delta", "text": c},
		}})
	}
	return append(steps, step{event: map[string]any{"type": "content_block_stop", "index": index}})
}

// toolBlock sends a tool_use content block at index whose input arrives as
// input_json_delta pieces.
func toolBlock(index int, id, name string, input any) []step {
	b, _ := json.Marshal(input) // plain values: cannot fail
	steps := []step{{event: map[string]any{
		"type": "content_block_start", "index": index,
		"content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}},
	}}}
	for _, piece := range split(string(b), 3) {
		steps = append(steps, step{event: map[string]any{
			"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": piece},
		}})
	}
	return append(steps, step{event: map[string]any{"type": "content_block_stop", "index": index}})
}

// Answer is a plain assistant message, sent at once.
func Answer(text string) Reply {
	return Reply{Name: "answer", events: func(Request, func(string) string) []step {
		return append(textBlock(0, []string{text}, 0), messageDelta("end_turn"))
	}}
}

// Streamed sends text as an assistant message in about n deltas spread
// evenly over total: long streaming work.
func Streamed(text string, n int, total time.Duration) Reply {
	return Reply{Name: "streamed", events: func(Request, func(string) string) []step {
		chunks := split(text, n)
		pause := time.Duration(0)
		if len(chunks) > 0 {
			pause = total / time.Duration(len(chunks))
		}
		return append(textBlock(0, chunks, pause), messageDelta("end_turn"))
	}}
}

// Stalled starts a message with first, then sends nothing for d, then the
// rest: a stream that stops for a while mid-answer.
func Stalled(first string, d time.Duration, rest string) Reply {
	return Reply{Name: "stalled", events: func(Request, func(string) string) []step {
		steps := textBlock(0, []string{first, rest}, 0)
		steps[2].pause = d // before the second delta
		return append(steps, messageDelta("end_turn"))
	}}
}

// split cuts s into about n pieces on rune boundaries.
func split(s string, n int) []string {
	r := []rune(s)
	if n < 1 {
		n = 1
	}
	size := (len(r) + n - 1) / n
	if size < 1 {
		size = 1
	}
	var out []string
	for i := 0; i < len(r); i += size {
		end := min(i+size, len(r))
		out = append(out, string(r[i:end]))
	}
	return out
}

// BashInput is the input of Claude Code's Bash tool as the fake model sends
// it.
type BashInput struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
	// Timeout in milliseconds (Claude Code's default is two minutes).
	Timeout int `json:"timeout,omitempty"`
}

// ToolUse asks Claude Code to run the tool name with input (any JSON-
// encodable value), after an optional short text. The tool's result comes
// back in the next turn request, which takes the next scripted reply.
func ToolUse(name string, input any, text string) Reply {
	return toolReply("tool-"+name, func(Request) (string, any, string, error) { return name, input, text, nil })
}

// Bash asks Claude Code to run cmd with its Bash tool.
func Bash(cmd, description string) Reply {
	return toolReply("bash", func(Request) (string, any, string, error) {
		return "Bash", BashInput{Command: cmd, Description: description}, "", nil
	})
}

// WriteResponse follows the RESPONSE FILE INSTRUCTION of the prompt: it asks
// Claude Code to run the instruction's heredoc with answer as the response
// through its Bash tool. A prompt without the instruction gets an error
// event saying so.
func WriteResponse(answer string) Reply {
	return toolReply("write-response", func(req Request) (string, any, string, error) {
		cmd, err := ResponseCommand(req.Prompt(), answer)
		return "Bash", BashInput{Command: cmd, Description: "Write the response file"}, "", err
	})
}

// WriteFirstResponse is WriteResponse for the first user text of the
// conversation that carries an instruction: a model answering the earliest
// of the prompts it was given (Claude Code hands it a prompt typed during
// a turn along with the conversation so far).
func WriteFirstResponse(answer string) Reply {
	return toolReply("write-first-response", func(req Request) (string, any, string, error) {
		for _, text := range req.UserTexts {
			if cmd, err := ResponseCommand(text, answer); err == nil {
				return "Bash", BashInput{Command: cmd, Description: "Write the response file"}, "", nil
			}
		}
		return "", nil, "", errors.New("fakeanthropic: no user text carries a RESPONSE FILE INSTRUCTION")
	})
}

func toolReply(name string, build func(Request) (tool string, input any, text string, err error)) Reply {
	return Reply{Name: name, events: func(req Request, newID func(string) string) []step {
		tool, input, text, err := build(req)
		if err != nil {
			return []step{errorEvent("invalid_request_error", err.Error())}
		}
		var steps []step
		index := 0
		if text != "" {
			steps = append(steps, textBlock(0, []string{text}, 0)...)
			index++
		}
		steps = append(steps, toolBlock(index, newID("toolu"), tool, input)...)
		return append(steps, messageDelta("tool_use"))
	}}
}

func errorEvent(typ, msg string) step {
	return step{event: map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}}
}

// StreamError starts a stream and ends it with an SSE error event of the
// given type (overloaded_error, api_error, …) after partial text (may be "").
func StreamError(typ, msg, partial string) Reply {
	return Reply{Name: "stream-" + typ, events: func(Request, func(string) string) []step {
		var steps []step
		if partial != "" {
			steps = append(steps, step{event: map[string]any{
				"type": "content_block_start", "index": 0,
				"content_block": map[string]any{"type": "text", "text": ""},
			}}, step{event: map[string]any{
				"type": "content_block_delta", "index": 0,
				"delta": map[string]any{"type": "text_delta", "text": partial},
			}})
		}
		return append(steps, errorEvent(typ, msg))
	}}
}

// HTTPError answers with an HTTP error status and an Anthropic error body
// (type, msg) instead of a stream.
func HTTPError(status int, typ, msg string) Reply {
	return Reply{Name: "http-" + strings.ReplaceAll(strings.ToLower(http.StatusText(status)), " ", "-"),
		Status: status, ErrorType: typ, ErrorMessage: msg}
}

// ServerError is HTTP 500 api_error.
func ServerError() Reply {
	r := HTTPError(http.StatusInternalServerError, "api_error", "Internal server error")
	r.Name = "http-500"
	return r
}

// Overloaded is HTTP 529 overloaded_error, as the real API sends it.
func Overloaded() Reply {
	r := HTTPError(529, "overloaded_error", "Overloaded")
	r.Name = "http-529-overloaded"
	return r
}

// RateLimited is HTTP 429 rate_limit_error with a retry-after header.
func RateLimited(retryAfter time.Duration) Reply {
	r := HTTPError(http.StatusTooManyRequests, "rate_limit_error", "Number of request tokens has exceeded your per-minute rate limit")
	r.Name = "http-429-rate-limited"
	r.RetryAfter = retryAfter
	return r
}

// Times repeats r n times: one failure per retry.
func Times(n int, r Reply) []Reply {
	out := make([]Reply, n)
	for i := range out {
		out[i] = r
	}
	return out
}

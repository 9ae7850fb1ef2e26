package fakemodel

import (
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// Gemini is the Gemini API (generativelanguage, v1beta) as Gemini CLI uses
// it: POST /v1beta/models/{model}:streamGenerateContent?alt=sse for the
// conversation (server-sent "data:" chunks; the CLI waits for the
// connection to close), :generateContent for its side calls (answered with
// SideJSON) and :countTokens.
type Gemini struct{}

var _ API = Gemini{}

// SideJSON is what Gemini CLI's side calls get: one JSON object with the
// fields its checks ask for (the next-speaker check, the model router).
const SideJSON = `{"reasoning":"The fake model has nothing to add.","next_speaker":"user","model_choice":"flash"}`

// BaseURL is the root (GOOGLE_GEMINI_BASE_URL; the CLI adds /v1beta).
func (Gemini) BaseURL(root string) string { return root }

// Side answers with SideJSON.
func (Gemini) Side() Reply { return Answer(SideJSON) }

// CloseAfterStream: Gemini CLI reads the stream until the connection
// closes.
func (Gemini) CloseAfterStream() bool { return true }

// CountTokens answers with a rough count.
func (Gemini) CountTokens(body []byte) any { return map[string]any{"totalTokens": 1 + len(body)/4} }

type geminiBody struct {
	Contents []geminiContent `json:"contents"`
	Tools    []struct {
		FunctionDeclarations []json.RawMessage `json:"functionDeclarations"`
	} `json:"tools"`
}

type geminiContent struct {
	Role  string `json:"role"`
	Parts []struct {
		Text             string `json:"text"`
		Thought          bool   `json:"thought"`
		FunctionResponse *struct {
			Name     string          `json:"name"`
			Response json.RawMessage `json:"response"`
		} `json:"functionResponse"`
	} `json:"parts"`
}

// Read takes POST /v1beta/models/{model}:{method}. A streamed request that
// offers tools is a turn; :generateContent (and a stream without tools) a
// side call.
func (Gemini) Read(r *http.Request, body []byte, req *Request) error {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1beta/models/")
	if r.Method != http.MethodPost || !ok {
		return nil // KindOther
	}
	model, method, _ := strings.Cut(rest, ":")
	req.Model = model
	switch method {
	case "countTokens":
		req.Kind = KindCountTokens
		return nil
	case "streamGenerateContent", "generateContent":
	default:
		return nil
	}
	var gb geminiBody
	if err := json.Unmarshal(body, &gb); err != nil {
		return err
	}
	for _, t := range gb.Tools {
		req.Tools += len(t.FunctionDeclarations)
	}
	for _, c := range gb.Contents {
		if c.Role != "user" {
			continue
		}
		var texts []string
		req.ToolResults = nil
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				req.ToolResults = append(req.ToolResults, functionOutput(p.FunctionResponse.Response))
				continue
			}
			if p.Text != "" && !p.Thought {
				texts = append(texts, p.Text)
			}
		}
		req.addUser(strings.Join(texts, "\n"))
	}
	req.Stream = method == "streamGenerateContent"
	req.sideOrTurn()
	return nil
}

// functionOutput is a function response's output ({"output": "…"}), or the
// response as JSON.
func functionOutput(resp json.RawMessage) string {
	var o struct {
		Output *string `json:"output"`
	}
	if json.Unmarshal(resp, &o) == nil && o.Output != nil {
		return *o.Output
	}
	return string(resp)
}

// Events: one chunk per text delta or call (run_shell_command with
// command and description for a shell call); the last chunk carries the
// finish reason and the usage. A fault is an error chunk.
func (Gemini) Events(req Request, parts []Part, newID func(string) string) []Event {
	responseID := newID("resp")
	chunk := func(pause time.Duration, part map[string]any) Event {
		return Event{Pause: pause, Data: map[string]any{
			"candidates": []any{map[string]any{
				"content": map[string]any{"role": "model", "parts": []any{part}},
				"index":   0,
			}},
			"modelVersion": req.Model,
			"responseId":   responseID,
		}}
	}
	var out []Event
	for _, p := range parts {
		switch {
		case p.Fault != nil:
			return append(out, Event{Pause: p.Pause, Data: map[string]any{
				"error": map[string]any{"code": 500, "message": p.Fault.Message, "status": "INTERNAL"},
			}})
		case p.Call != nil:
			name, args := p.Call.tool("run_shell_command")
			out = append(out, chunk(p.Pause, map[string]any{"functionCall": map[string]any{"name": name, "args": args}}))
		default:
			out = append(out, chunk(p.Pause, map[string]any{"text": p.Text}))
		}
	}
	if len(out) == 0 {
		out = append(out, chunk(0, map[string]any{"text": ""}))
	}
	last := out[len(out)-1].Data
	cand := last["candidates"].([]any)[0].(map[string]any)
	cand["finishReason"] = "STOP"
	last["usageMetadata"] = map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20}
	return out
}

// Assemble merges the chunks into the one answer of :generateContent; an
// error chunk becomes the HTTP error the real API would send.
func (g Gemini) Assemble(req Request, events []Event) (int, any) {
	var parts []any
	for _, e := range events {
		if e.Data["error"] != nil {
			return http.StatusInternalServerError, map[string]any{"error": e.Data["error"]}
		}
		c := e.Data["candidates"].([]any)[0].(map[string]any)
		parts = append(parts, c["content"].(map[string]any)["parts"].([]any)...)
	}
	// Consecutive text parts are one text.
	var merged []any
	for _, p := range parts {
		pm := p.(map[string]any)
		if t, ok := pm["text"].(string); ok && len(merged) > 0 {
			if prev, ok := merged[len(merged)-1].(map[string]any)["text"].(string); ok {
				merged[len(merged)-1] = map[string]any{"text": prev + t}
				continue
			}
		}
		merged = append(merged, pm)
	}
	return http.StatusOK, map[string]any{
		"candidates": []any{map[string]any{
			"content":      map[string]any{"role": "model", "parts": merged},
			"finishReason": "STOP", "index": 0,
		}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20},
		"modelVersion":  req.Model,
	}
}

// ErrorBody is Google's error object: the HTTP code, the message and the
// status name.
func (Gemini) ErrorBody(status int, _ string, msg string) any {
	name := map[int]string{400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
		404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 503: "UNAVAILABLE", 504: "DEADLINE_EXCEEDED"}[status]
	if name == "" {
		name = "UNKNOWN"
	}
	return map[string]any{"error": map[string]any{"code": status, "message": msg, "status": name}}
}

package fakeopenai

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"
)

// Reply is what the fake model answers to one model request. Build one with
// Answer, Streamed, Shell, EscalatedShell, WriteResponse, Failed or
// HTTPError, and slow it down with After.
type Reply struct {
	// Name says which kind of reply answered a request (in Request.Reply).
	Name string
	// Delay passes before the first byte (headers included): a model that
	// is slow to start.
	Delay time.Duration
	// Status, when not 0 or 200, is sent with ErrorBody instead of a stream.
	Status    int
	ErrorBody string

	events func(req Request, respID string, newID func(string) string) []step
}

// step is one SSE event, sent after a pause.
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

func (r Reply) build(req Request, respID string, newID func(string) string) []step {
	if r.events == nil {
		return nil
	}
	return r.events(req, respID, newID)
}

func created(respID string) step {
	return step{event: map[string]any{"type": "response.created", "response": map[string]any{"id": respID}}}
}

func completed(respID string) step {
	return step{event: map[string]any{
		"type": "response.completed",
		"response": map[string]any{
			"id": respID,
			"usage": map[string]any{
				"input_tokens": 0, "input_tokens_details": nil,
				"output_tokens": 0, "output_tokens_details": nil,
				"total_tokens": 0,
			},
		},
	}}
}

func messageItem(id, text string) map[string]any {
	content := []any{}
	if text != "" {
		content = append(content, map[string]any{"type": "output_text", "text": text, "annotations": []any{}})
	}
	return map[string]any{"type": "message", "role": "assistant", "id": id, "status": "completed", "content": content}
}

// message streams text as an assistant message: item added, the deltas
// (with pause before each), item done.
func message(id string, chunks []string, pause time.Duration) []step {
	steps := []step{{event: map[string]any{"type": "response.output_item.added", "output_index": 0, "item": messageItem(id, "")}}}
	for _, c := range chunks {
		steps = append(steps, step{pause: pause, event: map[string]any{
			"type": "response.output_text.delta", "item_id": id, "output_index": 0, "content_index": 0, "delta": c,
		}})
	}
	steps = append(steps, step{event: map[string]any{
		"type": "response.output_item.done", "output_index": 0, "item": messageItem(id, strings.Join(chunks, "")),
	}})
	return steps
}

// Answer is a plain assistant message, sent at once.
func Answer(text string) Reply {
	return Reply{Name: "answer", events: func(_ Request, respID string, newID func(string) string) []step {
		steps := []step{created(respID)}
		steps = append(steps, message(newID("msg"), []string{text}, 0)...)
		return append(steps, completed(respID))
	}}
}

// Streamed sends text as an assistant message in about n deltas spread
// evenly over total: long streaming work.
func Streamed(text string, n int, total time.Duration) Reply {
	return Reply{Name: "streamed", events: func(_ Request, respID string, newID func(string) string) []step {
		chunks := split(text, n)
		pause := time.Duration(0)
		if len(chunks) > 0 {
			pause = total / time.Duration(len(chunks))
		}
		steps := []step{created(respID)}
		steps = append(steps, message(newID("msg"), chunks, pause)...)
		return append(steps, completed(respID))
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

// ShellArgs are the arguments of Codex's exec_command tool as the fake
// model sends them.
type ShellArgs struct {
	Cmd     string `json:"cmd"`
	Workdir string `json:"workdir,omitempty"`
	// SandboxPermissions "require_escalated" asks the user for approval
	// under approval_policy = "on-request".
	SandboxPermissions string `json:"sandbox_permissions,omitempty"`
	Justification      string `json:"justification,omitempty"`
}

func functionCall(respID, callID, itemID string, args ShellArgs) []step {
	b, _ := json.Marshal(args) // strings only: cannot fail
	return []step{created(respID), {event: map[string]any{
		"type": "response.output_item.done", "output_index": 0,
		"item": map[string]any{
			"type": "function_call", "id": itemID, "call_id": callID,
			"name": "exec_command", "arguments": string(b), "status": "completed",
		},
	}}, completed(respID)}
}

// Shell asks Codex to run cmd in workdir with its exec_command tool. The
// command's output comes back in the next model request, which takes the
// next scripted reply.
func Shell(cmd, workdir string) Reply {
	return shellReply("shell", func(Request) (ShellArgs, error) {
		return ShellArgs{Cmd: cmd, Workdir: workdir}, nil
	})
}

// EscalatedShell is Shell asking to run outside the sandbox: under
// approval_policy = "on-request" Codex asks the user first.
func EscalatedShell(cmd, workdir, justification string) Reply {
	return shellReply("escalated-shell", func(Request) (ShellArgs, error) {
		return ShellArgs{Cmd: cmd, Workdir: workdir, SandboxPermissions: "require_escalated", Justification: justification}, nil
	})
}

// WriteResponse follows the RESPONSE FILE INSTRUCTION of the prompt: it asks
// Codex to run the instruction's heredoc with answer as the response, in
// workdir. A prompt without the instruction gets a failed response saying so.
func WriteResponse(answer, workdir string) Reply {
	return shellReply("write-response", func(req Request) (ShellArgs, error) {
		cmd, err := ResponseCommand(req.UserText, answer)
		return ShellArgs{Cmd: cmd, Workdir: workdir}, err
	})
}

// WriteFirstResponse is WriteResponse for the first user message of the
// conversation that carries an instruction: a model answering the earliest
// of the prompts it was given (Codex hands it a prompt typed during a turn
// along with the one the turn was for).
func WriteFirstResponse(answer, workdir string) Reply {
	return shellReply("write-first-response", func(req Request) (ShellArgs, error) {
		for _, text := range req.UserTexts {
			if cmd, err := ResponseCommand(text, answer); err == nil {
				return ShellArgs{Cmd: cmd, Workdir: workdir}, nil
			}
		}
		return ShellArgs{}, errors.New("fakeopenai: no user message carries a RESPONSE FILE INSTRUCTION")
	})
}

// EscalatedWriteResponse is WriteResponse asking to run outside the
// sandbox, so that under approval_policy = "on-request" Codex asks the user
// before it writes the response file.
func EscalatedWriteResponse(answer, workdir, justification string) Reply {
	return shellReply("escalated-write-response", func(req Request) (ShellArgs, error) {
		cmd, err := ResponseCommand(req.UserText, answer)
		return ShellArgs{Cmd: cmd, Workdir: workdir, SandboxPermissions: "require_escalated", Justification: justification}, err
	})
}

func shellReply(name string, args func(Request) (ShellArgs, error)) Reply {
	return Reply{Name: name, events: func(req Request, respID string, newID func(string) string) []step {
		a, err := args(req)
		if err != nil {
			return []step{created(respID), failedStep(respID, err.Error())}
		}
		return functionCall(respID, newID("call"), newID("fc"), a)
	}}
}

func failedStep(respID, msg string) step {
	return step{event: map[string]any{
		"type": "response.failed",
		"response": map[string]any{
			"id":    respID,
			"error": map[string]any{"code": "server_error", "message": msg},
		},
	}}
}

// Failed answers with a stream that ends in response.failed carrying msg.
func Failed(msg string) Reply {
	return Reply{Name: "failed", events: func(_ Request, respID string, _ func(string) string) []step {
		return []step{created(respID), failedStep(respID, msg)}
	}}
}

// HTTPError answers with an HTTP error status and an OpenAI-style error
// body carrying msg, instead of a stream.
func HTTPError(status int, msg string) Reply {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "server_error", "code": nil}})
	return Reply{Name: "http-" + http.StatusText(status), Status: status, ErrorBody: string(b)}
}

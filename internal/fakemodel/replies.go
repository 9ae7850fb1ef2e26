package fakemodel

import (
	"errors"
	"maps"
	"net/http"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm"
)

// Reply is what the fake model answers to one request. Build one with
// Answer, Streamed, Stalled, Shell, WriteResponse, ToolUse, StreamError or
// HTTPError (ServerError, Overloaded, RateLimited), and slow it down with
// After. A reply says what the model does, not how: the server's API
// encodes it.
type Reply struct {
	// Name says which kind of reply answered a request (in Request.Reply).
	Name string
	// Delay passes before the first byte (headers included): a model that
	// is slow to start.
	Delay time.Duration
	// Status, when not 0 or 200, is sent with the API's error body (of
	// ErrorType and ErrorMessage) instead of a stream, and a retry-after
	// header when RetryAfter is set.
	Status       int
	ErrorType    string
	ErrorMessage string
	RetryAfter   time.Duration

	build func(req Request) ([]Part, error)
}

// Part is one piece of what the model says, sent after Pause: a piece of
// text (consecutive pieces are deltas of one message), a tool call, or an
// error that ends the stream.
type Part struct {
	Pause time.Duration
	Text  string
	Call  *Call
	Fault *Fault
}

// Call is a tool call. Shell calls go to the agent's shell tool (Codex's
// exec_command, Claude Code's Bash, Gemini CLI's run_shell_command), with
// Command and Description in the argument names that tool takes; other
// calls name their tool and give its Input as is.
type Call struct {
	Shell       bool
	Command     string
	Description string
	// Extra are more arguments of a shell call (Codex: workdir,
	// sandbox_permissions, justification).
	Extra map[string]any
	// Name and Input are a call to any other tool.
	Name  string
	Input any
}

// tool is the call as an agent whose shell tool is named shell takes it:
// a shell call with its command and, when it has one, its description;
// any other call to its own tool with its Input.
func (c *Call) tool(shell string) (name string, input any) {
	if !c.Shell {
		return c.Name, c.Input
	}
	in := map[string]any{"command": c.Command}
	if c.Description != "" {
		in["description"] = c.Description
	}
	return shell, in
}

// Fault is an error the API reports inside the stream.
type Fault struct{ Type, Message string }

// After returns r delayed by d before its first byte.
func (r Reply) After(d time.Duration) Reply {
	r.Delay = d
	r.Name += "+slow"
	return r
}

// parts is what the model says to req; a reply that cannot be built (a
// prompt without the instruction) becomes a fault saying why.
func (r Reply) parts(req Request) []Part {
	if r.build == nil {
		return nil
	}
	ps, err := r.build(req)
	if err != nil {
		return []Part{{Fault: &Fault{Type: "invalid_request_error", Message: err.Error()}}}
	}
	return ps
}

func fixed(name string, ps ...Part) Reply {
	return Reply{Name: name, build: func(Request) ([]Part, error) { return ps, nil }}
}

// Answer is a plain assistant message, sent at once.
func Answer(text string) Reply { return fixed("answer", Part{Text: text}) }

// Streamed sends text as an assistant message in about n deltas spread
// evenly over total: long streaming work.
func Streamed(text string, n int, total time.Duration) Reply {
	chunks := split(text, n)
	pause := time.Duration(0)
	if len(chunks) > 0 {
		pause = total / time.Duration(len(chunks))
	}
	ps := make([]Part, len(chunks))
	for i, c := range chunks {
		ps[i] = Part{Pause: pause, Text: c}
	}
	return fixed("streamed", ps...)
}

// Stalled starts a message with first, then sends nothing for d, then the
// rest: a stream that stops for a while mid-answer.
func Stalled(first string, d time.Duration, rest string) Reply {
	return fixed("stalled", Part{Text: first}, Part{Pause: d, Text: rest})
}

// split cuts s into about n pieces on rune boundaries.
func split(s string, n int) []string {
	r := []rune(s)
	if n < 1 {
		n = 1
	}
	size := max((len(r)+n-1)/n, 1)
	var out []string
	for i := 0; i < len(r); i += size {
		out = append(out, string(r[i:min(i+size, len(r))]))
	}
	return out
}

// Shell asks the agent to run cmd with its shell tool. The command's output
// comes back in the next turn request, which takes the next scripted reply.
func Shell(cmd, description string) Reply {
	return fixed("shell", Part{Call: &Call{Shell: true, Command: cmd, Description: description}})
}

// WriteResponse follows the RESPONSE FILE INSTRUCTION of the prompt: it asks
// the agent to run the instruction's heredoc, with answer as the response,
// through its shell tool. A prompt without the instruction gets a fault
// saying so.
func WriteResponse(answer string) Reply {
	return Reply{Name: "write-response", build: func(req Request) ([]Part, error) {
		cmd, err := ResponseCommand(req.Prompt(), answer)
		if err != nil {
			return nil, err
		}
		return []Part{{Call: &Call{Shell: true, Command: cmd, Description: "Write the response file"}}}, nil
	}}
}

// WriteFirstResponse is WriteResponse for the first user text of the
// conversation that carries an instruction: a model answering the earliest
// of the prompts it was given (a CLI hands it a prompt typed during a turn
// along with the one the turn was for).
func WriteFirstResponse(answer string) Reply {
	return Reply{Name: "write-first-response", build: func(req Request) ([]Part, error) {
		for _, text := range req.UserTexts {
			if cmd, err := ResponseCommand(text, answer); err == nil {
				return []Part{{Call: &Call{Shell: true, Command: cmd, Description: "Write the response file"}}}, nil
			}
		}
		return nil, errors.New("fakemodel: no user text carries a RESPONSE FILE INSTRUCTION")
	}}
}

// Escalated returns r with its shell calls asking to run outside Codex's
// sandbox (sandbox_permissions "require_escalated" and a justification):
// under approval_policy = "on-request" Codex asks the user first. Other
// APIs' shell tools ignore it.
func (r Reply) Escalated(justification string) Reply {
	return r.withExtra("escalated-", map[string]any{"sandbox_permissions": "require_escalated", "justification": justification})
}

// Prefixed returns r with prefix put before each shell command: a command
// that starts with a write (mkdir, touch) makes a CLI that lets read-only
// commands run unasked (Qwen Code runs a `cat` heredoc so) ask first.
func (r Reply) Prefixed(prefix string) Reply {
	return r.eachShell("prefixed-", func(c *Call) { c.Command = prefix + c.Command })
}

// In returns r with its shell calls run in workdir (Codex's exec_command
// takes a workdir).
func (r Reply) In(workdir string) Reply { return r.withExtra("", map[string]any{"workdir": workdir}) }

func (r Reply) withExtra(prefix string, extra map[string]any) Reply {
	return r.eachShell(prefix, func(c *Call) {
		merged := maps.Clone(c.Extra)
		if merged == nil {
			merged = map[string]any{}
		}
		maps.Copy(merged, extra)
		c.Extra = merged
	})
}

// eachShell returns r, its name prefixed, with change applied to a copy of
// each shell call it builds (r's own calls stay as they were).
func (r Reply) eachShell(prefix string, change func(*Call)) Reply {
	build := r.build
	r.Name = prefix + r.Name
	r.build = func(req Request) ([]Part, error) {
		ps, err := build(req)
		if err != nil {
			return nil, err
		}
		out := make([]Part, len(ps))
		for i, p := range ps {
			if p.Call != nil && p.Call.Shell {
				c := *p.Call
				change(&c)
				p.Call = &c
			}
			out[i] = p
		}
		return out, nil
	}
	return r
}

// ToolUse asks the agent to run the tool name with input (any JSON-
// encodable value), after an optional short text. The tool's result comes
// back in the next turn request, which takes the next scripted reply.
func ToolUse(name string, input any, text string) Reply {
	var ps []Part
	if text != "" {
		ps = append(ps, Part{Text: text})
	}
	return fixed("tool-"+name, append(ps, Part{Call: &Call{Name: name, Input: input}})...)
}

// StreamError starts a stream and ends it with the API's error event of the
// given type (overloaded_error, api_error, server_error, …) after partial
// text (may be "").
func StreamError(typ, msg, partial string) Reply {
	var ps []Part
	if partial != "" {
		ps = append(ps, Part{Text: partial})
	}
	return fixed("stream-"+typ, append(ps, Part{Fault: &Fault{Type: typ, Message: msg}})...)
}

// Failed is a stream that fails with msg (OpenAI's response.failed).
func Failed(msg string) Reply {
	r := StreamError("server_error", msg, "")
	r.Name = "failed"
	return r
}

// HTTPError answers with an HTTP error status and the API's error body
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

// Overloaded is HTTP 529 overloaded_error, as the Anthropic API sends it.
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

// ResponseCommand builds the heredoc command the RESPONSE FILE INSTRUCTION
// in prompt asks for (its last one), with answer as the response: the
// instruction's receipt as the delimiter and the first line, as a model
// that follows it writes. It fails when the prompt carries no instruction.
func ResponseCommand(prompt, answer string) (string, error) {
	t, ok := handoff.ParseInstruction(prompt)
	if !ok {
		return "", errors.New("fakemodel: the prompt has no RESPONSE FILE INSTRUCTION heredoc")
	}
	return strings.TrimSuffix(t.Command(answer), "\n"), nil
}

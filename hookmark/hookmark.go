// Package hookmark turns an agent CLI's lifecycle hook into a marker file: a
// completion signal that does not depend on reading the screen.
//
// Claude Code and Gemini CLI run a configured command for each hook event
// and pass the event as JSON on stdin (hook_event_name, session_id, cwd,
// and per event last_assistant_message or prompt_response, error, prompt,
// tool_name …). Codex's notify program gets a JSON argument of the same
// spirit ({"type": "agent-turn-complete", "last-assistant-message": …}).
// Copilot CLI's agentStop hook gets {"sessionId", "stopReason",
// "transcriptPath", …}: no event name, no last message. Cline's hooks get
// {"hookName": "agent_end", "turn": {"outputText": …}, …} on stdin.
// Parse reads each
// into a Marker; Write stores it in a folder the orchestrator chose for the
// agent (one folder per agent: hooks do not know the role):
//
//	<dir>/<event>.json   the newest marker of each kind, replaced atomically
//	<dir>/events.jsonl   every marker, appended, one JSON object a line
//
// `handoff-fsm hook --dir DIR` is the command to register as the hook; it
// never blocks the agent (exit 0, or 1 on failure; never 2, which would
// stop Claude Code from ending its turn) and prints nothing on stdout.
package hookmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/atomicfile"
	"github.com/handoff-fsm/handoff-fsm/internal/jsonlines"
)

// Event is what a marker says happened, whatever the CLI called it.
type Event string

// The events the engine may act on.
const (
	// Submitted: the agent took a prompt (Claude Code: UserPromptSubmit;
	// Gemini CLI: BeforeAgent).
	Submitted Event = "submitted"
	// Stopped: the turn ended normally (Claude Code: Stop; Gemini CLI:
	// AfterAgent; Codex notify: agent-turn-complete). LastMessage is the
	// agent's last message.
	Stopped Event = "stopped"
	// Failed: the turn ended on an error after the CLI's retries (Claude
	// Code: StopFailure). Error names it; LastMessage is the error text the
	// screen shows.
	Failed Event = "failed"
	// Waiting: the agent waits for the user (Claude Code: PermissionRequest,
	// Notification).
	Waiting Event = "waiting"
	// Other: any other hook; kept in events.jsonl only.
	Other Event = "other"
)

// Marker is one hook call, as stored.
type Marker struct {
	Event Event `json:"event"`
	// Hook is the CLI's own name for the event (hook_event_name or type).
	Hook        string    `json:"hook"`
	At          time.Time `json:"at"`
	Session     string    `json:"session_id,omitempty"`
	Cwd         string    `json:"cwd,omitempty"`
	LastMessage string    `json:"last_message,omitempty"`
	Error       string    `json:"error,omitempty"`
	// Detail is a short event-specific note: the tool a permission is asked
	// for, a notification's message, the submitted prompt's first line.
	Detail string `json:"detail,omitempty"`
}

// maxInput bounds what Parse reads: a hook's JSON carries the last message
// and (UserPromptSubmit) the prompt, not the transcript.
const maxInput = 8 << 20

// ErrNotAHook: the input is not a hook event the package knows how to read.
var ErrNotAHook = errors.New("hookmark: not a hook event (no hook_event_name or type)")

// Parse reads one hook call's JSON (Claude Code's stdin, or Codex's notify
// argument) into a Marker stamped now.
func Parse(r io.Reader, now time.Time) (Marker, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxInput))
	if err != nil {
		return Marker{}, fmt.Errorf("hookmark: read: %w", err)
	}
	var in struct {
		HookEventName string `json:"hook_event_name"`
		Type          string `json:"type"`
		SessionID     string `json:"session_id"`
		Cwd           string `json:"cwd"`
		LastMessage   string `json:"last_assistant_message"`
		Response      string `json:"prompt_response"`
		CodexLast     string `json:"last-assistant-message"`
		Error         any    `json:"error"`
		ErrorDetails  string `json:"error_details"`
		ToolName      string `json:"tool_name"`
		Message       string `json:"message"`
		Prompt        string `json:"prompt"`
		ThreadID      string `json:"thread-id"`
		// Copilot CLI's agentStop names no event: its camelCase session
		// and its stop reason say what it is.
		SessionIDCamel string `json:"sessionId"`
		StopReason     string `json:"stopReason"`
		// Cline's hooks: hookName (agent_end, agent_error, prompt_submit, …)
		// and the turn's text.
		ClineHook string `json:"hookName"`
		ClineTurn struct {
			OutputText string `json:"outputText"`
		} `json:"turn"`
		ClineTask string `json:"taskId"`
	}
	if err := json.Unmarshal(b, &in); err != nil {
		return Marker{}, fmt.Errorf("hookmark: %w", err)
	}
	m := Marker{At: now.UTC(), Session: in.SessionID, Cwd: in.Cwd, LastMessage: in.LastMessage}
	switch {
	case in.HookEventName != "":
		m.Hook = in.HookEventName
	case in.ClineHook != "":
		m.Hook = in.ClineHook
		m.LastMessage = in.ClineTurn.OutputText
		if m.Session == "" {
			m.Session = in.ClineTask
		}
	case in.Type != "":
		m.Hook = in.Type
		m.LastMessage = in.CodexLast
		if m.Session == "" {
			m.Session = in.ThreadID
		}
	case in.StopReason != "" && in.SessionIDCamel != "":
		m.Hook, m.Session = "agentStop", in.SessionIDCamel
	default:
		return Marker{}, ErrNotAHook
	}
	switch m.Hook {
	case "Stop", "agent-turn-complete", "agentStop", "agent_end":
		m.Event = Stopped
	case "AfterAgent":
		m.Event = Stopped
		m.LastMessage = in.Response
	case "StopFailure", "agent_error":
		m.Event = Failed
		m.Error = errorText(in.Error, in.ErrorDetails)
	case "PermissionRequest":
		m.Event = Waiting
		m.Detail = in.ToolName
	case "Notification":
		m.Event = Waiting
		m.Detail = in.Message
	case "UserPromptSubmit", "BeforeAgent":
		m.Event = Submitted
		m.Detail = firstLine(in.Prompt)
	default:
		m.Event = Other
	}
	return m, nil
}

// firstLine is the prompt's first line of text. Claude Code wraps a pasted
// prompt in "<pasted_content id=…>" tags (and blank lines) before it hands
// it to hooks and the model; the tag is not the prompt.
func firstLine(prompt string) string {
	p := strings.TrimLeft(prompt, " \t\r\n")
	if strings.HasPrefix(p, "<pasted_content") {
		_, p, _ = strings.Cut(p, "\n")
		p = strings.TrimLeft(p, " \t\r\n")
	}
	line, _, _ := strings.Cut(p, "\n")
	return strings.TrimSpace(line)
}

// errorText renders StopFailure's error (a string such as "server_error",
// or an object) and its details.
func errorText(e any, details string) string {
	var s string
	switch v := e.(type) {
	case nil:
	case string:
		s = v
	default:
		b, _ := json.Marshal(v)
		s = string(b)
	}
	if details != "" {
		if s != "" {
			s += ": "
		}
		s += details
	}
	return s
}

// Path is where Write keeps the latest marker of ev in dir.
func Path(dir string, ev Event) string { return filepath.Join(dir, string(ev)+".json") }

// Write stores m in dir (created if needed): appended to events.jsonl and,
// unless it is Other, as <event>.json, replaced atomically (a temporary
// file renamed over it), so a reader never sees half a marker. It returns
// the path of the <event>.json file ("" for Other).
func Write(dir string, m Marker) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("hookmark: %w", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("hookmark: %w", err)
	}
	if err := jsonlines.Append(filepath.Join(dir, "events.jsonl"), m, false); err != nil {
		return "", fmt.Errorf("hookmark: events.jsonl: %w", err)
	}
	if m.Event == Other {
		return "", nil
	}
	path := Path(dir, m.Event)
	if err := atomicfile.Write(path, append(b, '\n'), 0o600); err != nil {
		return "", fmt.Errorf("hookmark: %w", err)
	}
	return path, nil
}

// Read returns the newest marker of the kind ev in dir; ok is false when
// there is none.
func Read(dir string, ev Event) (m Marker, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, string(ev)+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return Marker{}, false, nil
	}
	if err != nil {
		return Marker{}, false, fmt.Errorf("hookmark: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return Marker{}, false, fmt.Errorf("hookmark: %s: %w", ev, err)
	}
	return m, true, nil
}

// Events returns every marker of dir's events.jsonl, oldest first.
func Events(dir string) ([]Marker, error) {
	out, err := jsonlines.Read[Marker](filepath.Join(dir, "events.jsonl"), maxInput+4096)
	if err != nil {
		return out, fmt.Errorf("hookmark: %w", err)
	}
	return out, nil
}

// Package mcpserver offers handoff-fsm's dispatches as MCP tools, so a
// supervising agent (Claude Code, Codex, Gemini CLI, …) can hand a prompt
// to another agent in another tmux pane and get its answer back:
//
//   - handoff: send and wait; the answer is the tool's result, the
//     transitions are progress notifications;
//   - assign: send and return a dispatch id at once (several workers in
//     parallel);
//   - dispatch_status: a dispatch by id, optionally waiting for its end;
//   - list_panes: the board (every pane, its provider and status).
//
// The tools hold no dispatch logic: each call is one dispatch of the
// engine (serve.Local for a service in this process, serve.Client for a
// running `handoff-fsm serve`), with its slot lock, archive, outcome and
// exit meaning, like any other.
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// Engine runs the dispatches: serve.Local or *serve.Client.
type Engine = serve.Engine

// Options configure the server. The zero value is usable.
type Options struct {
	// Socket, Workdir and Provider are used when a tool call leaves them
	// out: the tmux server's socket name, the folder the response files
	// live under (the supervising agent's own, typically), the provider.
	Socket   string
	Workdir  string
	Provider string
	// Config is the wait's settings for every dispatch (nil: the spec's
	// defaults).
	Config *handoff.Config
	// Version is reported to the client in the initialize handshake.
	Version string
	// Logger gets the server's own messages; nil discards them.
	Logger *slog.Logger
}

// Tool names, as the client lists them (Claude Code shows them as
// mcp__<server name>__<tool>).
const (
	ToolHandoff        = "handoff"
	ToolAssign         = "assign"
	ToolDispatchStatus = "dispatch_status"
	ToolListPanes      = "list_panes"
	ToolWaitAny        = "wait_any"
)

// New returns the MCP server with the five tools on e. Run it with
// (*mcp.Server).Run on a transport (mcp.StdioTransport for `handoff-fsm mcp`).
func New(e Engine, o Options) *mcp.Server {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	t := &tools{e: e, o: o}
	s := mcp.NewServer(&mcp.Implementation{Name: "handoff-fsm", Version: o.Version}, &mcp.ServerOptions{
		Logger: o.Logger,
		Instructions: "Hand work to other coding agents running in tmux panes. list_panes shows the panes and " +
			"whether each agent is ready; handoff sends a prompt to one and returns its answer; assign starts " +
			"one without waiting (dispatch_status fetches the answer later), so several agents can work at once; " +
			"wait_any wakes you when the first of them has finished.",
	})
	mcp.AddTool(s, &mcp.Tool{Name: ToolHandoff, Description: "Send a prompt to the coding agent in a tmux pane, " +
		"wait until it has finished, and return its answer (the file it was told to write). While it works, " +
		"each state change is sent as a progress notification. A failure (the agent showed an error, went quiet " +
		"without answering, timed out, or the pane is gone) is an error result saying how it ended and what " +
		"the screen said."}, t.handoff)
	mcp.AddTool(s, &mcp.Tool{Name: ToolAssign, Description: "Send a prompt to the coding agent in a tmux pane " +
		"and return a dispatch id at once, without waiting: use dispatch_status with the id for the answer. " +
		"Assign to several panes to have several agents work in parallel."}, t.assign)
	mcp.AddTool(s, &mcp.Tool{Name: ToolDispatchStatus, Description: "The state of a dispatch by id (from assign): " +
		"running or final, its outcome and, once done, the agent's answer. wait_seconds waits up to that long " +
		"for it to end."}, t.status)
	mcp.AddTool(s, &mcp.Tool{Name: ToolListPanes, Description: "The board of a tmux server: every pane, the agent " +
		"CLI in it (provider), its status (idle, processing, waiting_user_answer, completed, error) and the " +
		"dispatch running on it."}, t.listPanes)
	mcp.AddTool(s, &mcp.Tool{Name: ToolWaitAny, Description: "Wait for the first of several dispatches (ids from " +
		"assign) to end, without polling, and return it with its answer, plus the ids still running; all: true " +
		"waits for every one instead."}, t.waitAny)
	return s
}

// WaitArgs are wait_any's arguments.
type WaitArgs struct {
	IDs []string `json:"ids" jsonschema:"the dispatch ids assign returned"`
	All bool     `json:"all,omitempty" jsonschema:"wait for every one to end, not the first"`
}

// WaitResult is wait_any's result: the dispatches that had ended when it
// returned, in the order asked, and the ids still running.
type WaitResult struct {
	Ended   []Status `json:"ended"`
	Pending []string `json:"pending"`
}

func (t *tools) waitAny(ctx context.Context, _ *mcp.CallToolRequest, a WaitArgs) (*mcp.CallToolResult, WaitResult, error) {
	if len(a.IDs) == 0 {
		return nil, WaitResult{}, errors.New("ids: give the dispatch ids assign returned")
	}
	mode := serve.WaitAny
	if a.All {
		mode = serve.WaitAll
	}
	w, err := t.e.WaitFor(ctx, a.IDs, mode, 0)
	if err != nil {
		return nil, WaitResult{}, err
	}
	r := WaitResult{Ended: []Status{}, Pending: w.Pending}
	for _, v := range w.Ended {
		r.Ended = append(r.Ended, statusOf(v))
	}
	return nil, r, nil
}

// DispatchArgs are the arguments of handoff and assign.
type DispatchArgs struct {
	Target   string `json:"target" jsonschema:"the agent's tmux pane: a pane id such as %3, or session:window.pane"`
	Socket   string `json:"socket,omitempty" jsonschema:"the tmux server's socket name (tmux -L); empty for the default server or the one configured"`
	Role     string `json:"role" jsonschema:"the role the agent answers as; its response file is named after it: analyst, analyst_review, programmer, programmer_review, tester, or a name of your own (letters, digits, _ and -)"`
	Workdir  string `json:"workdir,omitempty" jsonschema:"absolute folder the response files live under (default: the server's)"`
	Prompt   string `json:"prompt" jsonschema:"the task for the agent"`
	Provider string `json:"provider,omitempty" jsonschema:"the agent CLI in the pane: a provider name (codex, claude, gemini, qwen, …: handoff-fsm providers) or auto, the provider that recognises the pane (default: the server's)"`
}

type tools struct {
	e Engine
	o Options
}

// body is the service's request for a tool call's arguments.
func (t *tools) body(a DispatchArgs) serve.SubmitBody {
	b := serve.SubmitBody{Pane: dispatchstate.Pane{Target: a.Target, Socket: a.Socket, Provider: a.Provider}, Role: a.Role, Workdir: a.Workdir, Prompt: a.Prompt,
		Config: t.o.Config}
	if b.Socket == "" {
		b.Socket = t.o.Socket
	}
	if b.Workdir == "" {
		b.Workdir = t.o.Workdir
	}
	if b.Provider == "" {
		b.Provider = t.o.Provider
	}
	return b
}

// handoff sends and waits. Progress: one notification per event of the
// dispatch (accepted, each transition, the agent waiting for the user,
// finished). A call the client cancels cancels the dispatch; what the
// agent wrote is archived by the engine.
func (t *tools) handoff(ctx context.Context, req *mcp.CallToolRequest, a DispatchArgs) (*mcp.CallToolResult, any, error) {
	v, err := t.e.Submit(ctx, t.body(a))
	if err != nil {
		return nil, nil, fmt.Errorf("not dispatched: %w", err)
	}
	// The dispatch's own events from its acceptance on: none is missed,
	// and no other dispatch's is carried.
	sub, cancelSub := context.WithCancel(ctx)
	defer cancelSub()
	events, err := t.e.Events(sub, v.ID, v.AcceptedSeq)
	if err != nil {
		// Progress only: the wait still says how it ends.
		t.o.Logger.Warn("handoff: no progress from the engine", "id", v.ID, "err", err)
		events = nil
	}
	t.o.Logger.Info("handoff: dispatch accepted", "id", v.ID, "target", v.Target, "role", v.Role,
		"progress_token", req.Params.GetProgressToken() != nil)
	progress := t.progress(ctx, req)
	progress(fmt.Sprintf("dispatch %s accepted for pane %s (role %s)", v.ID, v.Target, v.Role))
	final := make(chan result, 1)
	go func() {
		v, err := wait(ctx, t.e, v.ID)
		final <- result{v, err}
	}()
	for {
		select {
		case e, ok := <-events:
			if !ok {
				events = nil // the stream ended: the wait still says how it ends
				continue
			}
			// The ending is told from the final view below: its event
			// can come after the wait's answer.
			if e.ID == v.ID && e.Type != "accepted" && e.Type != "finished" {
				progress(describe(e))
			}
		case r := <-final:
			if ctx.Err() != nil {
				return nil, nil, t.cancel(v.ID, ctx.Err())
			}
			if r.err != nil {
				return nil, nil, fmt.Errorf("dispatch %s: %w", v.ID, r.err)
			}
			relayRest(events, v.ID, progress)
			progress(describe(serve.Event{Type: "finished", Outcome: r.v.Outcome, Exit: r.v.Exit, Message: r.v.Error}))
			return t.answer(ctx, r.v), nil, nil
		}
	}
}

// relayRest relays the dispatch's events the stream still holds once its
// wait has answered (the last transition can come after the answer), up
// to its finished event, the stream's end, or a second.
func relayRest(events <-chan serve.Event, id string, progress func(string)) {
	timeout := time.After(time.Second)
	for events != nil {
		select {
		case e, ok := <-events:
			if !ok || e.ID == id && e.Type == "finished" {
				return
			}
			if e.ID == id && e.Type != "accepted" {
				progress(describe(e))
			}
		case <-timeout:
			return
		}
	}
}

type result struct {
	v   serve.View
	err error
}

// wait returns dispatch id once it is over, or ctx's end.
func wait(ctx context.Context, e Engine, id string) (serve.View, error) {
	for {
		v, err := e.Get(ctx, id, time.Minute)
		if ctx.Err() != nil {
			return v, ctx.Err()
		}
		if err != nil || v.Final {
			return v, err
		}
	}
}

// cancel ends dispatch id after its tool call was cancelled.
func (t *tools) cancel(id string, cause error) error {
	ctx, done := context.WithTimeout(context.Background(), 30*time.Second)
	defer done()
	v, err := t.e.Cancel(ctx, id)
	if err != nil {
		t.o.Logger.Error("a cancelled tool call's dispatch could not be cancelled", "id", id, "error", err)
		return fmt.Errorf("dispatch %s: the call was cancelled (%v) but the dispatch could not be: %w", id, cause, err)
	}
	t.o.Logger.Info("tool call cancelled: dispatch cancelled", "id", id, "archived", v.ArchivedPath)
	return fmt.Errorf("dispatch %s cancelled with its tool call (%v)", id, cause)
}

// progress returns a function sending a progress notification, or one
// doing nothing when the client asked for none (no progress token).
func (t *tools) progress(ctx context.Context, req *mcp.CallToolRequest) func(msg string) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return func(string) {}
	}
	n := 0.0
	return func(msg string) {
		n++
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: n, Message: msg}); err != nil {
			t.o.Logger.Debug("progress notification not sent", "error", err)
		}
	}
}

// describe is an event as a progress message.
func describe(e serve.Event) string {
	switch e.Type {
	case "transition":
		return fmt.Sprintf("%s → %s (%s, status %s) at %.1fs", e.From, e.To, e.Event, e.Status, e.At)
	case "attention":
		return "the agent waits for the user: " + e.Message
	case "finished":
		s := "finished: " + e.Outcome
		if e.Exit != nil {
			s += fmt.Sprintf(" (exit %d)", *e.Exit)
		}
		if e.Message != "" {
			s += ": " + e.Message
		}
		return s
	}
	if e.Message != "" {
		return e.Type + ": " + e.Message
	}
	return e.Type
}

// answer is the tool result of a final dispatch: the agent's response as
// is when done, else an error result saying how it ended and what the
// screen said.
func (t *tools) answer(ctx context.Context, v serve.View) *mcp.CallToolResult {
	if v.Outcome == "done" && v.Whole {
		r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: v.Content}}}
		if v.Source == "fallback" {
			r.Content = append(r.Content, &mcp.TextContent{Text: "(note from handoff-fsm: the agent wrote no response file; " +
				"the text above is the last output on its screen)"})
		}
		return r
	}
	text := failure(v)
	if screen := t.screen(ctx, v); screen != "" {
		text += "\nthe pane now: " + screen
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// screen is what v's pane shows now, as the board reads it ("" when it
// cannot be read).
func (t *tools) screen(ctx context.Context, v serve.View) string {
	q := url.Values{"target": {v.Target}, "provider": {v.Provider}}
	if v.Socket != "" {
		q.Set("socket", v.Socket)
	}
	if v.SocketPath != "" {
		q.Set("socket_path", v.SocketPath)
	}
	rows, err := t.e.Panes(ctx, q)
	if err != nil || len(rows) == 0 {
		return ""
	}
	r := rows[0]
	s := string(r.Status) + " (" + r.Reason + ")"
	if r.Detail != "" {
		s += ": " + r.Detail
	}
	return s
}

// failure says how a dispatch that brought no answer ended.
func failure(v serve.View) string {
	var b strings.Builder
	fmt.Fprintf(&b, "dispatch %s to pane %s (role %s) ended: %s", v.ID, v.Target, v.Role, v.Outcome)
	if v.Report.Error != "" {
		fmt.Fprintf(&b, " (%s)", v.Report.Error)
	}
	if v.Exit != nil {
		fmt.Fprintf(&b, ", exit %d", *v.Exit)
	}
	if v.Error != "" {
		fmt.Fprintf(&b, "\nerror: %s", v.Error) // a wait error quotes what the screen said
	}
	if v.ArchivedPath != "" {
		fmt.Fprintf(&b, "\nwhat the agent wrote is archived at %s", v.ArchivedPath)
	}
	return b.String()
}

// StatusArgs are dispatch_status's arguments.
type StatusArgs struct {
	ID          string  `json:"id" jsonschema:"the dispatch id assign returned"`
	WaitSeconds float64 `json:"wait_seconds,omitempty" jsonschema:"wait up to this many seconds for the dispatch to end (at most 600)"`
}

// Status is a dispatch as dispatch_status and assign return it.
type Status struct {
	ID    string `json:"id"`
	State string `json:"state"`
	Final bool   `json:"final"`
	// Outcome is done, failed, cancelled or error once final.
	Outcome string `json:"outcome,omitempty"`
	// Response is the agent's answer once done.
	Response *string `json:"response,omitempty"`
	// Source is file, or fallback (the screen's last output).
	Source string `json:"source,omitempty"`
	// Exit is what `handoff-fsm send` would have exited with.
	Exit      *int   `json:"exit,omitempty"`
	Error     string `json:"error,omitempty"`
	ErrorKind string `json:"error_kind,omitempty"`
	// NotSubmitted: the dispatch failed with its prompt never submitted,
	// still in the agent's composer (handoff.ErrNotSubmitted).
	NotSubmitted bool     `json:"not_submitted,omitempty"`
	Role         string   `json:"role"`
	Target       string   `json:"target"`
	Provider     string   `json:"provider"`
	Workdir      string   `json:"workdir"`
	ArchivedPath string   `json:"archived_path,omitempty"`
	Transitions  []string `json:"transitions,omitempty"`
}

func statusOf(v serve.View) Status {
	s := Status{ID: v.ID, State: v.State, Final: v.Final, Outcome: v.Outcome, Source: v.Source, Exit: v.Exit,
		Error: v.Error, ErrorKind: v.Report.Error, NotSubmitted: v.NotSubmitted, Role: v.Role, Target: v.Target, Provider: v.Provider,
		Workdir: v.Workdir, ArchivedPath: v.ArchivedPath}
	if v.Outcome == "done" && v.Whole {
		s.Response = &v.Content
	}
	for _, tr := range v.Transitions {
		s.Transitions = append(s.Transitions, fmt.Sprintf("%.1fs %s → %s (%s, %s)", tr.At, tr.From, tr.To, tr.Event, tr.Status))
	}
	return s
}

// assign sends and returns at once.
func (t *tools) assign(ctx context.Context, _ *mcp.CallToolRequest, a DispatchArgs) (*mcp.CallToolResult, Status, error) {
	v, err := t.e.Submit(ctx, t.body(a))
	if err != nil {
		return nil, Status{}, fmt.Errorf("not dispatched: %w", err)
	}
	t.o.Logger.Info("assign: dispatch accepted", "id", v.ID, "target", v.Target, "role", v.Role)
	return nil, statusOf(v), nil
}

// status looks at a dispatch, waiting as asked.
func (t *tools) status(ctx context.Context, _ *mcp.CallToolRequest, a StatusArgs) (*mcp.CallToolResult, Status, error) {
	if a.ID == "" {
		return nil, Status{}, errors.New("id: missing (the id assign returned)")
	}
	if a.WaitSeconds < 0 || a.WaitSeconds > serve.MaxWait.Seconds() {
		return nil, Status{}, fmt.Errorf("wait_seconds: %v is not between 0 and %v", a.WaitSeconds, serve.MaxWait.Seconds())
	}
	v, err := t.e.Get(ctx, a.ID, time.Duration(a.WaitSeconds*float64(time.Second)))
	if err != nil {
		return nil, Status{}, err
	}
	return nil, statusOf(v), nil
}

// PanesArgs are list_panes's arguments.
type PanesArgs struct {
	Socket   string `json:"socket,omitempty" jsonschema:"the tmux server's socket name (tmux -L); empty for the one configured"`
	Provider string `json:"provider,omitempty" jsonschema:"read every pane as this agent CLI (a provider name); empty or auto: the provider that recognises each pane"`
}

// Pane is one row of the board.
type Pane struct {
	ID       string `json:"pane"`
	Target   string `json:"target"`
	Command  string `json:"command"`
	Provider string `json:"provider"`
	Status   string `json:"status"`
	Reason   string `json:"reason"`
	Detail   string `json:"detail,omitempty"`
	Gone     bool   `json:"gone,omitempty"`
	Dispatch string `json:"dispatch,omitempty"`
}

// Board is list_panes's result.
type Board struct {
	Socket string `json:"socket,omitempty"`
	Panes  []Pane `json:"panes"`
}

func (t *tools) listPanes(ctx context.Context, _ *mcp.CallToolRequest, a PanesArgs) (*mcp.CallToolResult, Board, error) {
	if a.Socket == "" {
		a.Socket = t.o.Socket
	}
	q := url.Values{}
	if a.Socket != "" {
		q.Set("socket", a.Socket)
	}
	if a.Provider != "" {
		q.Set("provider", a.Provider)
	}
	rows, err := t.e.Panes(ctx, q)
	if err != nil {
		return nil, Board{}, err
	}
	b := Board{Socket: a.Socket, Panes: []Pane{}}
	for _, r := range rows {
		b.Panes = append(b.Panes, Pane{ID: r.ID, Target: r.Target, Command: r.Command, Provider: r.Provider,
			Status: string(r.Status), Reason: r.Reason, Detail: r.Detail, Gone: r.Gone, Dispatch: r.Dispatch})
	}
	return nil, b, nil
}

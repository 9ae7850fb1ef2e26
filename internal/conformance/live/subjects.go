// Package live holds the conformance cases that run on a real agent CLI
// in a private tmux server against the fake model server, and each
// provider's descriptor for them (Subject). The end-to-end suite (e2e/)
// and `handoff-fsm doctor` run these same cases on these same
// descriptors, so what the doctor tells a user and what CI proves cannot
// drift apart.
//
// A new provider joins by adding its Subject to subjects (below), next to
// its realcli descriptor (internal/real<name>) and its entry in the
// provider registry (provider/); doctor and the e2e suite pick it up.
package live

import (
	"context"
	"slices"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/realclaude"
	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/internal/realcline"
	"github.com/handoff-fsm/handoff-fsm/internal/realcodex"
	"github.com/handoff-fsm/handoff-fsm/internal/realcontinue"
	"github.com/handoff-fsm/handoff-fsm/internal/realcopilot"
	"github.com/handoff-fsm/handoff-fsm/internal/realdroid"
	"github.com/handoff-fsm/handoff-fsm/internal/realgemini"
	"github.com/handoff-fsm/handoff-fsm/internal/realkilo"
	"github.com/handoff-fsm/handoff-fsm/internal/realkimi"
	"github.com/handoff-fsm/handoff-fsm/internal/realomp"
	"github.com/handoff-fsm/handoff-fsm/internal/realopencode"
	"github.com/handoff-fsm/handoff-fsm/internal/realpi"
	"github.com/handoff-fsm/handoff-fsm/internal/realqwen"
)

// Subject is one provider's real CLI as the cases drive it: how to start
// it on a fake model, and what differs between CLIs (the grace a loaded
// machine needs, the errors the API can send, how a confirmation is asked
// for and answered).
type Subject struct {
	// CLI is the CLI's descriptor; its Name is the provider's.
	CLI realcli.CLI
	// API is the fake model's wire protocol for this CLI.
	API fakemodel.API
	// Start runs the CLI (common says where, with what binary and on
	// which model) in a private tmux server, set up as s asks.
	Start func(ctx context.Context, common realcli.Common, s Setup) (*realcli.Session, error)
	// Prepare, when set, is applied to a fresh fake model before the CLI
	// starts (a side channel's reply, e.g. OpenCode's title request).
	Prepare func(*fakemodel.Server)
	// Config is the dispatch's config (strict or fallback).
	Config func(strict bool) handoff.Config
	// APIErrors are the failed requests that must end as a terminal error
	// quoting what the screen says; the first is doctor's.
	APIErrors []APIError
	// ErrorReport, when set, is the file (a glob) the CLI writes into its
	// temporary folder on a failed request: the API-error case checks it
	// went into the session's own (realcli.TempDir), which is removed with
	// the home, so that doctor leaves no file behind.
	ErrorReport string
	// Confirm is the reply that makes the CLI (started with Setup.Ask) ask
	// the user before it writes the response file; Approve the key that
	// says yes.
	Confirm func(answer string) fakemodel.Reply
	Approve string
}

// Setup is what a case asks of a CLI's start.
type Setup struct {
	// Ask: the CLI asks before running a command (its confirmation dialog).
	Ask bool
	// Retries: how often the CLI retries a failed request.
	Retries int
}

// APIError is one failing request and the text the error must quote.
type APIError struct {
	Name    string
	Retries int
	Replies []fakemodel.Reply
	Detail  string
}

// TmuxTerminal is what a tmux pane gives a CLI when nothing else sets its
// environment: TERM tmux-256color and no COLORTERM (a server started over
// SSH or by a service). The API-error, confirmation and delivery cases run
// there, the others in the harness's terminal, so every CLI is read in
// two terminals end to end (Gemini CLI draws no frames without COLORTERM).
var TmuxTerminal = realcli.Terminal{Term: "tmux-256color"}

// ReadyPatience is how long a case waits for a CLI to get ready, and
// (Config) for a dispatch's answer: five minutes. Both are bounds: a fast
// CLI ends them at once. A fresh OpenCode's first start took over its own
// 90 s at a load of 20.
const ReadyPatience = 5 * time.Minute

// Config keeps each real-CLI scenario short: the fake model answers in
// milliseconds, so a 250 ms poll and a grace of a few seconds are plenty.
// The whole wait is a bound, not a speed: five minutes, or three graces
// for a long grace (the slow first byte keeps the model silent for over
// two). A case that goes right ends on its response file or its grace;
// a minute failed right cases on a loaded machine, where OpenCode beside
// two burners and a CI run took over a minute per turn, and doctor would
// tell a user on a busy laptop that a CLI is read wrong.
func Config(grace time.Duration) func(strict bool) handoff.Config {
	return func(strict bool) handoff.Config {
		cfg := handoff.DefaultConfig()
		cfg.Poll = 250 * time.Millisecond
		cfg.IdleGrace = grace
		cfg.ResponseTimeout = max(ReadyPatience, 3*grace)
		cfg.Fallback = !strict
		return cfg
	}
}

// The graces: Codex shows a taken prompt at once; on a loaded two-core
// machine Claude Code takes up to about five seconds, and the Node CLIs
// (Gemini CLI, Qwen Code, OpenCode, pi) seconds to draw a prompt they took.
const (
	codexGrace  = 3 * time.Second
	claudeGrace = 6 * time.Second
	nodeGrace   = 8 * time.Second
	// slowGrace bounds a slow CLI's own grace in these scenarios (Kilo
	// Code's CLI.Grace is 90 s): a fresh Kilo took 10–16 s to show its
	// first turn beside two burners, well inside a 60 s startup guard,
	// and the slow first byte's case waits over two graces (3 min at 90 s,
	// the e2e package's longest test).
	slowGrace = 30 * time.Second
)

// badRequest is the API error of the Node CLIs: a 400 they show at once,
// without retrying, quoted as detail.
func badRequest(kind, detail string) []APIError {
	return []APIError{{"http-400", 0, []fakemodel.Reply{fakemodel.HTTPError(400, kind, "Request contains an invalid argument (fake).")}, detail}}
}

// invalidRequest is badRequest of the usual error type.
func invalidRequest(detail string) []APIError { return badRequest("invalid_request_error", detail) }

// Subjects lists every provider's Subject, in the registry's order of
// names. A Subject without Config has nodeGrace's (or its CLI's Grace,
// when longer, up to slowGrace); without Confirm, the
// response file's own heredoc is what the CLI started with Setup.Ask asks
// about.
func Subjects() []Subject {
	subjects := append(append(askingSubjects(), approvalModeSubjects()...), piSubject(), claudeSubject(), codexSubject(),
		opencodeSubject(realkilo.CLI, func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
			return realkilo.Start(ctx, realkilo.Options{Common: c, Ask: s.Ask})
		}),
		opencodeSubject(realopencode.CLI, func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
			return realopencode.Start(ctx, realopencode.Options{Common: c, Ask: s.Ask})
		}))
	for i := range subjects {
		if subjects[i].Config == nil {
			// A CLI slow to show a turn it took (Kilo Code: its CLI.Grace)
			// keeps its own grace: the Node CLIs' 8 s failed every Kilo
			// dispatch beside two CPU burners (16 s of a taken prompt not
			// drawn yet, StartupTimeout).
			subjects[i].Config = Config(max(nodeGrace, min(subjects[i].CLI.Grace, slowGrace)))
		}
		if subjects[i].Confirm == nil {
			subjects[i].Confirm = fakemodel.WriteResponse
		}
	}
	slices.SortFunc(subjects, func(a, b Subject) int { return strings.Compare(a.CLI.Name, b.CLI.Name) })
	return subjects
}

// askingSubjects are the Node CLIs that, started to ask, ask before every
// command in a dialog of their own, one row a CLI with what differs: they take only their Common
// and whether to ask (a 400 is not retried: Setup.Retries has nothing to
// set), and show the 400 at once.
func askingSubjects() []Subject {
	return []Subject{
		{
			CLI: realcline.CLI, API: fakemodel.ChatCompletions{ShellTool: realcline.ShellTool, Commands: true},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realcline.Start(ctx, realcline.Options{Common: c, Ask: s.Ask})
			},
			// "* Error: Request contains an invalid argument (fake)."
			APIErrors: invalidRequest("Error: Request contains an invalid argument (fake)."),
			// With auto-approve off it asks before every tool call:
			// "Approve tool call?", "[y] Approve   [n] Deny".
			Approve: "y",
		},
		{
			CLI: realcontinue.CLI, API: fakemodel.ChatCompletions{ShellTool: realcontinue.ShellTool},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realcontinue.Start(ctx, realcontinue.Options{Common: c, Ask: s.Ask})
			},
			// At column 0 under the prompt: "Error: 400 Request contains an
			// invalid argument (fake)."
			APIErrors: invalidRequest("Error: 400 Request contains an invalid argument (fake)."),
			// Without --auto every command is asked for: "Would you like to
			// continue?", "> Continue (tab)"; Tab approves.
			Approve: "Tab",
		},
		{
			CLI: realcopilot.CLI, API: fakemodel.ChatCompletions{ShellTool: realcopilot.ShellTool},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realcopilot.Start(ctx, realcopilot.Options{Common: c, Ask: s.Ask})
			},
			// "✗ 400 Request contains an invalid argument (fake)."
			APIErrors: invalidRequest("400 Request contains an invalid argument (fake)."),
			// Without --allow-all-tools every command is asked for: "Do you
			// want to run this command?", "❯ 1. Yes".
			Approve: "1",
		},
		{
			CLI: realdroid.CLI, API: fakemodel.ChatCompletions{ShellTool: realdroid.ShellTool, ShellArgs: realdroid.ShellArgs()},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realdroid.Start(ctx, realdroid.Options{Common: c, Ask: s.Ask})
			},
			// "●  BYOK Error: 400 Request contains an invalid argument (fake)."
			APIErrors: invalidRequest("BYOK Error: 400 Request contains an invalid argument (fake)."),
			// Without --auto every command is asked for: "Command to approve ·
			// medium risk", "Yes, allow" highlighted.
			Approve: "Enter",
		},
		{
			CLI: realkimi.CLI, API: fakemodel.ChatCompletions{ShellTool: realkimi.ShellTool},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realkimi.Start(ctx, realkimi.Options{Common: c, Ask: s.Ask})
			},
			// Under the prompt: "Error: [provider.api_error] 400 Request
			// contains an invalid argument (fake)."
			APIErrors: invalidRequest("Error: [provider.api_error] 400 Request contains an invalid argument (fake)."),
			// Without --auto every command is asked for: "▶ Run this
			// command?", "▶ 1. Approve once"; 1 approves once.
			Approve: "1",
		},
		{
			CLI: realomp.CLI, API: fakemodel.ChatCompletions{ShellTool: realomp.ShellTool},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realomp.Start(ctx, realomp.Options{Common: c, Ask: s.Ask})
			},
			// A box between two rules: "✘ 400 Request contains an invalid argument (fake)."
			APIErrors: invalidRequest("400 Request contains an invalid argument (fake)."),
			// The always-ask approval mode asks before every bash command:
			// "Allow tool: bash", "❯ Approve" highlighted.
			Approve: "Enter",
		},
	}
}

// piSubject is pi, which asks nothing of its own: started to ask, it runs
// the asking extension (realpi), whose dialog comes before every bash
// command.
func piSubject() Subject {
	return Subject{
		CLI: realpi.CLI, API: fakemodel.ChatCompletions{ShellTool: realpi.ShellTool},
		Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
			return realpi.Start(ctx, realpi.Options{Common: c, Ask: s.Ask})
		},
		// "Error: 400 Request contains an invalid argument (fake)."
		APIErrors: invalidRequest("Error: 400 Request contains an invalid argument (fake)."),
		// "→ Allow" highlighted.
		Approve: "Enter",
	}
}

// approvalModeSubjects are the Node CLIs whose default approval mode asks
// before some commands only (Gemini CLI, Qwen Code).
func approvalModeSubjects() []Subject {
	return []Subject{
		{
			CLI: realgemini.CLI, API: fakemodel.Gemini{},
			// Gemini CLI retries on its own (a 500 for a long time).
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realgemini.Start(ctx, realgemini.Options{Common: c, Ask: s.Ask})
			},
			// A 400 is shown at once: "✕ [API Error: {…}]".
			APIErrors: badRequest("", "Request contains an invalid argument (fake)."),
			// It reports each failed request in TMPDIR (/tmp when unset).
			ErrorReport: "gemini-client-error-*.json",
			// The default approval mode asks before a command with a
			// redirection: "Allow execution of [Shell]?", "● 1. Allow once".
			Approve: "1",
		},
		{
			CLI: realqwen.CLI, API: fakemodel.ChatCompletions{},
			Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
				return realqwen.Start(ctx, realqwen.Options{Common: c, Ask: s.Ask})
			},
			// "✕ [API Error: 400 Request contains an invalid argument (fake).]"
			APIErrors: invalidRequest("API Error: 400 Request contains an invalid argument (fake)."),
			// The default approval mode runs a `cat` heredoc unasked (cat
			// counts as read-only, its redirection notwithstanding); a
			// command that starts with mkdir is asked for: "Allow execution
			// of: 'mkdir, cat'?", "› 1. Yes, allow once".
			Confirm: func(answer string) fakemodel.Reply {
				return fakemodel.WriteResponse(answer).Prefixed("mkdir -p .tmp && ")
			},
			Approve: "1",
		},
	}
}

// claudeSubject is Claude Code as the cases drive it.
func claudeSubject() Subject {
	return Subject{
		CLI: realclaude.CLI, API: fakemodel.AnthropicMessages{},
		Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
			opts := realclaude.Options{Common: c, MaxRetries: s.Retries}
			if s.Ask {
				opts.Permissions = realclaude.Ask
			}
			return realclaude.Start(ctx, opts)
		},
		Config: Config(claudeGrace),
		APIErrors: []APIError{
			{"http-500", 0, []fakemodel.Reply{fakemodel.ServerError()}, "API Error: 500"},
			{"overloaded-529", 0, []fakemodel.Reply{fakemodel.Overloaded()}, "API Error: 529"},
			{"rate-limited-429", 0, []fakemodel.Reply{fakemodel.RateLimited(time.Second)}, "API Error: Request rejected (429)"},
			{"not-logged-in-401", 0, []fakemodel.Reply{fakemodel.HTTPError(401, "authentication_error", "invalid x-api-key")}, "Not logged in · Please run /login"},
			// One retry: the retry line reads as work, then the error ends it.
			{"http-500-after-a-retry", 1, fakemodel.Times(2, fakemodel.ServerError()), "API Error: 500"},
		},
		// "A file redirect in this command can't be checked before it
		// runs": the heredoc needs approval in the default mode.
		Approve: "1",
	}
}

// codexSubject is Codex as the cases drive it.
func codexSubject() Subject {
	return Subject{
		CLI: realcodex.CLI, API: fakemodel.OpenAIResponses{},
		Start: func(ctx context.Context, c realcli.Common, s Setup) (*realcli.Session, error) {
			// Tips hidden: Codex prints a random "└ Tip: …" under some
			// replies, which the fallback would take along.
			opts := realcodex.Options{Common: c, HideTips: true}
			if s.Ask {
				opts.ApprovalPolicy, opts.SandboxMode = "on-request", "workspace-write"
			}
			return realcodex.Start(ctx, opts)
		},
		Config: Config(codexGrace),
		APIErrors: []APIError{
			// The apostrophe's shape changed between releases (0.150
			// draws a straight one): the row quotes what does not.
			{"http-500", 0, []fakemodel.Reply{fakemodel.HTTPError(500, "server_error", "fake internal error")}, "currently experiencing high demand"},
			{"response-failed", 0, []fakemodel.Reply{fakemodel.Failed("the fake model failed this response")}, "stream disconnected before completion: the fake model failed this response"},
		},
		// Escalated: outside the sandbox, so on-request asks first.
		Confirm: func(answer string) fakemodel.Reply {
			return fakemodel.WriteResponse(answer).Escalated("Write the response file?")
		},
		Approve: "y",
	}
}

// opencodeSubject is OpenCode, or a CLI that draws and speaks as it does
// (Kilo Code: its configuration and its side call for the session's
// title), that start runs.
func opencodeSubject(cli realcli.CLI, start func(context.Context, realcli.Common, Setup) (*realcli.Session, error)) Subject {
	return Subject{
		CLI: cli, API: fakemodel.ChatCompletions{ShellTool: realopencode.ShellTool}, Start: start,
		Prepare: func(m *fakemodel.Server) { m.SetSide(fakemodel.Answer("Handoff session")) },
		// A box with the API's message, the footer without a duration.
		APIErrors: invalidRequest("Request contains an invalid argument (fake)."),
		// With "permission": {"bash": "ask"} every command is asked
		// for: "△ Permission required", "Allow once" highlighted.
		Approve: "Enter",
	}
}

// Find is the named provider's Subject; ok is false when it has none.
func Find(name string) (Subject, bool) {
	for _, s := range Subjects() {
		if s.CLI.Name == name {
			return s, true
		}
	}
	return Subject{}, false
}

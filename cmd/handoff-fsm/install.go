package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

const installUsage = `usage: handoff-fsm install claude|cline|codex|continue|copilot|droid|gemini|kilo|kimi|omp [--scope user|project] [--dir DIR] [--bin PATH]
                           [--server ADDR] [--skill=true] [--dry-run]

Registers handoff-fsm mcp as an MCP server named "handoff" in the agent CLI's configuration, so
the agent can call its tools (Claude Code shows them as mcp__handoff__handoff, …):

  claude  user: ~/.claude.json (mcpServers; quit Claude Code first, it rewrites that file)
          project: DIR/.mcp.json
  codex   user: $CODEX_HOME/config.toml (~/.codex), project: DIR/.codex/config.toml;
          a [mcp_servers.handoff] table with tool_timeout_sec = 3600 (Codex's default is 60 s)
  copilot user: $COPILOT_HOME/mcp-config.json (~/.copilot), project: DIR/.github/mcp.json
          (mcpServers, a local server with all its tools)
  gemini  user: ~/.gemini/settings.json, project: DIR/.gemini/settings.json (mcpServers,
          timeout 3600000 ms)
  droid   user: ~/.factory/mcp.json, project: DIR/.factory/mcp.json (mcpServers, as
          droid mcp add writes it)
  kimi    user: $KIMI_CODE_HOME/mcp.json (~/.kimi-code), project: DIR/.kimi-code/mcp.json
          (mcpServers, a stdio server; a project's servers start once the folder is trusted)
  cline   user only: ~/.cline/data/settings/cline_mcp_settings.json (mcpServers, a stdio
          transport: what "cline mcp add NAME --yes -- CMD ARGS" writes)
  kilo    user: ~/.config/kilo/kilo.json, project: DIR/kilo.json (mcp, OpenCode's form: a
          local server whose command is one list)
  omp     user: $PI_CODING_AGENT_DIR/mcp.json (~/.omp/agent), project: DIR/.omp/mcp.json
          (mcpServers, a stdio server, timeout 3600000 ms: OMP's default is 30 s)
  continue user only: $CONTINUE_GLOBAL_DIR/config.yaml (~/.continue), which must exist (without
          it Continue uses its hub's configuration); an item of its mcpServers list (YAML,
          comments kept); Continue gives a tool call 60 s: use assign, dispatch_status

With --skill (default) it also writes a skill that teaches the shell command instead
(handoff-fsm send), for an agent that prefers one: ~/.claude/skills/handoff-fsm/SKILL.md
(claude), $CODEX_HOME/skills/handoff-fsm/SKILL.md (codex); Copilot CLI, droid, Gemini
CLI, Kimi Code, Kilo Code, OMP and Continue get none.

Idempotent: a file that already says the same is left alone; one that would change is first
copied to FILE.bak-<time>. Everything else in the files is kept.

flags:
`

// runInstall writes an agent CLI's MCP configuration (and skill).
func runInstall(_ context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	cmd := newCmdline("install", installUsage, stderr)
	scope := cmd.String("scope", "user", "user (the home folder's configuration) or project (--dir's)")
	dir := cmd.String("dir", "", "the project folder for --scope project (default: the current folder)")
	bin := cmd.String("bin", "", "the handoff-fsm binary the agent starts (default: this one's absolute path)")
	server := cmd.String("server", "", "make handoff-fsm mcp dispatch through this service (--server of mcp)")
	skill := cmd.Bool("skill", true, "also write the skill that teaches handoff-fsm send")
	dry := cmd.Bool("dry-run", false, "print what would be written, write nothing")
	pos, code, ok := cmd.parse(args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return cmd.usageErr("name one agent CLI: claude, cline, codex, continue, copilot, droid, gemini, kilo, kimi or omp")
	}
	if *scope != "user" && *scope != "project" {
		return cmd.usageErr("--scope %q: want user or project", *scope)
	}
	exe := *bin
	if exe == "" {
		e, err := os.Executable()
		if err != nil {
			return cmd.usageErr("--bin: %v", err)
		}
		exe = e
	}
	exe, err := filepath.Abs(exe)
	if err != nil {
		return cmd.usageErr("--bin: %v", err)
	}
	project := *dir
	if project == "" {
		if project, err = os.Getwd(); err != nil {
			return cmd.usageErr("--dir: %v", err)
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return cmd.usageErr("no home folder: %v", err)
	}
	mcpArgs := []string{"mcp"}
	if *server != "" {
		mcpArgs = append(mcpArgs, "--server", *server)
	}
	in := installation{home: home, project: project, user: *scope == "user", bin: exe, args: mcpArgs, now: time.Now()}
	files, err := in.changes(pos[0], *skill)
	var bad installUsageError
	if errors.As(err, &bad) {
		return cmd.usageErr("%s", string(bad))
	}
	if err != nil {
		return cmd.fail(exitFailure, "%v", err)
	}
	for _, c := range files {
		msg, err := c.apply(*dry, in.now)
		if err != nil {
			return cmd.fail(exitFailure, "%v", err)
		}
		fmt.Fprintln(stdout, msg)
	}
	return exitOK
}

// installUsageError is changes' error for a CLI install cannot serve as
// asked: a usage error (exit 2).
type installUsageError string

func (e installUsageError) Error() string { return string(e) }

// changes are the files install writes for the named CLI.
func (in installation) changes(cli string, skill bool) ([]change, error) {
	switch cli {
	case "claude":
		return in.claude(skill)
	case "codex":
		return in.codex(skill)
	case "continue":
		return in.continueYAML()
	}
	f, ok := mcpJSONFiles[cli]
	if !ok {
		return nil, installUsageError(fmt.Sprintf("unknown agent CLI %q: want claude, cline, codex, continue, copilot, droid, gemini, kilo, kimi or omp", cli))
	}
	if !in.user && f.project == "" {
		return nil, installUsageError(cli + " has no project MCP file: use --scope user")
	}
	c, err := mergeJSONAt(in.jsonPath(f), f.key, f.entry(in.bin, in.args))
	if err != nil {
		return nil, err
	}
	return []change{c}, nil
}

// installation is where and what install writes.
type installation struct {
	home, project string
	user          bool
	bin           string
	args          []string
	now           time.Time
}

// change is a file's new content.
type change struct {
	path    string
	content []byte
}

// apply writes c unless the file already holds it; a file that differs is
// first copied to path.bak-<time>.
func (c change) apply(dry bool, now time.Time) (string, error) {
	old, err := os.ReadFile(c.path)
	switch {
	case err == nil && bytes.Equal(old, c.content):
		return "unchanged: " + c.path, nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return "", err
	case dry:
		return fmt.Sprintf("would write %s:\n%s", c.path, c.content), nil
	}
	backup := ""
	if err == nil {
		backup = c.path + ".bak-" + now.UTC().Format("20060102-150405")
		if err := os.WriteFile(backup, old, 0o600); err != nil {
			return "", fmt.Errorf("back up %s: %w", c.path, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(c.path), 0o755); err != nil {
		return "", err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(c.path); err == nil {
		mode = fi.Mode().Perm()
	}
	tmp := c.path + ".tmp-handoff-fsm"
	if err := os.WriteFile(tmp, c.content, mode); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, c.path); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if backup != "" {
		return fmt.Sprintf("updated: %s (the previous one is %s)", c.path, backup), nil
	}
	return "written: " + c.path, nil
}

// mcpName is the server's name in every configuration: Claude Code calls
// its tools mcp__handoff__<tool>.
const mcpName = "handoff"

// claude: the mcpServers entry of ~/.claude.json or DIR/.mcp.json, and
// the skill.
func (in installation) claude(skill bool) ([]change, error) {
	path := filepath.Join(in.project, ".mcp.json")
	if in.user {
		path = filepath.Join(in.home, ".claude.json")
	}
	entry := map[string]any{"type": "stdio", "command": in.bin, "args": in.args, "env": map[string]any{}}
	c, err := mergeJSONAt(path, "mcpServers", entry)
	if err != nil {
		return nil, err
	}
	out := []change{c}
	if skill {
		dir := filepath.Join(in.project, ".claude")
		if in.user {
			dir = filepath.Join(in.home, ".claude")
		}
		out = append(out, change{filepath.Join(dir, "skills", "handoff-fsm", "SKILL.md"), []byte(skillText(in.bin))})
	}
	return out, nil
}

// mcpJSON is where a CLI that keeps its MCP servers in a JSON object
// has them, and handoff's entry there.
type mcpJSON struct {
	// env names the user's folder of the CLI; when it is unset (or ""),
	// home is that folder below the home folder. user is the file in it.
	env, home, user string
	// project is the file below the project folder; "" for none (the CLI
	// reads only the user's).
	project string
	// key is the object of servers: mcpServers, or mcp in OpenCode's form.
	key   string
	entry func(bin string, args []string) map[string]any
}

// mcpJSONFiles are the CLIs whose MCP configuration is a JSON file: all but
// Claude Code (which also gets a skill) and Codex (TOML).
var mcpJSONFiles = map[string]mcpJSON{
	// Gemini CLI's settings.json, with a timeout in ms.
	"gemini": {home: ".gemini", user: "settings.json", project: ".gemini/settings.json", key: "mcpServers",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"command": bin, "args": args, "timeout": 3600000}
		}},
	// droid's .factory/mcp.json, in the form `droid mcp add` writes.
	"droid": {home: ".factory", user: "mcp.json", project: ".factory/mcp.json", key: "mcpServers",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"type": "stdio", "command": bin, "args": args, "disabled": false}
		}},
	// Kimi Code's mcp.json (the user's in $KIMI_CODE_HOME or ~/.kimi-code).
	"kimi": {env: "KIMI_CODE_HOME", home: ".kimi-code", user: "mcp.json", project: ".kimi-code/mcp.json", key: "mcpServers",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"transport": "stdio", "command": bin, "args": args}
		}},
	// Copilot CLI's mcp-config.json (the user's in $COPILOT_HOME or
	// ~/.copilot), or the project's .github/mcp.json (Copilot CLI also
	// reads .mcp.json, which is Claude Code's project file: install claude
	// writes its own entry there).
	"copilot": {env: "COPILOT_HOME", home: ".copilot", user: "mcp-config.json", project: ".github/mcp.json", key: "mcpServers",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"type": "local", "command": bin, "args": args, "tools": []string{"*"}}
		}},
	// Cline's MCP settings, in its data folder: the user's only.
	"cline": {home: ".cline/data/settings", user: "cline_mcp_settings.json", key: "mcpServers",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"transport": map[string]any{"type": "stdio", "command": bin, "args": args}}
		}},
	// Kilo Code's kilo.json, in OpenCode's form (a local server, its
	// command and arguments one list): the user's in ~/.config/kilo, or
	// the project's in its root.
	"kilo": {home: ".config/kilo", user: "kilo.json", project: "kilo.json", key: "mcp",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"type": "local", "command": append([]string{bin}, args...), "enabled": true}
		}},
	// OMP's own mcp.json: the user's in its agent folder
	// ($PI_CODING_AGENT_DIR, else ~/.omp/agent), or the project's in
	// DIR/.omp. OMP gives an MCP request 30 s by default; a dispatch waits
	// far longer.
	"omp": {env: "PI_CODING_AGENT_DIR", home: ".omp/agent", user: "mcp.json", project: ".omp/mcp.json", key: "mcpServers",
		entry: func(bin string, args []string) map[string]any {
			return map[string]any{"type": "stdio", "command": bin, "args": args, "timeout": 3600000}
		}},
}

// jsonPath is the file of f that in writes: the user's or the project's.
func (in installation) jsonPath(f mcpJSON) string {
	if !in.user {
		return filepath.Join(in.project, filepath.FromSlash(f.project))
	}
	dir := ""
	if f.env != "" {
		dir = os.Getenv(f.env)
	}
	if dir == "" {
		dir = filepath.Join(in.home, filepath.FromSlash(f.home))
	}
	return filepath.Join(dir, f.user)
}

// mergeJSONAt is path's JSON object with key.handoff set to entry (key is
// the object of MCP servers: mcpServers, or mcp for OpenCode's form).
func mergeJSONAt(path, key string, entry map[string]any) (change, error) {
	doc := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case err == nil && len(bytes.TrimSpace(b)) > 0:
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&doc); err != nil {
			return change{}, fmt.Errorf("%s is not a JSON object (%v); left as it is", path, err)
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return change{}, err
	}
	servers, ok := doc[key].(map[string]any)
	if doc[key] != nil && !ok {
		return change{}, fmt.Errorf("%s: %s is not an object; left as it is", path, key)
	}
	if servers == nil {
		servers = map[string]any{}
	}
	servers[mcpName] = entry
	doc[key] = servers
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return change{}, err
	}
	return change{path, buf.Bytes()}, nil
}

// The markers around the table install keeps in Codex's config.toml (no
// TOML library: the block is handoff-fsm's own, replaced whole).
const (
	codexBegin = "# BEGIN handoff-fsm mcp (written by handoff-fsm install codex; replaced on reinstall)"
	codexEnd   = "# END handoff-fsm mcp"
)

// codex: the [mcp_servers.handoff] table of config.toml, and the skill.
func (in installation) codex(skill bool) ([]change, error) {
	base := filepath.Join(in.project, ".codex")
	if in.user {
		base = os.Getenv("CODEX_HOME")
		if base == "" {
			base = filepath.Join(in.home, ".codex")
		}
	}
	path := filepath.Join(base, "config.toml")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	quoted := make([]string, len(in.args))
	for i, a := range in.args {
		quoted[i] = tomlQuote(a)
	}
	block := codexBegin + "\n[mcp_servers." + mcpName + "]\ncommand = " + tomlQuote(in.bin) + "\nargs = [" +
		strings.Join(quoted, ", ") + "]\nstartup_timeout_sec = 30\ntool_timeout_sec = 3600\n" + codexEnd + "\n"
	text := string(old)
	if i := strings.Index(text, codexBegin); i >= 0 {
		j := strings.Index(text[i:], codexEnd)
		if j < 0 {
			return nil, fmt.Errorf("%s: the handoff-fsm block has no end marker (%q); left as it is", path, codexEnd)
		}
		end := i + j + len(codexEnd)
		if end < len(text) && text[end] == '\n' {
			end++
		}
		text = text[:i] + block + text[end:]
	} else {
		if strings.Contains(text, "[mcp_servers."+mcpName+"]") {
			return nil, fmt.Errorf("%s already has an [mcp_servers.%s] table not written by install; remove it or rename it first", path, mcpName)
		}
		// At the end: a table there cannot swallow top-level keys.
		if text != "" && !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		if text != "" {
			text += "\n"
		}
		text += block
	}
	out := []change{{path, []byte(text)}}
	if skill {
		out = append(out, change{filepath.Join(base, "skills", "handoff-fsm", "SKILL.md"), []byte(skillText(in.bin))})
	}
	return out, nil
}

// tomlQuote is s as a TOML basic string: a JSON string is one (its
// escapes are TOML's; HTML escaping off).
func tomlQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// skillText teaches an agent the shell command, for agents that prefer
// one to an MCP tool.
func skillText(bin string) string {
	q := handoff.ShellQuote(bin)
	return `---
name: handoff-fsm
description: Hand a task to another coding agent (Codex, Claude Code, Gemini CLI) running in a tmux pane and get its answer back, with handoff-fsm send. Use it to delegate work to a worker agent, or to ask a reviewer agent.
---

# Handing work to another agent with handoff-fsm

Other agents run in tmux panes. ` + "`handoff-fsm send`" + ` pastes a prompt into one, waits until
it has finished and prints its answer on stdout (nothing else). It can take minutes: run it
with a long enough timeout for your shell tool.

1. See the panes and whether each agent is ready:

       tmux -L SOCKET list-panes -a -F '#{pane_id} #{session_name}:#{window_index}.#{pane_index} #{pane_current_command}'
       ` + q + ` status --socket SOCKET --target %3 --provider codex    # idle, processing, ...

2. Send a task and read the answer:

       ` + q + ` send --target %3 --socket SOCKET --provider codex --role programmer \
           --workdir "$PWD" --prompt "Implement the --verbose flag; reply with a summary of the change"

   - --target: the pane (%id or session:window.pane); --socket: the tmux server (-L name), left
     out for the default server; --provider: codex, claude or gemini (the CLI in the pane).
   - --role names the answer's file; two tasks at once need two roles (worker_1, worker_2).
   - For a long prompt: --prompt-file FILE, or the prompt on stdin with "-".

3. The exit status says how it ended: 0 done; 3 done from the screen (no response file);
   4 the agent showed an error or its pane is gone; 5 it stopped without answering;
   6 timeout (--timeout, 30m by default); 7 it waits for a person; 8 it was busy, nothing was
   sent; 1 anything else (a busy role: another dispatch holds it). Stderr says what happened.

Never paste into a pane with tmux send-keys yourself while a send to it runs.
`
}

package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

func words(cs []candidate) []string {
	out := make([]string, 0, len(cs))
	for _, c := range cs {
		out = append(out, c.word)
	}
	return out
}

func completions(args ...string) []string { return words(complete(context.Background(), args)) }

// Completion is derived from the commands' own flag sets: every command is
// offered, and every flag of every command, so the two cannot drift apart.
func TestCompletionOffersEveryCommandAndEveryFlag(t *testing.T) {
	top := completions("")
	for name, c := range commands() {
		if c.hidden {
			if slices.Contains(top, name) {
				t.Errorf("the hidden command %s is offered", name)
			}
			continue
		}
		if !slices.Contains(top, name) {
			t.Errorf("command %s is not offered: %v", name, top)
		}
		fs := flagsOf(c)
		if fs == nil {
			t.Errorf("%s: no flag set seen", name)
			continue
		}
		offered := completions(name, "--")
		n := 0
		fs.VisitAll(func(f *flag.Flag) {
			n++
			if !slices.Contains(offered, "--"+f.Name) {
				t.Errorf("%s: --%s is not offered (%v)", name, f.Name, offered)
			}
		})
		if len(offered) != n {
			t.Errorf("%s: %d flags offered, the command has %d", name, len(offered), n)
		}
	}
	if got := completions("send", "--ro"); !slices.Equal(got, []string{"--role"}) {
		t.Errorf("send --ro: %v", got)
	}
	if got := completions("send", "-ro"); !slices.Equal(got, []string{"-role"}) {
		t.Errorf("send -ro: %v (the single-dash spelling begun)", got)
	}
}

// Go's flag package reads a back-quoted word in a flag's usage as the name
// of its argument, so `send -h` once listed "-json replay": no boolean flag
// of any command may show an argument.
func TestNoBooleanFlagShowsAnArgument(t *testing.T) {
	bools := 0
	for name, c := range commands() {
		fs := flagsOf(c)
		if fs == nil {
			if name != completeCmd { // it takes words, not flags
				t.Errorf("%s: no flag set seen", name)
			}
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !isBoolFlag(f) {
				return
			}
			bools++
			if arg, _ := flag.UnquoteUsage(f); arg != "" {
				t.Errorf("%s -h shows -%s %s, as if the boolean flag took an argument", name, f.Name, arg)
			}
		})
	}
	if bools < 5 {
		t.Errorf("only %d boolean flags seen: the check sees too little", bools)
	}
	_, _, stderr := runSub(t, "", "send", "-h")
	if strings.Contains(stderr, "-json replay") || !strings.Contains(stderr, "  -json\n") {
		t.Errorf("send -h:\n%s", stderr)
	}
}

func TestCompletionOfFlagValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"send", "--role", ""}, handoff.Roles()},
		{[]string{"send", "-role", "analyst_"}, []string{"analyst_review"}},
		{[]string{"send", "--role=an"}, []string{"--role=analyst", "--role=analyst_review"}},
		{[]string{"status", "--provider", ""}, append(provider.Names(), provider.Auto)},
		{[]string{"send", "--provider=a"}, []string{"--provider=auto"}},
		{[]string{"watch", "--provider=c"}, []string{"--provider=claude", "--provider=cline", "--provider=codex", "--provider=continue", "--provider=copilot"}},
		{[]string{"completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"demo", "--scenario", "n"}, []string{"normal", "never-writes"}},
		{[]string{"install", ""}, []string{"claude", "cline", "codex", "continue", "copilot", "droid", "gemini", "kilo", "kimi", "omp"}},
		{[]string{"install", "gemini", "--scope", ""}, []string{"user", "project"}},
		{[]string{"mcp", "--provider=g"}, []string{"--provider=gemini"}},
		// After a boolean flag comes an argument, not the flag's value: files.
		{[]string{"replay", "--json", ""}, nil},
		{[]string{"classify", ""}, nil},
		// A provider file is a file name: the shell completes it.
		{[]string{"send", "--provider-file", ""}, nil},
		{[]string{"nosuch", "--"}, nil},
	} {
		if got := completions(tc.args...); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %v, want %v", tc.args, got, tc.want)
		}
	}
	// The listed formats are the ones diagram takes.
	for _, f := range completions("diagram", "--format", "") {
		if code, _, stderr := runSub(t, "", "diagram", "--format", f); code != exitOK {
			t.Errorf("diagram --format %s: exit %d\n%s", f, code, stderr)
		}
	}
}

// --target completes the panes of the tmux server that --socket or
// --socket-path names, as %id and session:window.pane.
func TestCompletionOfPaneTargets(t *testing.T) {
	requireTmux(t)
	priv, err := tmuxdriver.StartPrivate(context.Background(), tmuxdriver.PrivateOptions{Prefix: "handoff-complete", Session: "agents"})
	if err != nil {
		t.Fatal(err)
	}
	defer priv.Close(context.Background())
	for _, args := range [][]string{
		{"send", "--socket", priv.Socket, "--target", ""},
		{"status", "--socket=" + priv.Socket, "--target="},
		{"watch", "--socket-path", priv.SocketFile, "-target", ""},
	} {
		got := completions(args...)
		lead := args[len(args)-1]
		if !slices.Contains(got, lead+priv.Pane) || !slices.Contains(got, lead+"agents:0.0") {
			t.Errorf("%q: %v; want %s and agents:0.0", args, got, priv.Pane)
		}
	}
	if got := completions("send", "--socket", priv.Socket, "--target", "agents:"); !slices.Equal(got, []string{"agents:0.0"}) {
		t.Errorf("agents: → %v", got)
	}
	if got := completions("send", "--socket", "handoff-no-such-server", "--target", ""); len(got) != 0 {
		t.Errorf("no server: %v", got)
	}
}

// The scripts, run by the shells themselves: bash calls its completion
// function as it would on TAB; fish completes a command line (complete -C);
// zsh's script is sourced after compinit and its function run with zsh's
// completion builtins stubbed (driving its line editor needs a terminal).
func TestCompletionScriptsInTheirShells(t *testing.T) {
	bin := t.TempDir()
	// handoff-fsm on PATH is this test binary as the command.
	wrapper := "#!/bin/sh\n" + asCLI + "=1 exec " + handoff.ShellQuote(os.Args[0]) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "handoff-fsm"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	for _, tc := range []struct {
		shell  string
		script string
		want   []string
	}{
		{"bash", `source <(handoff-fsm completion bash)
COMP_LINE='handoff-fsm send --ro'; COMP_POINT=${#COMP_LINE}; _handoff_fsm_complete; printf '%s\n' "${COMPREPLY[@]}"
COMP_LINE='handoff-fsm send --role=analyst_'; COMP_POINT=${#COMP_LINE}; _handoff_fsm_complete; printf '%s\n' "${COMPREPLY[@]}"
COMP_LINE='handoff-fsm comp'; COMP_POINT=${#COMP_LINE}; _handoff_fsm_complete; printf '%s\n' "${COMPREPLY[@]}"`,
			[]string{"--role", "analyst_review", "completion"}},
		{"fish", `handoff-fsm completion fish | source
complete -C'handoff-fsm send --ro'
complete -C'handoff-fsm send --provider cl'
complete -C'handoff-fsm comp'`,
			[]string{"--role\tagent role; names the response file (required)", "claude", "cline", "completion\tprint a shell completion script: bash, zsh or fish"}},
		{"zsh", `autoload -U compinit && compinit -u
source <(handoff-fsm completion zsh)
_describe() { print -rl -- "${(@P)4}" }
_files() { print files }
words=(handoff-fsm send --ro); CURRENT=3; PREFIX=--ro; _handoff_fsm
words=(handoff-fsm send --provider co); CURRENT=4; PREFIX=co; _handoff_fsm
words=(handoff-fsm classify ''); CURRENT=3; PREFIX=''; _handoff_fsm`,
			[]string{"--role:agent role; names the response file (required)", "codex", "continue", "copilot", "files"}},
	} {
		t.Run(tc.shell, func(t *testing.T) {
			path, err := exec.LookPath(tc.shell)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is not installed but CI is set: .ci/run installs it", tc.shell)
				}
				t.Skipf("%s is not installed; skipping its completion script", tc.shell)
			}
			cmd := exec.Command(path, "-c", tc.script)
			if tc.shell == "zsh" {
				cmd = exec.Command(path, "-f", "-c", tc.script)
			}
			cmd.Env = env
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.shell, err, out)
			}
			if got := strings.Split(strings.TrimSpace(string(out)), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("%s completed\n%q\nwant\n%q", tc.shell, got, tc.want)
			}
		})
	}
}

func TestCompletionCommandUsage(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		code, stdout, _ := runSub(t, "", "completion", sh)
		if code != exitOK || !strings.Contains(stdout, "__complete") {
			t.Errorf("completion %s: exit %d\n%s", sh, code, stdout)
		}
	}
	for _, args := range [][]string{{"completion"}, {"completion", "tcsh"}, {"completion", "bash", "zsh"}} {
		if code, _, _ := runSub(t, "", args...); code != exitUsage {
			t.Errorf("%q: exit %d, want %d", args, code, exitUsage)
		}
	}
}

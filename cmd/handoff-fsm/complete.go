package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// Shell completion. The scripts `completion bash|zsh|fish` print are thin:
// on every TAB they call the hidden `__complete` command with the words
// typed so far, and it answers from the commands' own flag sets (flagsOf),
// so the completions cannot drift from the flags.

// completeCmd is the hidden command the completion scripts call.
const completeCmd = "__complete"

// shells are the shells `completion` writes scripts for.
var shells = []string{"bash", "zsh", "fish"}

// runComplete prints the completions of the last of args (the word under the
// cursor, "" for a new one), one a line, each as "candidate<TAB>description"
// when there is a description. No line means: let the shell complete file
// names.
func runComplete(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) int {
	for _, c := range complete(ctx, args) {
		if c.desc != "" {
			fmt.Fprintf(stdout, "%s\t%s\n", c.word, c.desc)
		} else {
			fmt.Fprintln(stdout, c.word)
		}
	}
	return exitOK
}

// candidate is one completion and what it is, for the shells that show it.
type candidate struct{ word, desc string }

// complete returns the completions of the last of words (the words after
// "handoff-fsm"), those that start with it.
func complete(ctx context.Context, words []string) []candidate {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := words[len(words)-1]
	cmds := commands()
	if len(words) == 1 {
		var out []candidate
		for _, n := range sortedNames(cmds) {
			out = append(out, candidate{n, cmds[n].summary})
		}
		out = append(out, candidate{"help", "list the commands"},
			candidate{"--version", "print the build"}, candidate{"--help", "list the commands"})
		return withPrefix(out, cur)
	}
	c, ok := cmds[words[0]]
	if !ok || c.hidden {
		return nil
	}
	fs := flagsOf(c)
	if fs == nil {
		return nil
	}
	if words[0] == "completion" && !strings.HasPrefix(cur, "-") {
		var out []candidate
		for _, s := range shells {
			out = append(out, candidate{s, ""})
		}
		return withPrefix(out, cur)
	}
	if words[0] == "install" && len(words) == 2 && !strings.HasPrefix(cur, "-") {
		return withPrefix([]candidate{{"claude", "Claude Code"}, {"cline", "Cline"}, {"codex", "Codex"}, {"continue", "Continue"}, {"copilot", "GitHub Copilot CLI"}, {"droid", "Factory droid"}, {"gemini", "Gemini CLI"}, {"kilo", "Kilo Code"}, {"kimi", "Kimi Code"}, {"omp", "OMP (oh-my-pi)"}}, cur)
	}
	// --flag=value
	if name, val, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok && strings.HasPrefix(cur, "-") {
		f := fs.Lookup(name)
		if f == nil || isBoolFlag(f) {
			return nil
		}
		lead := cur[:len(cur)-len(val)]
		var out []candidate
		for _, v := range withPrefix(flagValues(ctx, fs, f.Name, words[1:len(words)-1]), val) {
			out = append(out, candidate{lead + v.word, v.desc})
		}
		return out
	}
	// The value of the flag before.
	if prev := words[len(words)-2]; strings.HasPrefix(prev, "-") && !strings.Contains(prev, "=") {
		if f := fs.Lookup(strings.TrimLeft(prev, "-")); f != nil && !isBoolFlag(f) {
			return withPrefix(flagValues(ctx, fs, f.Name, words[1:len(words)-2]), cur)
		}
	}
	if strings.HasPrefix(cur, "-") {
		// Go's flags take - or --; offer the spelling begun.
		dash := "--"
		if !strings.HasPrefix(cur, "--") && len(cur) > 1 {
			dash = "-"
		}
		var out []candidate
		fs.VisitAll(func(f *flag.Flag) {
			desc, _, _ := strings.Cut(f.Usage, "\n")
			out = append(out, candidate{dash + f.Name, desc})
		})
		return withPrefix(out, cur)
	}
	return nil // a positional argument: a file
}

// flagValues lists the values flag name of fs can take, where they can be
// listed; before are the words typed before it (for --socket, when
// completing --target).
func flagValues(ctx context.Context, fs *flag.FlagSet, name string, before []string) []candidate {
	var vals []string
	switch name {
	case "role":
		vals = handoff.Roles()
	case "provider":
		vals = provider.Names()
		// Where the flag takes auto, its usage says so (providerFlag).
		if f := fs.Lookup(name); f != nil && strings.Contains(f.Usage, "or "+provider.Auto) {
			vals = append(vals, provider.Auto)
		}
	case "scenario":
		for _, s := range simagent.Scenarios() {
			vals = append(vals, string(s))
		}
	case "log-format":
		vals = []string{"text", "json"}
	case "format":
		vals = []string{"mermaid", "dot"}
	case "scope":
		vals = []string{"user", "project"}
	case "socket":
		vals = tmuxSockets()
	case "target":
		return tmuxPanes(ctx, fs, before)
	}
	out := make([]candidate, 0, len(vals))
	for _, v := range vals {
		out = append(out, candidate{v, ""})
	}
	return out
}

// tmuxPanes lists the panes of the tmux server the words before name (its
// --socket or --socket-path; the default server otherwise), as %id and
// session:window.pane, each with the command it runs. Nothing when no
// server runs.
func tmuxPanes(ctx context.Context, fs *flag.FlagSet, before []string) []candidate {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	parseArgs(fs, before) // best effort: what parses before a typo counts
	srv := tmuxdriver.Server{Timeout: 2 * time.Second}
	if f := fs.Lookup("socket"); f != nil {
		srv.Socket = f.Value.String()
	}
	if f := fs.Lookup("socket-path"); f != nil {
		srv.SocketPath = f.Value.String()
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	out, err := srv.Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_id}\t#{session_name}:#{window_index}.#{pane_index}\t#{pane_current_command}")
	if err != nil {
		return nil
	}
	var ids, names []candidate
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			continue
		}
		ids = append(ids, candidate{f[0], f[1] + " " + f[2]})
		names = append(names, candidate{f[1], f[0] + " " + f[2]})
	}
	return append(ids, names...)
}

// tmuxSockets lists the socket names (tmux -L) of the current user's tmux
// servers: the entries of $TMUX_TMPDIR/tmux-<uid> (/tmp when unset).
func tmuxSockets() []string {
	base := os.Getenv("TMUX_TMPDIR")
	if base == "" {
		base = "/tmp"
	}
	entries, err := os.ReadDir(filepath.Join(base, "tmux-"+strconv.Itoa(os.Getuid())))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type()&os.ModeSocket != 0 {
			out = append(out, e.Name())
		}
	}
	return out
}

func withPrefix(cs []candidate, prefix string) []candidate {
	var out []candidate
	for _, c := range cs {
		if strings.HasPrefix(c.word, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func sortedNames(cmds map[string]command) []string {
	var names []string
	for n, c := range cmds {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagCollector is the stderr of a command that flagsOf runs with -h:
// newFlagSet hands it the command's flag set.
type flagCollector struct {
	io.Writer
	fs *flag.FlagSet
}

// flagsOf returns command c's flag set, as the command itself builds it: it
// runs c with -h, which every command answers by printing its help and
// stopping before it does anything, and keeps the set newFlagSet made.
func flagsOf(c command) *flag.FlagSet {
	col := &flagCollector{Writer: io.Discard}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing may run
	c.run(ctx, []string{"-h"}, strings.NewReader(""), io.Discard, col)
	return col.fs
}

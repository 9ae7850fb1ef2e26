package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"
)

// cliDocPath is the command's reference, generated from its flag sets.
const cliDocPath = "../../docs/cli.md"

var updateCLIDoc = flag.Bool("update-cli-doc", false, "rewrite docs/cli.md from the commands' flag sets")

// docs/cli.md is what the commands' own flag sets and help texts say: a
// flag added, renamed or described anew without regenerating it fails here.
// Regenerate: go test ./cmd/handoff-fsm -run TestCLIDocIsCurrent -update-cli-doc
func TestCLIDocIsCurrent(t *testing.T) {
	want := cliDoc(t)
	if *updateCLIDoc {
		if err := os.WriteFile(cliDocPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := os.ReadFile(cliDocPath)
	if err != nil {
		t.Fatalf("%v (generate it: go test ./cmd/handoff-fsm -run TestCLIDocIsCurrent -update-cli-doc)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("docs/cli.md drifted from the commands' flags at line %d:\n have %q\n want %q\nregenerate: go test ./cmd/handoff-fsm -run TestCLIDocIsCurrent -update-cli-doc", i+1, g, w)
			}
		}
	}
}

// The generated page holds every visible command and every one of its
// flags, with the flag's own description.
func TestCLIDocNamesEveryFlag(t *testing.T) {
	doc := string(cliDoc(t))
	for name, c := range commands() {
		if c.hidden {
			continue
		}
		if !strings.Contains(doc, "\n## "+name+"\n") {
			t.Errorf("no section for %s", name)
		}
		fs := flagsOf(c)
		if fs == nil {
			t.Errorf("%s: no flag set", name)
			continue
		}
		fs.VisitAll(func(f *flag.Flag) {
			if !strings.Contains(doc, "| `--"+f.Name) {
				t.Errorf("%s: flag --%s missing", name, f.Name)
			}
		})
	}
}

// cliDoc renders docs/cli.md: per visible command, in name order, its
// summary, its help text and a table of its flags, each as its flag set
// declares it.
func cliDoc(t *testing.T) []byte {
	t.Helper()
	// Defaults that name this machine's folders are written as a user's.
	t.Setenv("HOME", "/home/USER")
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/UID")
	t.Setenv("XDG_STATE_HOME", "/home/USER/.local/state")
	t.Setenv("XDG_CONFIG_HOME", "/home/USER/.config")
	t.Setenv("TMPDIR", "/tmp")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n, c := range cmds {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var b bytes.Buffer
	b.WriteString("# The command line\n\n")
	b.WriteString("<!-- Generated from the commands' own flag sets by\n")
	b.WriteString("     go test ./cmd/handoff-fsm -run TestCLIDocIsCurrent -update-cli-doc\n")
	b.WriteString("     Do not edit: the test fails when this page and the flags differ. -->\n\n")
	b.WriteString("Every command of `handoff-fsm` (`handoff-fsm <command> -h` prints the same), its help text and\n")
	b.WriteString("its flags. A flag is written `--name` or `-name`; a duration is a Go duration (`2s`, `1m30s`) or\n")
	b.WriteString("bare seconds. Guides: [usage.md](usage.md) (send and its guarantees), [team.md](team.md),\n")
	b.WriteString("[serve.md](serve.md).\n\n")
	var global bytes.Buffer
	usage(&global, cmds)
	b.WriteString("```text\n" + global.String() + "```\n\n")
	for _, n := range names {
		b.WriteString("- [" + n + "](#" + n + ")\n")
	}
	for _, n := range names {
		help, fs := helpOf(t, cmds[n])
		fmt.Fprintf(&b, "\n## %s\n\n%s.\n\n```text\n%s\n```\n", n, cmds[n].summary, strings.TrimRight(help, "\n"))
		rows := 0
		fs.VisitAll(func(f *flag.Flag) {
			if rows == 0 {
				b.WriteString("\n| flag | default | meaning |\n|---|---|---|\n")
			}
			rows++
			typ, text := flag.UnquoteUsage(f)
			name := "`--" + f.Name
			if typ != "" {
				name += " " + typ
			}
			name += "`"
			def := ""
			if f.DefValue != "" && f.DefValue != "[]" {
				def = "`" + f.DefValue + "`"
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", name, def, cell(text))
		})
	}
	return b.Bytes()
}

// helpOf runs command c with -h, as flagsOf does, and returns the help text
// it prints above its flags, and its flag set.
func helpOf(t *testing.T, c command) (string, *flag.FlagSet) {
	t.Helper()
	var out bytes.Buffer
	col := &flagCollector{Writer: &out}
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // nothing may run
	c.run(ctx, []string{"-h"}, strings.NewReader(""), io.Discard, col)
	if col.fs == nil {
		t.Fatalf("a command printed its help without newFlagSet")
	}
	var defaults bytes.Buffer
	col.fs.SetOutput(&defaults)
	col.fs.PrintDefaults()
	help, ok := strings.CutSuffix(out.String(), defaults.String())
	if !ok {
		t.Fatalf("%s -h: its help does not end with its flags:\n%s", col.fs.Name(), out.String())
	}
	return strings.TrimSuffix(strings.TrimRight(help, "\n"), "flags:"), col.fs
}

// cell makes text one Markdown table cell.
func cell(text string) string {
	text = strings.ReplaceAll(text, "|", `\|`)
	return strings.Join(strings.Fields(text), " ")
}

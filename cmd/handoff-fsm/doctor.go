package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/conformance/live"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/screen"
	"github.com/handoff-fsm/handoff-fsm/team"
)

// doctorOptions are doctor's flags.
type doctorOptions struct {
	provider string // a provider's name, or "all"
	command  string // the CLI's binary, for one named provider
	json     bool
}

// doctorReport is one CLI's check: which binary, its version against the
// provider's tested window, and each conformance case.
type doctorReport struct {
	CLI     string        `json:"cli"`
	Path    string        `json:"path"`
	Version string        `json:"version"`
	Window  screen.Window `json:"window"`
	Warning string        `json:"warning,omitempty"`
	// Skipped says why no case ran (the CLI is not on PATH).
	Skipped string        `json:"skipped,omitempty"`
	Cases   []live.Result `json:"cases,omitempty"`
	Elapsed time.Duration `json:"elapsed_ns"`
}

// ok reports a CLI whose every case is right.
func (r doctorReport) ok() bool {
	for _, c := range r.Cases {
		if !c.OK {
			return false
		}
	}
	return len(r.Cases) > 0
}

// runDoctor checks that handoff-fsm reads the user's own agent CLIs right:
// each runs the conformance cases of the end-to-end suite, in a private
// tmux server against the built-in fake model, with a throwaway home (never
// the user's login, settings or history). Offline; it leaves no process,
// socket or file. Exit 0 only when every case on every CLI checked is right.
func runDoctor(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	var o doctorOptions
	cmd := newCmdline("doctor", "usage: handoff-fsm doctor [--provider NAME|all] [--command PATH] [--json]\n\n"+
		"Runs the conformance cases on each agent CLI on PATH (or the one named) against a built-in\n"+
		"fake model, offline, in a private tmux server with a throwaway home, and prints a table per\n"+
		"CLI: its path, version and tested window, each case right or wrong. Exit 0 only when every\n"+
		"case is right (docs/doctor.md).\n\n", stderr)
	cmd.StringVar(&o.provider, "provider", "all", "the agent CLI to check: "+strings.Join(provider.Names(), ", ")+", or all (each one on PATH)")
	cmd.StringVar(&o.command, "command", "", "the CLI's binary (with one --provider); default: its name on PATH")
	cmd.BoolVar(&o.json, "json", false, "print the reports as JSON")
	if code, ok := cmd.parseFlagsOnly(args); !ok {
		return code
	}
	names := provider.Names()
	if o.provider != "all" {
		if _, err := provider.Lookup(o.provider); err != nil || o.provider == "" {
			return cmd.usageErr("%v", err)
		}
		names = []string{o.provider}
	} else if o.command != "" {
		return cmd.usageErr("--command needs one --provider NAME (whose CLI it is)")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return cmd.fail(exitFailure, "tmux is not installed; the agent CLIs run in tmux")
	}
	var reports []doctorReport
	for _, name := range names {
		rep := checkCLI(ctx, name, o.command, o.provider != "all")
		if !o.json {
			printDoctorReport(stdout, rep)
		}
		reports = append(reports, rep)
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(reports)
	}
	return doctorExit(reports, stderr)
}

// doctorExit is 0 when every CLI checked passed every case, and at least
// one was checked.
func doctorExit(reports []doctorReport, stderr io.Writer) int {
	checked, failed := 0, 0
	for _, r := range reports {
		switch {
		case r.Skipped != "" && len(r.Cases) == 0:
		case r.ok():
			checked++
		default:
			checked++
			failed++
		}
	}
	switch {
	case checked == 0:
		fmt.Fprintln(stderr, "handoff-fsm doctor: no agent CLI found on PATH (name one: --provider NAME --command PATH)")
		return exitFailure
	case failed > 0:
		fmt.Fprintf(stderr, "handoff-fsm doctor: %d of %d CLIs read wrong in some case\n", failed, checked)
		return exitFailure
	}
	return exitOK
}

// checkCLI runs the cases on one provider's CLI: bin, or its name on
// PATH. A CLI not found is skipped unless it was named (then it is wrong).
func checkCLI(ctx context.Context, name, bin string, named bool) doctorReport {
	p, _ := provider.Find(name)
	rep := doctorReport{CLI: name, Window: p.Window}
	if bin == "" {
		var err error
		if bin, err = exec.LookPath(provider.Command(name)); err != nil {
			rep.Skipped = "not on PATH"
			if named {
				rep.Cases = []live.Result{{Case: live.CaseReady, Reason: "no " + provider.Command(name) + " on PATH (give its binary: --command PATH)"}}
			}
			return rep
		}
	}
	if abs, err := filepath.Abs(bin); err == nil {
		bin = abs
	}
	rep.Path = bin
	rep.Version = cliVersion(ctx, bin)
	rep.Warning = p.Window.Warning(name, rep.Version)
	subject, ok := live.Find(name)
	if !ok {
		rep.Cases = []live.Result{{Case: live.CaseReady, Reason: "the provider has no conformance descriptor (internal/conformance/live)"}}
		return rep
	}
	root, err := os.MkdirTemp("", "handoff-doctor-")
	if err != nil {
		rep.Cases = []live.Result{{Case: live.CaseReady, Reason: err.Error()}}
		return rep
	}
	defer os.RemoveAll(root)
	start := time.Now()
	rep.Cases = live.Check(ctx, subject, bin, root)
	rep.Elapsed = time.Since(start)
	return rep
}

// cliVersion asks bin for its version with a throwaway home (asking must
// not touch the user's): "" when it says none within 45 seconds (a Node
// CLI on a loaded machine takes many).
func cliVersion(ctx context.Context, bin string) string {
	home, err := os.MkdirTemp("", "handoff-doctor-version-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(home)
	ctx, cancel := context.WithTimeout(ctx, 45*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + home, "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "PI_OFFLINE=1"}
	cmd.WaitDelay = time.Second
	out, _ := cmd.CombinedOutput()
	return screen.ParseVersion(string(out))
}

// windowWarning is the warning for the named provider's CLI whose
// --version printed out, when that version is outside the provider's
// tested window; "" when inside, or when the version or provider is
// unknown. `up` prints it; nothing is refused.
func windowWarning(name, out string) string {
	p, ok := provider.Find(name)
	v := screen.ParseVersion(out)
	if !ok || v == "" {
		return ""
	}
	return p.Window.Warning(name, v)
}

// teamWindowWarnings are the window warnings of a team's running agents
// (`status --team`): each CLI is asked its version (with a throwaway
// home), all at once.
func teamWindowWarnings(ctx context.Context, members []team.Member) []string {
	out := make([]string, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		if m.Demo || m.Pane == "" || m.Dead {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if bin, err := exec.LookPath(m.Command); err == nil {
				out[i] = windowWarning(m.Provider, cliVersion(ctx, bin))
			}
		}()
	}
	wg.Wait()
	var warnings []string
	for i, w := range out {
		if w != "" {
			warnings = append(warnings, "status: agent "+members[i].Role+": "+w)
		}
	}
	return warnings
}

// printDoctorReport writes one CLI's table: a header (CLI, path, version,
// the tested window) and a row per case, right or wrong with its reason;
// a wrong case shows the screen's lines that decided.
func printDoctorReport(w io.Writer, r doctorReport) {
	if r.Skipped != "" && len(r.Cases) == 0 {
		fmt.Fprintf(w, "%-9s %s (window %s)\n\n", r.CLI, r.Skipped, r.Window)
		return
	}
	fmt.Fprintf(w, "%-9s %s  version %s  tested window %s", r.CLI, r.Path, orUnknown(r.Version), r.Window)
	if r.Elapsed > 0 {
		fmt.Fprintf(w, "  (%v)", r.Elapsed.Round(100*time.Millisecond))
	}
	fmt.Fprintln(w)
	if r.Warning != "" {
		fmt.Fprintf(w, "  %s\n", r.Warning)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, c := range r.Cases {
		mark := "right"
		if !c.OK {
			mark = "WRONG"
		}
		reason, _, _ := strings.Cut(c.Reason, "\n")
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", mark, c.Case, reason)
	}
	_ = tw.Flush()
	for _, c := range r.Cases {
		if c.OK || len(c.Lines) == 0 {
			continue
		}
		fmt.Fprintf(w, "  screen when %s decided:\n", c.Case)
		for _, l := range c.Lines {
			fmt.Fprintf(w, "    │ %s\n", l)
		}
	}
	fmt.Fprintln(w)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

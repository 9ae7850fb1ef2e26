package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// BenchmarkFileWrittenToExit measures how long `send` takes to exit after
// the agent wrote its response file: the simulated agent writes it and goes
// idle about a millisecond later, so the figure is the engine's reaction,
// not the agent's. Side by side: plain polling at the spec's 2 s, and the
// event-driven wait (a watch of the response folder). Each op is one real
// dispatch; the agent's work varies at random over a poll interval, so the
// write falls anywhere on the poll grid. The metrics are the median and the
// worst of the run, from the file's write and from the agent's idle screen.
//
//	go test -run '^$' -bench FileWrittenToExit -benchtime 10x ./cmd/handoff-fsm
func BenchmarkFileWrittenToExit(b *testing.B) {
	for _, mode := range []struct {
		name string
		args []string
	}{
		{"poll-2s", []string{"--events=false"}},
		{"watch", nil},
		{"watch+control", []string{"--control"}},
	} {
		b.Run(mode.name, func(b *testing.B) {
			idleLog := filepath.Join(b.TempDir(), "idle.log")
			a := startAgent(b, "--echo", "--startup", "300ms", "--work", "700ms", "--stream", "1ms", "--work-jitter", "2s", "--idle-log", idleLog)
			var lat, react []time.Duration
			for i := 0; i < b.N; i++ {
				args := append(a.sendArgs("--poll", "2s", "--json"), mode.args...)
				_, stderr, code := cli(b, "", append(args, "--prompt", "bench")...)
				exited := time.Now()
				if code != exitOK {
					b.Fatalf("exit %d\n%s", code, stderr)
				}
				files, _ := filepath.Glob(filepath.Join(a.workdir, ".tmp", "run-*", "*-analyst.md"))
				if len(files) == 0 {
					b.Fatal("no archived response")
				}
				slices.Sort(files)
				fi, err := os.Stat(files[len(files)-1])
				if err != nil {
					b.Fatal(err)
				}
				// The archive move keeps the write time (mtime).
				lat = append(lat, exited.Sub(fi.ModTime()))
				// The agent's screen went idle a little after the write:
				// from then on the time is the engine's.
				idle, err := lastIdle(idleLog)
				if err != nil {
					b.Fatal(err)
				}
				react = append(react, exited.Sub(idle))
			}
			report := func(ds []time.Duration, unit string) {
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, unit+"-median")
				b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, unit+"-max")
			}
			report(lat, "ms-file-to-exit")
			report(react, "ms-idle-to-exit")
		})
	}
}

// lastIdle reads the last turn end the simulated agent logged.
func lastIdle(path string) (time.Time, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, err
	}
	lines := strings.Fields(string(b))
	if len(lines) == 0 {
		return time.Time{}, fmt.Errorf("%s is empty", path)
	}
	ns, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	return time.Unix(0, ns), err
}

// BenchmarkCostPerDispatchMinute measures what waiting costs the machine:
// tmux processes started and CPU time (the send processes with the tmux
// clients they ran, plus the tmux server) per minute of dispatch per pane,
// with 1, 10 and 100 agents working at once in one tmux session. Side by
// side: plain polling at 2 s and the event-driven wait (control mode). Each
// agent works about 20 s; one op is one round of N concurrent dispatches.
//
//	go test -run '^$' -bench CostPerDispatchMinute -benchtime 1x ./cmd/handoff-fsm
func BenchmarkCostPerDispatchMinute(b *testing.B) {
	real, err := exec.LookPath("tmux")
	if err != nil {
		b.Skip("tmux is not installed")
	}
	for _, n := range []int{1, 10, 100} {
		for _, mode := range []struct {
			name string
			args []string
		}{{"poll-2s", []string{"--events=false"}}, {"watch", nil}, {"watch+control", []string{"--control"}}} {
			b.Run(fmt.Sprintf("panes-%d/%s", n, mode.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					costRound(b, real, n, mode.args)
				}
			})
		}
	}
}

func costRound(b *testing.B, realTmux string, n int, extra []string) {
	b.Helper()
	// A tmux on PATH that counts its runs, then runs the real one.
	dir := b.TempDir()
	count := filepath.Join(dir, "count")
	wrapper := "#!/bin/sh\nprintf x >> " + handoff.ShellQuote(count) + "\nexec " + handoff.ShellQuote(realTmux) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(wrapper), 0o755); err != nil {
		b.Fatal(err)
	}
	agent := "exec env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) + " sim-agent --echo --startup 300ms --work 20s --stream 300ms --cwd "
	ctx := context.Background()
	first := filepath.Join(dir, "w0")
	if err := os.MkdirAll(first, 0o755); err != nil {
		b.Fatal(err)
	}
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-bench", Session: "agents",
		Width: 110, Height: 32, Dir: first, Command: agent + handoff.ShellQuote(first)})
	if err != nil {
		b.Fatal(err)
	}
	defer priv.Close(ctx)
	panes := []string{priv.Pane}
	works := []string{first}
	for i := 1; i < n; i++ {
		w := filepath.Join(dir, fmt.Sprintf("w%d", i))
		if err := os.MkdirAll(w, 0o755); err != nil {
			b.Fatal(err)
		}
		pane, err := priv.NewWindow(ctx, w, agent+handoff.ShellQuote(w))
		if err != nil {
			b.Fatal(err)
		}
		panes, works = append(panes, pane), append(works, w)
	}
	pidOut, err := priv.Run(ctx, nil, "display-message", "-p", "#{pid}")
	if err != nil {
		b.Fatal(err)
	}
	serverPID, _ := strconv.Atoi(strings.TrimSpace(pidOut))
	time.Sleep(2 * time.Second) // the agents draw their prompts
	serverBefore := procCPU(serverPID)
	_ = os.Remove(count)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var cpu, elapsed time.Duration
	start := time.Now()
	for i := range panes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			args := append([]string{"send", "--socket", priv.Socket, "--target", panes[i], "--role", "analyst",
				"--workdir", works[i], "--poll", "2s", "--timeout", "5m", "--tmux-timeout", "30s", "--prompt", "cost"}, extra...)
			cmd := cliCmd(ctx, args...)
			cmd.Env = append(cmd.Env, "PATH="+dir+":"+os.Getenv("PATH"))
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			if err != nil {
				b.Errorf("send to %s: %v\n%s", panes[i], err, out)
				return
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			mu.Lock()
			cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			elapsed += time.Since(t0)
			mu.Unlock()
		}()
	}
	wg.Wait()
	wall := time.Since(start)
	server := procCPU(serverPID) - serverBefore
	calls, _ := os.ReadFile(count)
	minutes := elapsed.Minutes()
	b.ReportMetric(float64(len(calls))/minutes, "tmux-procs/dispatch-min")
	b.ReportMetric(float64((cpu+server).Milliseconds())/minutes, "cpu-ms/dispatch-min")
	b.ReportMetric(float64(server.Milliseconds())/minutes, "server-cpu-ms/dispatch-min")
	b.ReportMetric(wall.Seconds(), "s-wall")
}

// procCPU is a process's user+system CPU time so far, from /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// Fields after the command name (which is in parentheses).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

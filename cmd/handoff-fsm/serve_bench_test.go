package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// BenchmarkServeVsSend runs, side by side in one run, N concurrent
// dispatches (N agents in one tmux session, each in its own work folder)
// as N separate `send` processes and through one `handoff-fsm serve` (its
// clients N `send --server` processes). Both at the spec's 2 s poll with
// the default response-file watch. It checks every answer (each agent
// echoes its own prompt) and that the tmux server is alive, and reports:
// CPU per dispatch (clients, the service and its tmux client, the tmux
// server), tmux processes started per dispatch and per look (a look is a
// capture-pane), file written → done (the archived file's write time to
// the send's exit, or to the service's decision), and memory per waiting
// dispatch (the send processes' RSS, or the service's growth).
//
//	go test -run '^$' -bench ServeVsSend -benchtime 1x -timeout 30m ./cmd/handoff-fsm
//	HANDOFF_BENCH_DISPATCHES=20 go test … (fewer agents)
func BenchmarkServeVsSend(b *testing.B) {
	real, err := exec.LookPath("tmux")
	if err != nil {
		b.Skip("tmux is not installed")
	}
	n := 100
	if v, err := strconv.Atoi(os.Getenv("HANDOFF_BENCH_DISPATCHES")); err == nil && v > 0 {
		n = v
	}
	for _, mode := range []string{"send", "serve", "serve-nowait", "serve-api"} {
		b.Run(fmt.Sprintf("%s-%d", mode, n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				serveVsSendRound(b, real, n, mode)
			}
		})
	}
}

// benchTmux is a tmux on PATH that logs each start's arguments, then runs
// the real one.
func benchTmux(b *testing.B, realTmux string) (dir, log string) {
	dir = b.TempDir()
	log = filepath.Join(dir, "starts.log")
	wrapper := "#!/bin/sh\nprintf '%s\\n' \"$*\" >> " + handoff.ShellQuote(log) + "\nexec " + handoff.ShellQuote(realTmux) + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(dir, "tmux"), []byte(wrapper), 0o755); err != nil {
		b.Fatal(err)
	}
	return dir, log
}

// serveVsSendRound is one round of n dispatches: mode send (n send
// processes), serve (a service, n send --server processes) or serve-api (a
// service, and this process as its one client over the API, as an
// orchestrator in another language would be).
func serveVsSendRound(b *testing.B, realTmux string, n int, mode string) {
	b.Helper()
	viaServe := mode != "send"
	ctx := context.Background()
	bin, log := benchTmux(b, realTmux)
	path := "PATH=" + bin + ":" + os.Getenv("PATH")
	// The agents redraw once a second (Codex: ten times): a hundred of
	// them drawing at full speed swamp a small machine by themselves, and
	// what is measured is the dispatcher.
	agent := "exec env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) +
		" sim-agent --echo --startup 300ms --work 8s --work-jitter 4s --stream 1ms --redraw 1s --cwd "
	root := b.TempDir()
	works := make([]string, n)
	for i := range works {
		works[i] = filepath.Join(root, fmt.Sprintf("w%03d", i))
		if err := os.MkdirAll(works[i], 0o755); err != nil {
			b.Fatal(err)
		}
	}
	priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "handoff-bench", Session: "agents",
		Width: 110, Height: 32, Dir: works[0], Command: agent + handoff.ShellQuote(works[0])})
	if err != nil {
		b.Fatal(err)
	}
	defer priv.Close(ctx)
	panes := []string{priv.Pane}
	for i := 1; i < n; i++ {
		pane, err := priv.NewWindow(ctx, works[i], agent+handoff.ShellQuote(works[i]))
		if err != nil {
			b.Fatal(err)
		}
		panes = append(panes, pane)
	}
	pidOut, err := priv.Run(ctx, nil, "display-message", "-p", "#{pid}")
	if err != nil {
		b.Fatal(err)
	}
	serverPID, _ := strconv.Atoi(strings.TrimSpace(pidOut))
	time.Sleep(3 * time.Second) // the agents draw their prompts

	var svc *exec.Cmd
	var sock string
	var svcRSSBefore int64
	if viaServe {
		var state string
		state, sock = serveDirs(b)
		svc = startServe(b, state, sock, path).cmd
		svcRSSBefore = rss(svc.Process.Pid)
	}
	_ = os.Remove(log)
	serverBefore := procCPU(serverPID)
	svcBefore := time.Duration(0)
	if svc != nil {
		svcBefore = treeCPU(svc.Process.Pid)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	var clientCPU time.Duration
	failed := 0
	exits := make([]time.Time, n)
	ids := make([]string, n) // serve-nowait: the dispatches' ids
	pids := make([]int, n)
	running := make([]atomic.Bool, n)
	start := time.Now()
	var selfBefore syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &selfBefore)
	for i := range panes {
		if mode == "serve-api" {
			wg.Add(1)
			go func() {
				defer wg.Done()
				apiDispatch(b, sock, priv.Socket, panes[i], works[i], &mu, &failed, &exits[i])
			}()
			continue
		}
		args := []string{"send", "--socket", priv.Socket, "--target", panes[i], "--role", "analyst",
			"--workdir", works[i], "--poll", "2s", "--timeout", "5m", "--tmux-timeout", "30s", "--prompt", "bench " + panes[i]}
		if viaServe {
			args = append(args, "--server", "unix:"+sock)
		}
		if mode == "serve-nowait" {
			args = append(args, "--no-wait")
		}
		cmd := cliCmd(ctx, args...)
		cmd.Env = append(cmd.Env, path)
		var out, errb testkit.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		pids[i] = cmd.Process.Pid
		running[i].Store(true)
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			running[i].Store(false)
			exits[i] = time.Now()
			got := out.String()
			if mode == "serve-nowait" && err == nil {
				mu.Lock()
				ids[i] = strings.TrimSpace(got)
				mu.Unlock()
				got = "bench " + panes[i] + "\n" // its answer comes from the wait below
			}
			switch {
			case err == nil && got != "bench "+panes[i]+"\n":
				b.Errorf("dispatch to %s: a wrong answer %q", panes[i], got)
				return
			case err != nil:
				// Counted and shown, not hidden: the machine may be too
				// loaded for a tmux call (see the figures' notes).
				b.Logf("dispatch to %s failed: %v\n%s", panes[i], err, errb.String())
				mu.Lock()
				failed++
				mu.Unlock()
				return
			}
			ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
			mu.Lock()
			clientCPU += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
			mu.Unlock()
		}()
	}
	// Memory per waiting dispatch, sampled while dispatches wait; the
	// sample with the most of them counts.
	var perWaiting float64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var client *serve.Client
		if viaServe {
			client = serve.NewClient(serve.Address{Network: "unix", Addr: sock}, "")
		}
		most := 0
		for time.Since(start) < 5*time.Minute {
			waiting, mem := 0, int64(0)
			if viaServe {
				views, err := client.List(ctx, map[string][]string{"state": {"running"}})
				if err != nil {
					return
				}
				for _, v := range views {
					if v.Polls > 0 {
						waiting++
					}
				}
				mem = rss(svc.Process.Pid) - svcRSSBefore
			} else {
				for i, pid := range pids {
					if running[i].Load() {
						if r := rss(pid); r > 0 {
							waiting++
							mem += r
						}
					}
				}
			}
			if waiting > most {
				most, perWaiting = waiting, float64(mem)/float64(waiting)
			}
			if most > 0 && waiting == 0 {
				return
			}
			// Once a second: each sample is a list call the service
			// answers, counted in its CPU, and no part of a fleet's work.
			time.Sleep(time.Second)
		}
	}()
	wg.Wait()
	if mode == "serve-nowait" {
		clientCPU += waitAllOf(b, ctx, sock, ids, panes, &failed)
	}
	wall := time.Since(start)
	<-sampled
	if mode == "serve-api" {
		var self syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &self)
		clientCPU = time.Duration(self.Utime.Nano() + self.Stime.Nano() - selfBefore.Utime.Nano() - selfBefore.Stime.Nano())
	}
	server := procCPU(serverPID) - serverBefore
	var service time.Duration
	if svc != nil {
		service = treeCPU(svc.Process.Pid) - svcBefore
	}
	if _, err := priv.Run(ctx, nil, "list-sessions"); err != nil {
		b.Fatalf("the tmux server did not survive: %v", err)
	}

	// File written → done.
	var lat []time.Duration
	looks := 0
	var client *serve.Client
	if viaServe {
		client = serve.NewClient(serve.Address{Network: "unix", Addr: sock}, "")
		views, err := client.List(ctx, nil)
		if err != nil || len(views) != n {
			b.Fatalf("the service lists %d dispatches (%v)", len(views), err)
		}
		for _, v := range views {
			looks += v.Polls
			if fi, err := os.Stat(v.ArchivedPath); err == nil && v.Ended != nil && v.Outcome == "done" {
				lat = append(lat, v.Ended.Sub(fi.ModTime()))
			}
		}
	} else {
		for i, w := range works {
			files, _ := filepath.Glob(filepath.Join(w, ".tmp", "run-*", "*-analyst.md"))
			if len(files) == 1 {
				if fi, err := os.Stat(files[0]); err == nil {
					lat = append(lat, exits[i].Sub(fi.ModTime()))
				}
			}
		}
	}
	if len(lat) != n-failed {
		b.Fatalf("%d of %d dispatches have an archived answer, %d failed", len(lat), n, failed)
	}
	slices.Sort(lat)
	starts, lookProcs := countStarts(log)
	if !viaServe {
		looks = lookProcs // every look of a send is a tmux process
	}
	total := clientCPU + service + server
	b.ReportMetric(float64(total.Milliseconds())/float64(n), "cpu-ms/dispatch")
	b.ReportMetric(float64(clientCPU.Milliseconds())/float64(n), "client-cpu-ms/dispatch")
	b.ReportMetric(float64(service.Milliseconds())/float64(n), "service-cpu-ms/dispatch")
	b.ReportMetric(float64(server.Milliseconds())/float64(n), "tmux-server-cpu-ms/dispatch")
	b.ReportMetric(float64(starts)/float64(n), "tmux-procs/dispatch")
	b.ReportMetric(float64(lookProcs)/float64(max(looks, 1)), "tmux-procs/look")
	b.ReportMetric(float64(looks)/float64(n), "looks/dispatch")
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-file-to-done-median")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-file-to-done-p90")
	b.ReportMetric(perWaiting/1024, "KiB/waiting-dispatch")
	b.ReportMetric(float64(failed), "failed-dispatches")
	b.ReportMetric(wall.Seconds(), "s-wall")
}

// waitAllOf is the serve-nowait round's one `handoff-fsm wait --all` on
// the ids the `send --server --no-wait`s printed (a fleet script's way:
// submit each, then wait for all in one process). It checks every answer
// and returns the wait process's CPU.
func waitAllOf(b *testing.B, ctx context.Context, sock string, ids, panes []string, failed *int) time.Duration {
	b.Helper()
	args := []string{"wait", "--server", "unix:" + sock, "--all", "--json"}
	for _, id := range ids {
		if id != "" {
			args = append(args, id)
		}
	}
	cmd := cliCmd(ctx, args...)
	var out, errb testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var w serve.Waited
	if jerr := json.Unmarshal([]byte(out.String()), &w); jerr != nil {
		b.Fatalf("wait --all: %v, %v\n%s", err, jerr, errb.String())
	}
	byID := map[string]serve.View{}
	for _, v := range w.Ended {
		byID[v.ID] = v
	}
	for i, id := range ids {
		if id == "" {
			continue
		}
		v, ok := byID[id]
		switch {
		case !ok || v.Outcome != "done":
			b.Logf("dispatch to %s failed: %+v", panes[i], v)
			*failed++
		case !v.Whole || v.Content != "bench "+panes[i]+"\n":
			b.Errorf("dispatch to %s: a wrong answer %+v", panes[i], v)
		}
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// apiDispatch is one dispatch through the service's API from this process:
// submit, then wait for the answer, which must be the agent's echo.
// benchConfig polls every 2 s, within 300 s.
func benchConfig() *handoff.Config {
	c := handoff.DefaultConfig()
	c.Poll, c.ResponseTimeout = 2*time.Second, 300*time.Second
	return &c
}

func apiDispatch(b *testing.B, sock, tmuxSocket, pane, work string, mu *sync.Mutex, failed *int, exit *time.Time) {
	ctx := context.Background()
	c := serve.NewClient(serve.Address{Network: "unix", Addr: sock}, "")
	v, err := c.Submit(ctx, serve.SubmitBody{Pane: dispatchstate.Pane{Target: pane, Socket: tmuxSocket}, Role: "analyst", Workdir: work,
		Prompt: "bench " + pane, TmuxTimeout: ptr(30.0), Config: benchConfig()})
	if err == nil {
		v, err = serve.Wait(ctx, c, v.ID)
	}
	*exit = time.Now()
	switch {
	case err == nil && v.Outcome == "done" && (!v.Whole || v.Content != "bench "+pane+"\n"):
		b.Errorf("dispatch to %s: a wrong answer %+v", pane, v)
	case err != nil || v.Outcome != "done":
		b.Logf("dispatch to %s failed: %v %s", pane, err, v.Error)
		mu.Lock()
		*failed++
		mu.Unlock()
	}
}

func ptr[T any](v T) *T { return &v }

// countStarts counts the tmux processes the wrapper logged, and those that
// were looks (capture-pane).
func countStarts(log string) (all, looks int) {
	f, err := os.Open(log)
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		all++
		if strings.Contains(sc.Text(), "capture-pane") {
			looks++
		}
	}
	return all, looks
}

// rss is a process's resident memory in bytes, from /proc.
func rss(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// treeCPU is the CPU time of a process, its reaped children and its live
// descendants (the service's tmux control client), from /proc.
func treeCPU(pid int) time.Duration {
	total := procCPUWithChildren(pid)
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil || child == pid {
			continue
		}
		if parentOf(child) == pid {
			total += treeCPU(child)
		}
	}
	return total
}

// procCPUWithChildren is utime+stime+cutime+cstime of pid.
func procCPUWithChildren(pid int) time.Duration {
	f := statFields(pid)
	if len(f) < 15 {
		return 0
	}
	var sum int64
	for _, i := range []int{11, 12, 13, 14} {
		v, _ := strconv.ParseInt(f[i], 10, 64)
		sum += v
	}
	return time.Duration(sum) * time.Second / 100
}

func parentOf(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

// statFields are the fields of /proc/pid/stat after the command name.
func statFields(pid int) []string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	return strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
}

package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/url"
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
	"github.com/handoff-fsm/handoff-fsm/serve"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// BenchmarkSoak runs one `handoff-fsm serve` for a fleet: simulated agents
// (each echoing its prompt into its response file) in panes spread over
// several private tmux servers, one client goroutine per pane dispatching
// unique prompts through the API one after the other, for a while. During
// it the service is SIGKILLed and restarted on the same state folder twice
// and one tmux server is SIGKILLed. A client whose submission's answer was
// lost to a kill looks for its prompt in the list before it submits again.
//
// It fails unless every dispatch ends once with its own answer or the
// right error (terminal_error, exit 4, for the killed server's; the
// "died while pasting" error for one cut by a service kill in its paste),
// no prompt reached an agent twice or reached another agent (each agent
// logs the prompts it takes: sim-agent --prompt-log), no dispatch is
// listed twice or finishes twice, and the service's memory and open files
// stay flat through each of its lives. It reports file written → done,
// CPU per dispatch and the kills' effects.
//
//	go test -run '^$' -bench Soak -benchtime 1x -timeout 40m ./cmd/handoff-fsm
//	HANDOFF_SOAK_PANES=20 HANDOFF_SOAK_SERVERS=2 HANDOFF_SOAK_DURATION=60s HANDOFF_SOAK_WORK=5s go test … (small)
//
// Settings (env): HANDOFF_SOAK_PANES (200), HANDOFF_SOAK_SERVERS (4),
// HANDOFF_SOAK_DURATION (10m: how long new dispatches are submitted),
// HANDOFF_SOAK_WORK (30s: each turn's work, plus up to as much again),
// HANDOFF_SOAK_PAUSE (10s: a client's pause between its dispatches is up
// to this), HANDOFF_SOAK_MIN_DISPATCHES (1000 at the default size and
// duration, else 0: fewer accepted dispatches fail the run).
func BenchmarkSoak(b *testing.B) {
	if _, err := exec.LookPath("tmux"); err != nil {
		b.Skip("tmux is not installed: the soak runs its simulated agents in tmux panes")
	}
	cfg := soakConfigFromEnv(b)
	for range b.N {
		runSoak(b, cfg)
	}
}

// soakConfig is the soak's size and pace.
type soakConfig struct {
	panes, servers  int
	duration        time.Duration
	work, pause     time.Duration
	minDispatches   int
	fullSize        bool
	serviceKills    []float64 // when, as fractions of duration
	tmuxKill        float64
	restartAfter    time.Duration
	sampleEvery     time.Duration
	triesOnGonePane int
}

func soakConfigFromEnv(b *testing.B) soakConfig {
	c := soakConfig{panes: 200, servers: 4, duration: 10 * time.Minute, work: 30 * time.Second, pause: 10 * time.Second,
		serviceKills: []float64{0.3, 0.65}, tmuxKill: 0.45, restartAfter: 2 * time.Second, sampleEvery: 5 * time.Second,
		triesOnGonePane: 3}
	envInt := func(name string, p *int) {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				b.Fatalf("%s=%q is not a count", name, v)
			}
			*p = n
		}
	}
	envDur := func(name string, p *time.Duration) {
		if v := os.Getenv(name); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				b.Fatalf("%s=%q is not a duration", name, v)
			}
			*p = d
		}
	}
	envInt("HANDOFF_SOAK_PANES", &c.panes)
	envInt("HANDOFF_SOAK_SERVERS", &c.servers)
	envDur("HANDOFF_SOAK_DURATION", &c.duration)
	envDur("HANDOFF_SOAK_WORK", &c.work)
	envDur("HANDOFF_SOAK_PAUSE", &c.pause)
	c.fullSize = c.panes >= 200 && c.duration >= 10*time.Minute
	if c.fullSize {
		c.minDispatches = 1000
	}
	envInt("HANDOFF_SOAK_MIN_DISPATCHES", &c.minDispatches)
	if c.servers < 2 || c.panes < c.servers {
		b.Fatalf("the soak needs at least 2 tmux servers (one is killed) and a pane on each: %d panes on %d", c.panes, c.servers)
	}
	return c
}

// soakPane is one simulated agent: its pane, work folder and prompt log.
type soakPane struct {
	server       int
	socket, name string
	target, work string
	log          string
}

// soakRecord is one dispatch as its client saw it.
type soakRecord struct {
	pane      int
	prompt    string
	submitted time.Time
	ended     time.Time
	id        string
	// lost counts submissions whose answer never came (the service was
	// killed or down); found those that the list showed accepted after
	// all, resubmitted those it did not.
	lost, found, resubmitted int
	waitBreaks               int    // waits cut by a kill, taken up again
	refused                  string // a 4xx/5xx answer to the submission
	lostDispatch             string // the service no longer knows the id
	final                    serve.View
}

// soakLife is one service process: its samples of memory and open files.
type soakLife struct {
	svc     *service
	pid     int
	started time.Time
	samples []soakSample
	cpu     time.Duration // its CPU and its children's, read just before it ended
}

type soakSample struct {
	at       time.Time
	rss      int64
	fds      int
	inFlight int
}

// soak is one run: the agents, the service's lives, the clients' records.
type soak struct {
	b      *testing.B
	cfg    soakConfig
	root   string
	state  string
	sock   string
	client *serve.Client
	priv   []*tmuxdriver.Private
	srvPID []int
	panes  []soakPane
	end    time.Time

	mu             sync.Mutex
	lives          []*soakLife
	records        []*soakRecord
	serverCPU      []time.Duration // per tmux server, while measured
	killedServer   int
	serverKilledAt time.Time
	serviceDown    [][2]time.Time // each kill and the restart's first answer
	finishedEvents map[string]int
	inFlight       atomic.Int64
}

func runSoak(b *testing.B, cfg soakConfig) {
	ctx := context.Background()
	s := &soak{b: b, cfg: cfg, root: b.TempDir(), killedServer: -1, finishedEvents: map[string]int{}}
	s.state, s.sock = serveDirs(b)
	s.client = serve.NewClient(serve.Address{Network: "unix", Addr: s.sock}, "")
	s.startAgents(ctx)
	cpuStart := make([]time.Duration, cfg.servers)
	for i, pid := range s.srvPID {
		cpuStart[i] = procCPU(pid)
	}
	s.serverCPU = make([]time.Duration, cfg.servers)
	s.lives = []*soakLife{s.startService()}
	var selfBefore syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &selfBefore)

	follow, stopFollowing := context.WithCancel(ctx)
	var background sync.WaitGroup
	background.Add(2)
	go func() { defer background.Done(); s.followFinishedEvents(follow) }()
	go func() { defer background.Done(); s.sample(follow) }()

	start := time.Now()
	s.end = start.Add(cfg.duration)
	var workers sync.WaitGroup
	for i := range s.panes {
		workers.Add(1)
		go func() { defer workers.Done(); s.worker(ctx, i) }()
	}
	type step struct {
		at float64
		do func()
	}
	steps := []step{{cfg.tmuxKill, func() { s.killTmuxServer(ctx, cpuStart) }}}
	for _, at := range cfg.serviceKills {
		steps = append(steps, step{at, s.restartService})
	}
	slices.SortFunc(steps, func(a, b step) int { return int((a.at - b.at) * 1e6) })
	for _, st := range steps {
		time.Sleep(time.Until(start.Add(time.Duration(st.at * float64(cfg.duration)))))
		st.do()
	}
	workers.Wait()
	drained := time.Now()

	// The costs: the last service's, the live tmux servers', this client's.
	last := s.lives[len(s.lives)-1]
	last.cpu = treeCPU(last.pid)
	for i, pid := range s.srvPID {
		if i != s.killedServer {
			s.serverCPU[i] = procCPU(pid) - cpuStart[i]
		}
	}
	var self syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	clientCPU := time.Duration(self.Utime.Nano() + self.Stime.Nano() - selfBefore.Utime.Nano() - selfBefore.Stime.Nano())
	idleRSS, idleFDs := rss(last.pid), openFiles(last.pid)
	controlClients := s.controlClients(ctx)
	stopFollowing()
	background.Wait()

	s.check(ctx, soakCosts{client: clientCPU, wall: drained.Sub(start), idleRSS: idleRSS, idleFDs: idleFDs,
		controlClients: controlClients})
}

// startAgents starts the private tmux servers and their agents, and waits
// until every agent has drawn its screen.
func (s *soak) startAgents(ctx context.Context) {
	b := s.b
	agent := func(work, log string) string {
		// Slow redraws: two hundred agents drawing at Codex's pace would
		// swamp a small machine, and what is measured is the service.
		return "exec env " + asCLI + "=1 " + handoff.ShellQuote(os.Args[0]) + " sim-agent --echo --startup 300ms --stream 1ms" +
			" --work " + s.cfg.work.String() + " --work-jitter " + s.cfg.work.String() + " --redraw 2s" +
			" --prompt-log " + handoff.ShellQuote(log) + " --cwd " + handoff.ShellQuote(work)
	}
	for i := range s.cfg.panes {
		srv := i % s.cfg.servers
		work := filepath.Join(s.root, fmt.Sprintf("s%d-w%03d", srv, i))
		if err := os.MkdirAll(work, 0o755); err != nil {
			b.Fatal(err)
		}
		s.panes = append(s.panes, soakPane{server: srv, work: work, log: filepath.Join(s.root, fmt.Sprintf("prompts-%03d.log", i))})
	}
	s.priv = make([]*tmuxdriver.Private, s.cfg.servers)
	for i := range s.panes {
		p := &s.panes[i]
		if s.priv[p.server] == nil {
			priv, err := tmuxdriver.StartPrivate(ctx, tmuxdriver.PrivateOptions{Prefix: "hf-soak", Session: "agents",
				Width: 100, Height: 30, Dir: p.work, Command: agent(p.work, p.log)})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { priv.Close(context.Background()) })
			s.priv[p.server] = priv
			p.target = priv.Pane
		} else {
			out, err := s.priv[p.server].Run(ctx, nil, "new-window", "-d", "-P", "-F", "#{pane_id}", "-t", "agents:", "-c", p.work, agent(p.work, p.log))
			if err != nil {
				b.Fatal(err)
			}
			p.target = strings.TrimSpace(out)
		}
		p.socket = s.priv[p.server].Socket
		p.name = fmt.Sprintf("s%d%s", p.server, p.target)
	}
	for _, priv := range s.priv {
		out, err := priv.Run(ctx, nil, "display-message", "-p", "#{pid}")
		if err != nil {
			b.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(out))
		s.srvPID = append(s.srvPID, pid)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < len(s.panes); {
		p := s.panes[i]
		out, err := s.priv[p.server].Run(ctx, nil, "capture-pane", "-p", "-t", p.target)
		if err == nil && strings.Contains(out, "sim-model") {
			i++
			continue
		}
		if time.Now().After(deadline) {
			b.Fatalf("the agent in %s did not draw its screen in 2 minutes (%v):\n%s", p.name, err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// startService starts a service on the soak's state folder: a new life.
func (s *soak) startService() *soakLife {
	svc := startServe(s.b, s.state, s.sock)
	return &soakLife{svc: svc, pid: svc.cmd.Process.Pid, started: time.Now()}
}

// restartService SIGKILLs the service and starts another on its folder.
func (s *soak) restartService() {
	s.mu.Lock()
	life := s.lives[len(s.lives)-1]
	s.mu.Unlock()
	life.cpu = treeCPU(life.pid)
	killed := time.Now()
	life.svc.kill()
	time.Sleep(s.cfg.restartAfter)
	next := s.startService()
	s.mu.Lock()
	s.lives = append(s.lives, next)
	s.serviceDown = append(s.serviceDown, [2]time.Time{killed, next.started})
	s.mu.Unlock()
}

// killTmuxServer SIGKILLs the last tmux server, then any of its agents
// that outlived it.
func (s *soak) killTmuxServer(ctx context.Context, cpuStart []time.Duration) {
	k := s.cfg.servers - 1
	var agents []int
	if out, err := s.priv[k].Run(ctx, nil, "list-panes", "-a", "-F", "#{pane_pid}"); err == nil {
		for _, f := range strings.Fields(out) {
			if pid, err := strconv.Atoi(f); err == nil {
				agents = append(agents, pid)
			}
		}
	}
	cpu := procCPU(s.srvPID[k]) - cpuStart[k]
	if err := syscall.Kill(s.srvPID[k], syscall.SIGKILL); err != nil {
		s.b.Fatalf("kill the tmux server: %v", err)
	}
	s.mu.Lock()
	s.serverCPU[k], s.killedServer, s.serverKilledAt = cpu, k, time.Now()
	s.mu.Unlock()
	time.Sleep(2 * time.Second)
	for _, pid := range agents {
		// Only what is still a simulated agent: a pid may be reused.
		if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil && strings.Contains(string(cmd), "sim-agent") {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// gone says whether pane i's tmux server was killed, and when.
func (s *soak) gone(i int) (time.Time, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.panes[i].server == s.killedServer {
		return s.serverKilledAt, true
	}
	return time.Time{}, false
}

// worker is the client of one pane: a dispatch, its answer, a pause, again,
// until the soak's end. A pane whose server was killed gets a few more
// tries (each must be refused), then no more.
func (s *soak) worker(ctx context.Context, i int) {
	p := s.panes[i]
	// The first dispatches do not all start in the same second.
	time.Sleep(mrand.N(s.cfg.pause + time.Nanosecond))
	triesOnGone := 0
	for n := 1; time.Now().Before(s.end); n++ {
		var nonce [4]byte
		_, _ = rand.Read(nonce[:])
		r := &soakRecord{pane: i, prompt: fmt.Sprintf("soak %s #%d %s", p.name, n, hex.EncodeToString(nonce[:]))}
		s.mu.Lock()
		s.records = append(s.records, r)
		s.mu.Unlock()
		s.dispatch(ctx, r)
		if killed, ok := s.gone(i); ok && r.submitted.After(killed) {
			if triesOnGone++; triesOnGone >= s.cfg.triesOnGonePane {
				return
			}
		}
		time.Sleep(mrand.N(s.cfg.pause + time.Nanosecond))
	}
}

// dispatch submits r and waits for its end, through the service's kills: a
// submission whose answer is lost is looked for by its prompt before it is
// submitted again; a wait cut short is taken up again.
func (s *soak) dispatch(ctx context.Context, r *soakRecord) {
	p := s.panes[r.pane]
	body := serve.SubmitBody{Pane: dispatchstate.Pane{Target: p.target, Socket: p.socket}, Role: "soak", Workdir: p.work, Prompt: r.prompt,
		TmuxTimeout: ptr(30.0), Config: soakConfigBody()}
	r.submitted = time.Now()
	s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	for r.id == "" {
		v, err := s.client.Submit(ctx, body)
		var se *serve.StatusError
		switch {
		case err == nil:
			r.id = v.ID
		case errors.As(err, &se):
			r.refused = fmt.Sprintf("HTTP %d: %s", se.Code, se.APIError.Error)
			r.ended = time.Now()
			return
		default:
			r.lost++
			if v, ok := s.findByPrompt(ctx, r); ok {
				r.id = v.ID
				r.found++
			} else {
				r.resubmitted++
			}
		}
	}
	for {
		v, err := s.client.Get(ctx, r.id, time.Minute)
		var se *serve.StatusError
		switch {
		case err == nil && v.Final:
			r.final, r.ended = v, time.Now()
			return
		case errors.As(err, &se):
			r.lostDispatch = fmt.Sprintf("HTTP %d: %s", se.Code, se.APIError.Error)
			r.ended = time.Now()
			return
		case err != nil:
			r.waitBreaks++
			s.awaitService(ctx)
		}
	}
}

// cutInPaste says whether v ended because the service died while pasting it.
func cutInPaste(v serve.View) bool {
	return v.Outcome == "error" && strings.Contains(v.Error, "died while pasting")
}

// soakConfigBody is the dispatches' settings: the spec's 2 s poll; a
// generous timeout, and a long wait for an agent still busy with a prompt
// cut in its paste by a kill.
func soakConfigBody() *handoff.Config {
	c := benchConfig()
	c.ResponseTimeout, c.BusyWait = 600*time.Second, 180*time.Second
	return c
}

// findByPrompt waits until a service answers, then looks for r's prompt
// among the dispatches accepted since just before r was submitted.
func (s *soak) findByPrompt(ctx context.Context, r *soakRecord) (serve.View, bool) {
	q := url.Values{"since": {r.submitted.Add(-time.Minute).UTC().Format(time.RFC3339)}}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		views, err := s.client.List(ctx, q)
		if err == nil {
			for _, v := range views {
				if v.Prompt == r.prompt {
					return v, true
				}
			}
			return serve.View{}, false
		}
		if time.Now().After(deadline) {
			s.b.Errorf("no service answered for 3 minutes: %v", err)
			return serve.View{}, false
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// awaitService waits until a service answers again.
func (s *soak) awaitService(ctx context.Context) {
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		if _, err := s.client.List(ctx, url.Values{"limit": {"1"}}); err == nil {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// followFinishedEvents counts the "finished" events of each dispatch over
// every life of the service (a dispatch ended twice shows twice).
func (s *soak) followFinishedEvents(ctx context.Context) {
	for ctx.Err() == nil {
		ch, err := s.client.Events(ctx, "", 0)
		if err != nil {
			time.Sleep(200 * time.Millisecond)
			continue
		}
		for e := range ch {
			if e.Type == "finished" {
				s.mu.Lock()
				s.finishedEvents[e.ID]++
				s.mu.Unlock()
			}
		}
	}
}

// sample reads the live service's memory and open files every few seconds.
func (s *soak) sample(ctx context.Context) {
	t := time.NewTicker(s.cfg.sampleEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		life := s.lives[len(s.lives)-1]
		s.mu.Unlock()
		inFlight := int(s.inFlight.Load())
		m, fds := rss(life.pid), openFiles(life.pid)
		if m == 0 || fds < 0 {
			continue // between a kill and the next life
		}
		s.mu.Lock()
		life.samples = append(life.samples, soakSample{at: time.Now(), rss: m, fds: fds, inFlight: inFlight})
		s.mu.Unlock()
	}
}

// openFiles counts a process's open file descriptors (-1: it is gone).
func openFiles(pid int) int {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return -1
	}
	return len(fds)
}

// controlClients counts the clients attached to each live tmux server (the
// services' control clients: a killed service's must not linger).
func (s *soak) controlClients(ctx context.Context) []int {
	var n []int
	for i, priv := range s.priv {
		if i == s.killedServer {
			continue
		}
		out, _ := priv.Run(ctx, nil, "list-clients", "-F", "#{client_pid}")
		n = append(n, len(strings.Fields(out)))
	}
	return n
}

// soakCosts are what runSoak measured at the end.
type soakCosts struct {
	client         time.Duration
	wall           time.Duration
	idleRSS        int64
	idleFDs        int
	controlClients []int
}

// check reads every record, the service's list and the agents' prompt
// logs, fails on anything wrong, and reports.
func (s *soak) check(ctx context.Context, c soakCosts) {
	b := s.b
	views, err := s.client.List(ctx, nil)
	if err != nil {
		b.Fatalf("list the dispatches: %v", err)
	}
	listed := map[string]serve.View{}
	byPrompt := map[string]int{}
	for _, v := range views {
		listed[v.ID] = v
		byPrompt[v.Prompt]++
		if !v.Final {
			b.Errorf("dispatch %s (%q) never ended: %s", v.ID, v.Prompt, v.State)
		}
	}
	// What each agent took, from its own log.
	taken := map[string][]int{}
	for i, p := range s.panes {
		f, err := os.Open(p.log)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var prompt string
			if err := json.Unmarshal(sc.Bytes(), &prompt); err != nil {
				b.Errorf("%s: a prompt log line is not a JSON string: %q", p.log, sc.Text())
			}
			taken[prompt] = append(taken[prompt], i)
		}
		f.Close()
	}

	kinds := map[string]int{}
	ours := map[string]bool{}
	var lat, latSteady []time.Duration
	var lost, found, resubmitted, waitBreaks, accepted, acceptedTwice int
	var goneMsg string
	var lastGoneEnd time.Time
	for _, r := range s.records {
		ours[r.prompt] = true
		lost, found, resubmitted, waitBreaks = lost+r.lost, found+r.found, resubmitted+r.resubmitted, waitBreaks+r.waitBreaks
		if byPrompt[r.prompt] > 1 {
			acceptedTwice++
			b.Errorf("%q was accepted %d times", r.prompt, byPrompt[r.prompt])
		}
		for _, pane := range taken[r.prompt] {
			if pane != r.pane {
				b.Errorf("%q reached %s, not its own pane %s", r.prompt, s.panes[pane].name, s.panes[r.pane].name)
			}
		}
		if n := len(taken[r.prompt]); n > 1 {
			b.Errorf("%q was pasted %d times (dispatch %s)", r.prompt, n, r.id)
		}
		kind, ok := s.classify(r, len(taken[r.prompt]))
		kinds[kind]++
		if !ok {
			b.Errorf("dispatch %s to %s (%q): %s: %+v", r.id, s.panes[r.pane].name, r.prompt, kind, r.final)
		}
		if r.id == "" {
			continue
		}
		accepted++
		if _, ok := listed[r.id]; !ok {
			b.Errorf("dispatch %s (%q) is not in the service's list", r.id, r.prompt)
		}
		if r.final.Report.Error == "terminal_error" && s.panes[r.pane].server == s.killedServer && r.submitted.Before(s.serverKilledAt) {
			goneMsg = r.final.Error
			if r.final.Ended != nil && r.final.Ended.After(lastGoneEnd) {
				lastGoneEnd = *r.final.Ended
			}
		}
		if r.final.Outcome == "done" && r.final.Ended != nil {
			if fi, err := os.Stat(r.final.ArchivedPath); err == nil {
				d := r.final.Ended.Sub(fi.ModTime())
				lat = append(lat, d)
				if !s.spansAKill(r) {
					latSteady = append(latSteady, d)
				}
			} else {
				b.Errorf("dispatch %s: its archived answer: %v", r.id, err)
			}
		}
	}
	if len(views) != accepted {
		b.Errorf("the service lists %d dispatches, the clients had %d accepted", len(views), accepted)
	}
	for prompt, panes := range taken {
		if !ours[prompt] {
			b.Errorf("%s took a prompt no client sent: %q", s.panes[panes[0]].name, prompt)
		}
	}
	twice := 0
	for id, n := range s.finishedEvents {
		if n > 1 {
			twice++
			b.Errorf("dispatch %s finished %d times", id, n)
		}
	}
	if accepted < s.cfg.minDispatches {
		b.Errorf("%d dispatches accepted, fewer than the %d the soak must run", accepted, s.cfg.minDispatches)
	}
	for i, n := range c.controlClients {
		if n > 1 {
			b.Errorf("tmux server %d has %d clients after the drain: a killed service's control client lingers", i, n)
		}
	}
	s.checkFlat()

	// The report.
	var service, tmux time.Duration
	for _, l := range s.lives {
		service += l.cpu
	}
	for _, t := range s.serverCPU {
		tmux += t
	}
	ended := max(accepted, 1)
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(ended) }
	slices.Sort(lat)
	slices.Sort(latSteady)
	pct := func(l []time.Duration, p float64) float64 {
		if len(l) == 0 {
			return 0
		}
		return float64(l[min(len(l)-1, int(float64(len(l))*p))].Microseconds()) / 1000
	}
	b.ReportMetric(float64(accepted), "dispatches")
	b.ReportMetric(float64(kinds["answer right"]), "answers-right")
	b.ReportMetric(float64(len(s.records)-kinds["answer right"]), "errors")
	b.ReportMetric(pct(lat, 0.5), "ms-file-to-done-p50")
	b.ReportMetric(pct(lat, 0.99), "ms-file-to-done-p99")
	b.ReportMetric(pct(latSteady, 0.5), "ms-file-to-done-p50-steady")
	b.ReportMetric(pct(latSteady, 0.99), "ms-file-to-done-p99-steady")
	b.ReportMetric(per(service+tmux+c.client), "cpu-ms/dispatch")
	b.ReportMetric(per(service), "service-cpu-ms/dispatch")
	b.ReportMetric(per(tmux), "tmux-servers-cpu-ms/dispatch")
	b.ReportMetric(per(c.client), "client-cpu-ms/dispatch")

	var t strings.Builder
	fmt.Fprintf(&t, "soak: %d panes on %d tmux servers, new dispatches for %v (drained after %v), agents working %v + up to %v, pauses up to %v\n",
		s.cfg.panes, s.cfg.servers, s.cfg.duration, c.wall.Round(time.Second), s.cfg.work, s.cfg.work, s.cfg.pause)
	fmt.Fprintf(&t, "| dispatches | %d submitted, %d accepted |\n", len(s.records), accepted)
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		fmt.Fprintf(&t, "| %s | %d |\n", k, kinds[k])
	}
	fmt.Fprintf(&t, "| answers to a submission lost to a kill | %d: %d found accepted in the list, %d submitted again; prompts accepted twice: %d |\n",
		lost, found, resubmitted, acceptedTwice)
	fmt.Fprintf(&t, "| waits cut by a kill, taken up again | %d |\n", waitBreaks)
	fmt.Fprintf(&t, "| prompts pasted twice / finished twice | %d / %d |\n", s.pastedTwice(taken), twice)
	if !s.serverKilledAt.IsZero() {
		fmt.Fprintf(&t, "| killed tmux server: its dispatches in flight ended within | %v of the kill (%q) |\n",
			lastGoneEnd.Sub(s.serverKilledAt).Round(10*time.Millisecond), goneMsg)
	}
	fmt.Fprintf(&t, "| file written → done, p50 / p99 | %.0f / %.0f ms (%d answers); not across a service kill: %.0f / %.0f ms (%d) |\n",
		pct(lat, 0.5), pct(lat, 0.99), len(lat), pct(latSteady, 0.5), pct(latSteady, 0.99), len(latSteady))
	fmt.Fprintf(&t, "| CPU per dispatch: service + tmux servers + client | %.1f ms (%.1f + %.1f + %.1f) |\n",
		per(service+tmux+c.client), per(service), per(tmux), per(c.client))
	for i, l := range s.lives {
		if len(l.samples) == 0 {
			continue
		}
		first, last := s.steadySamples(l)
		fmt.Fprintf(&t, "| service life %d (%v): RSS, open files | %.1f → %.1f MiB, %d → %d (in flight %d → %d; %d samples) |\n",
			i+1, l.samples[len(l.samples)-1].at.Sub(l.started).Round(time.Second), mib(first.rss), mib(last.rss),
			first.fds, last.fds, first.inFlight, last.inFlight, len(l.samples))
	}
	unwatched := 0
	for _, l := range s.lives {
		unwatched += strings.Count(l.svc.stderr.String(), "polling only")
	}
	fmt.Fprintf(&t, "| dispatches without a response-file watch (polling only: no inotify instance left, max_user_instances %s) | %d |\n",
		strings.TrimSpace(readFile("/proc/sys/fs/inotify/max_user_instances")), unwatched)
	fmt.Fprintf(&t, "| after the drain, nothing in flight | RSS %.1f MiB, %d open files, clients per live tmux server %v |\n",
		mib(c.idleRSS), c.idleFDs, c.controlClients)
	if load, err := os.ReadFile("/proc/loadavg"); err == nil {
		fmt.Fprintf(&t, "| load average at the end | %s |\n", strings.Join(strings.Fields(string(load))[:3], " "))
	}
	// Printed whole: a benchmark's log is cut to a few lines without -v.
	fmt.Print(t.String())
}

// classify names how r ended and says whether that is right.
func (s *soak) classify(r *soakRecord, pasted int) (string, bool) {
	v := r.final
	exit := -1
	if v.Exit != nil {
		exit = *v.Exit
	}
	killed, onGone := s.gone(r.pane)
	switch {
	case r.refused != "":
		return "refused: " + r.refused, false
	case r.lostDispatch != "":
		return "lost by the service: " + r.lostDispatch, false
	case v.Outcome == "done":
		if v.Whole && strings.Contains(v.Content, handoff.InstructionHeader) {
			return "a wrong answer: the prompt joined an earlier one left unsent in the composer", false
		}
		if !v.Whole || v.Content != r.prompt+"\n" {
			return "a wrong answer", false
		}
		if pasted != 1 {
			return fmt.Sprintf("answered, but the agent took the prompt %d times", pasted), false
		}
		return "answer right", true
	case onGone && v.Report.Error == "terminal_error" && exit == 4 && r.submitted.Before(killed):
		return "in flight on the killed tmux server: terminal_error, exit 4", true
	case onGone && v.Report.Error == "terminal_error" && exit == 4:
		return "refused, the pane is gone: terminal_error, exit 4", true
	case exit == 1 && cutInPaste(v) && s.spansAKill(r) && strings.Contains(v.Error, "did not reach the agent"):
		return "cut in its paste by a service kill, found unsent in the composer and cleared: error, exit 1", pasted == 0
	case exit == 1 && cutInPaste(v) && s.spansAKill(r):
		return "cut in its paste by a service kill, may have reached the agent: error, exit 1", true
	}
	return fmt.Sprintf("wrong ending: %s/%s exit %d: %s", v.Outcome, v.Report.Error, exit, v.Error), false
}

// spansAKill says whether a service kill fell between r's submission and
// its end.
func (s *soak) spansAKill(r *soakRecord) bool {
	for _, d := range s.serviceDown {
		if r.submitted.Before(d[1]) && r.ended.After(d[0]) {
			return true
		}
	}
	return false
}

func (s *soak) pastedTwice(taken map[string][]int) int {
	n := 0
	for _, panes := range taken {
		if len(panes) > 1 {
			n++
		}
	}
	return n
}

// steadySamples are a life's first sample once the fleet is at work (20 s
// after its start) and its last before the clients stopped submitting.
func (s *soak) steadySamples(l *soakLife) (first, last soakSample) {
	var in []soakSample
	for _, m := range l.samples {
		if m.at.Sub(l.started) >= 20*time.Second && m.at.Before(s.end) {
			in = append(in, m)
		}
	}
	if len(in) == 0 {
		in = l.samples
	}
	return in[0], in[len(in)-1]
}

// checkFlat fails a life of the service whose memory or open files grew
// clearly between its first and last steady samples (more than half again
// and 32 MiB of memory; more open files than a fifth again and 16).
func (s *soak) checkFlat() {
	for i, l := range s.lives {
		if len(l.samples) < 2 {
			continue
		}
		first, last := s.steadySamples(l)
		if last.rss > first.rss*3/2 && last.rss-first.rss > 32<<20 {
			s.b.Errorf("service life %d: memory grew from %.1f to %.1f MiB", i+1, mib(first.rss), mib(last.rss))
		}
		if last.fds > first.fds*6/5 && last.fds-first.fds > 16 {
			s.b.Errorf("service life %d: open files grew from %d to %d (in flight %d → %d)", i+1, first.fds, last.fds, first.inFlight, last.inFlight)
		}
	}
}

func readFile(name string) string {
	b, _ := os.ReadFile(name)
	return string(b)
}

func mib(n int64) float64 { return float64(n) / (1 << 20) }

package browser

import (
	"context"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/handoff-fsm/handoff-fsm/internal/simagent"
	"github.com/handoff-fsm/handoff-fsm/serve"
)

// cpu is the CPU time (user + system) this process has used so far: the
// service, and the browser driver's client, which runs in it too (an
// upper bound for the service's share).
func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time process pid has used so far (Linux /proc).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ is 100
}

// BenchmarkBoardCost measures what the board costs the service and the
// tmux server, per second, with four idle agents on one tmux server: with
// no page open (the board must cost nothing), with the board open in
// headless Chromium (its panes read every 5 s, the event stream open), and
// with a dispatch's page open, and with a pane's live screen open (a read
// of the pane every second). Run it with -benchtime 1x: each phase lasts
// 20 s of wall time.
//
//	go test -run '^$' -bench BoardCost -benchtime 1x ./contrib/browser
func BenchmarkBoardCost(b *testing.B) {
	idle := simagent.Options{Echo: true, Startup: 200 * time.Millisecond, Work: 300 * time.Millisecond}
	l := startLive(b, idle, idle, idle, idle)
	out, err := l.priv.Run(context.Background(), nil, "display-message", "-p", "#{pid}")
	if err != nil {
		b.Fatal(err)
	}
	tmuxPID, _ := strconv.Atoi(strings.TrimSpace(out))
	id := l.submit(b, l.panes[0], "analyst", "One dispatch for the history")
	if _, err := serve.Wait(context.Background(), l.client, id); err != nil {
		b.Fatal(err)
	}
	const phase = 20 * time.Second
	measure := func(name string) {
		time.Sleep(2 * time.Second) // let the page settle
		c0, t0 := cpu(), procCPU(tmuxPID)
		time.Sleep(phase)
		c1, t1 := cpu(), procCPU(tmuxPID)
		b.ReportMetric(float64((c1-c0).Microseconds())/1000/phase.Seconds(), name+"-service-ms/s")
		b.ReportMetric(float64((t1-t0).Microseconds())/1000/phase.Seconds(), name+"-tmux-ms/s")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		measure("nobody")
		ctx := browser(b)
		l.signIn(b, ctx)
		measure("board")
		if err := chromedp.Do(ctx, chromedp.Navigate(l.url+"/d/"+id), chromedp.WaitVisible(chromedp.CSS("#d-diagram svg"))); err != nil {
			b.Fatal(err)
		}
		measure("dispatch")
		// A pane's screen, live: one capture and classification a second.
		q := "/pane?pane=" + strings.ReplaceAll(l.panes[0], "%", "%25") + "&socket=" + l.priv.Socket
		if err := chromedp.Do(ctx, chromedp.Navigate(l.url+q), chromedp.WaitVisible(chromedp.CSS("#p-screen .line"))); err != nil {
			b.Fatal(err)
		}
		reads := l.screenReads.Load()
		measure("pane")
		b.ReportMetric(float64(l.screenReads.Load()-reads)/(phase.Seconds()+2), "pane-reads/s")
	}
}

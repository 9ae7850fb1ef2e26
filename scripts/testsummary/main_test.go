package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A real `go test -json` run of a small module through the filter: the
// log shows the failing test's output and each package's result line,
// not the passing tests' logs; the copy is the whole stream; the summary
// lists the tests without subtests, slowest first, and the package.
func TestFilterAndSummaryOfARealRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("m_test.go", `package m

import (
	"testing"
	"time"
)

func TestQuiet(t *testing.T) { t.Log("quiet log line") }

func TestBroken(t *testing.T) { t.Fatal("broken on purpose") }

func TestParent(t *testing.T) {
	t.Run("slow", func(t *testing.T) { time.Sleep(300 * time.Millisecond) })
	t.Run("quick", func(t *testing.T) {})
}

func TestSkipped(t *testing.T) { t.Skip("not here") }
`)
	cmd := exec.Command("go", "test", "-json", "-count=1", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	stream, err := cmd.Output()
	if err == nil {
		t.Fatalf("go test passed; the module has a failing test:\n%s", stream)
	}
	raw, got := filtered(t, stream)
	if raw != string(stream) {
		t.Fatalf("the copy differs from the stream:\n%s", raw)
	}
	logHas(t, got, "broken on purpose", "--- FAIL: TestBroken", "FAIL\texample.com/m\t")
	for _, unwanted := range []string{"quiet log line", "=== RUN   TestQuiet", "not here", "TestParent/slow"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("the log shows %q, which plain go test does not:\n%s", unwanted, got)
		}
	}

	sum := summaryOf(t, stream, 2)
	lines := strings.Split(strings.TrimSpace(sum), "\n")
	// Title, the two slowest leaves, title, the package.
	if len(lines) != 5 || !strings.HasSuffix(lines[1], "example.com/m TestParent/slow") ||
		!strings.HasPrefix(lines[3], "slowest 2 packages") || !strings.HasSuffix(lines[4], "example.com/m  (fail)") {
		t.Fatalf("summary:\n%s", sum)
	}
	if strings.Contains(sum, "TestParent ") || strings.Contains(sum, "TestParent\n") {
		t.Fatalf("the parent is listed beside its subtests:\n%s", sum)
	}
}

// A package that panics (or times out) while tests run: their output is
// printed, and they are summarised as unfinished, timed to the last event.
// The stream is what test2json writes for `panic: test timed out`.
func TestUnfinishedTestsAreShownAndTimed(t *testing.T) {
	stream := `{"Time":"2026-01-01T00:00:00Z","Action":"start","Package":"p"}
{"Time":"2026-01-01T00:00:00Z","Action":"run","Package":"p","Test":"TestHang"}
{"Time":"2026-01-01T00:00:00Z","Action":"output","Package":"p","Test":"TestHang","Output":"=== RUN   TestHang\n"}
{"Time":"2026-01-01T00:00:01Z","Action":"output","Package":"p","Test":"TestHang","Output":"    hang_test.go:9: waiting on the agent\n"}
{"Time":"2026-01-01T00:00:30Z","Action":"output","Package":"p","Output":"panic: test timed out after 30s\n"}
{"Time":"2026-01-01T00:00:30Z","Action":"output","Package":"p","Output":"FAIL\tp\t30.0s\n"}
{"Time":"2026-01-01T00:00:30Z","Action":"fail","Package":"p","Elapsed":30}
not json: the go command's own message
`
	_, got := filtered(t, []byte(stream))
	logHas(t, got, "panic: test timed out", "waiting on the agent", "unfinished when its package failed", "not json: the go command's own message")
	if sum := summaryOf(t, []byte(stream), 10); !strings.Contains(sum, "30.0s  p TestHang  (unfinished)") {
		t.Fatalf("summary:\n%s", sum)
	}
}

// filtered is stream through the filter: the copy and the log.
func filtered(t *testing.T, stream []byte) (raw, log string) {
	t.Helper()
	var r, l bytes.Buffer
	if err := filter(bytes.NewReader(stream), &r, &l); err != nil {
		t.Fatal(err)
	}
	return r.String(), l.String()
}

// logHas fails the test for each of wants that log lacks.
func logHas(t *testing.T, log string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// summaryOf is the summary of stream's n slowest tests and packages.
func summaryOf(t *testing.T, stream []byte, n int) string {
	t.Helper()
	runs, err := read(bytes.NewReader(stream))
	if err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	summarise(&sum, runs, n)
	return sum.String()
}

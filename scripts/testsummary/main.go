// Command testsummary reads `go test -json` output, for CI (.ci/run).
//
// As a filter (-o FILE) it copies the stream to FILE and prints what plain
// `go test` prints: a line per package, build errors, and the output of
// the tests that failed (or were still running when their package
// failed, as after a panic or a timeout). CI's log stays as short as
// without -json; FILE keeps everything.
//
//	go test -json ./... | testsummary -o tests.json
//
// Given files, it prints the slowest tests (those without subtests, so a
// parent's time is not counted twice) and the slowest packages in them.
//
//	testsummary -top 10 tests.json more.json
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	Test       string
	Elapsed    float64
	Output     string
	ImportPath string // build-output events
}

func main() {
	out := flag.String("o", "", "filter stdin to the terminal and copy it to this `file`")
	top := flag.Int("top", 10, "how many of the slowest tests to list")
	flag.Parse()
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			fatal(err)
		}
		err = filter(os.Stdin, f, os.Stdout)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			fatal(err)
		}
		return
	}
	var runs []run
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fatal(err)
		}
		rs, err := read(f)
		f.Close()
		if err != nil {
			fatal(fmt.Errorf("%s: %w", name, err))
		}
		runs = append(runs, rs...)
	}
	summarise(os.Stdout, runs, *top)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "testsummary:", err)
	os.Exit(1)
}

// filter copies in to raw and prints to w what plain `go test` would. A
// line that is not JSON (go test's own complaint, say) is printed as is.
func filter(in io.Reader, raw, w io.Writer) error {
	type key struct{ pkg, test string }
	buf := map[key]*strings.Builder{}
	flush := func(k key) {
		if b := buf[k]; b != nil {
			io.WriteString(w, b.String())
			delete(buf, k)
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		if _, err := raw.Write(append(line, '\n')); err != nil {
			return err
		}
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		k := key{e.Package, e.Test}
		switch {
		case e.Action == "build-output":
			io.WriteString(w, e.Output)
		case e.Test == "" && e.Action == "output":
			// -json implies -v: a passing package's PASS line is not
			// what plain go test shows.
			if e.Output != "PASS\n" {
				io.WriteString(w, e.Output)
			}
		case e.Test == "" && e.Action == "fail":
			// A panic or a timeout ends the package while tests still
			// run: their output is what tells why.
			var open []key
			for k := range buf {
				if k.pkg == e.Package {
					open = append(open, k)
				}
			}
			sort.Slice(open, func(i, j int) bool { return open[i].test < open[j].test })
			for _, k := range open {
				fmt.Fprintf(w, "--- output of %s, unfinished when its package failed:\n", k.test)
				flush(k)
			}
		case e.Test == "":
		case e.Action == "output":
			if buf[k] == nil {
				buf[k] = &strings.Builder{}
			}
			buf[k].WriteString(e.Output)
		case e.Action == "fail":
			flush(k)
		case e.Action == "pass" || e.Action == "skip":
			delete(buf, k)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	// The stream was cut (go test killed): what ran last is the clue.
	var open []key
	for k := range buf {
		open = append(open, k)
	}
	sort.Slice(open, func(i, j int) bool { return open[i].pkg+open[i].test < open[j].pkg+open[j].test })
	for _, k := range open {
		fmt.Fprintf(w, "--- output of %s %s, unfinished when the stream ended:\n", k.pkg, k.test)
		flush(k)
	}
	return nil
}

// run is one test's or package's time.
type run struct {
	pkg, test string // test is empty for a package
	elapsed   time.Duration
	result    string // pass, fail, skip, or "unfinished"
	leaf      bool   // a test without subtests
}

// read collects the finished tests and packages of one stream, and the
// tests that started but never finished (timed to the stream's last event).
func read(in io.Reader) ([]run, error) {
	type key struct{ pkg, test string }
	started := map[key]time.Time{}
	var order []key
	var runs []run
	var last time.Time
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		if e.Time.After(last) {
			last = e.Time
		}
		k := key{e.Package, e.Test}
		switch e.Action {
		case "run", "cont":
			// cont: a parallel test starts its work after its pause
			// (as go test times it).
			if _, ok := started[k]; !ok {
				order = append(order, k)
			}
			started[k] = e.Time
		case "pass", "fail", "skip":
			runs = append(runs, run{pkg: e.Package, test: e.Test, result: e.Action,
				elapsed: time.Duration(e.Elapsed * float64(time.Second))})
			delete(started, k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, k := range order {
		if t, ok := started[k]; ok {
			runs = append(runs, run{pkg: k.pkg, test: k.test, result: "unfinished", elapsed: last.Sub(t)})
		}
	}
	parents := map[key]bool{}
	for _, r := range runs {
		if i := strings.LastIndex(r.test, "/"); i >= 0 {
			parents[key{r.pkg, r.test[:i]}] = true
		}
	}
	for i := range runs {
		runs[i].leaf = runs[i].test != "" && !parents[key{runs[i].pkg, runs[i].test}]
	}
	return runs, nil
}

// summarise prints the top slowest tests and, as many, packages.
func summarise(w io.Writer, runs []run, top int) {
	var tests, pkgs []run
	for _, r := range runs {
		switch {
		case r.leaf:
			tests = append(tests, r)
		case r.test == "":
			pkgs = append(pkgs, r)
		}
	}
	list := func(title string, rs []run) {
		sort.SliceStable(rs, func(i, j int) bool { return rs[i].elapsed > rs[j].elapsed })
		fmt.Fprintf(w, "%s:\n", title)
		if len(rs) == 0 {
			fmt.Fprintln(w, "  (none)")
		}
		for _, r := range rs[:min(top, len(rs))] {
			name := r.pkg
			if r.test != "" {
				name += " " + r.test
			}
			note := ""
			if r.result != "pass" {
				note = "  (" + r.result + ")"
			}
			fmt.Fprintf(w, "  %8.1fs  %s%s\n", r.elapsed.Seconds(), name, note)
		}
	}
	list(fmt.Sprintf("slowest %d tests (without subtests of their own)", top), tests)
	list(fmt.Sprintf("slowest %d packages", top), pkgs)
}

// Command crosscheck type-checks a module for other systems than the one it
// runs on, for CI (.ci/run): every package matched, its test files included,
// and every package they import (the standard library too), all from source
// as they would be compiled for each GOOS/GOARCH given, without cgo; then it
// runs go vet's analyzers on the matched packages. It compiles nothing: no
// object code, nothing in the build cache. It prints every type error and
// every vet finding with its position, and exits 1 if there was any.
//
//	crosscheck [-C DIR] [-vet=false] TARGET... [-- PATTERN...]
//	crosscheck -C ../.. darwin/arm64 freebsd/amd64            # ./... of ../..
//
// `GOOS=darwin go vet ./...` proves the same, but compiles the standard
// library and every dependency for the target to get their export data
// (about 400 compiles per target, most of a cold gate's cross-check CPU);
// type-checking them from source costs a fraction of that.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command: it returns the exit code (0 clean, 1 problems found,
// 2 bad usage or a failure to load the packages at all).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("crosscheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("C", ".", "the module's `directory`")
	vet := fs.Bool("vet", true, "also run go vet's analyzers on the matched packages")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: crosscheck [-C DIR] [-vet=false] GOOS/GOARCH... [-- PATTERN...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	targets, patterns := splitArgs(fs.Args())
	if len(targets) == 0 {
		fs.Usage()
		return 2
	}
	for _, t := range targets {
		if _, _, ok := strings.Cut(t, "/"); !ok {
			fmt.Fprintf(stderr, "crosscheck: %q is not a target: write GOOS/GOARCH, e.g. darwin/arm64\n", t)
			return 2
		}
	}
	code := 0
	for _, t := range targets {
		goos, goarch, _ := strings.Cut(t, "/")
		n, err := Check(ctx, Target{GOOS: goos, GOARCH: goarch}, *dir, patterns, *vet, stdout)
		if err != nil {
			fmt.Fprintf(stderr, "crosscheck: %s: %v\n", t, err)
			return 2
		}
		fmt.Fprintf(stdout, "%s: %d problems\n", t, n)
		if n > 0 {
			code = 1
		}
	}
	return code
}

// splitArgs splits the arguments at "--": targets before, patterns after
// (./... when none are given).
func splitArgs(args []string) (targets, patterns []string) {
	for i, a := range args {
		if a == "--" {
			targets, patterns = args[:i], args[i+1:]
			break
		}
	}
	if patterns == nil {
		targets = args
	}
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	return targets, patterns
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"
)

// Target is a system to check for, as GOOS and GOARCH name it.
type Target struct{ GOOS, GOARCH string }

func (t Target) String() string { return t.GOOS + "/" + t.GOARCH }

// loadMode loads every package, dependencies included, from source and
// type-checks it. NeedDeps is what keeps the go command from compiling:
// without it go/packages asks `go list -export` for the dependencies'
// export data, which compiles each of them.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedTypes | packages.NeedTypesSizes |
	packages.NeedSyntax | packages.NeedTypesInfo | packages.NeedModule

// Check type-checks the packages matched by patterns in dir, their test
// files included, and everything they import, for target without cgo; with
// vet it then runs go vet's analyzers on the matched packages. It writes
// each problem to w, one a line, positions relative to dir, and returns
// how many there were. An error means the packages could not be listed.
func Check(ctx context.Context, target Target, dir string, patterns []string, vet bool, w io.Writer) (int, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return 0, err
	}
	cfg := &packages.Config{
		Context: ctx,
		Mode:    loadMode,
		Dir:     absDir,
		Tests:   true,
		Env:     append(os.Environ(), "GOOS="+target.GOOS, "GOARCH="+target.GOARCH, "CGO_ENABLED=0"),
	}
	roots, err := packages.Load(cfg, patterns...)
	if err != nil {
		return 0, err
	}
	if len(roots) == 0 {
		return 0, fmt.Errorf("%s matched no packages in %s", strings.Join(patterns, " "), absDir)
	}
	p := &printer{w: w, target: target, dir: absDir, seen: map[string]bool{}}
	packages.Visit(roots, nil, func(pkg *packages.Package) {
		for _, e := range pkg.Errors {
			p.print(e.Pos, e.Msg)
		}
	})
	// go vet, too, stops at a package that does not type-check.
	if !vet || p.count > 0 {
		return p.count, nil
	}
	graph, err := checker.Analyze(vetSuite, roots, nil)
	if err != nil {
		return 0, err
	}
	for act := range graph.All() {
		if !act.IsRoot {
			continue
		}
		if act.Err != nil {
			p.print(act.Package.PkgPath, act.Analyzer.Name+": "+act.Err.Error())
		}
		for _, d := range act.Diagnostics {
			p.print(act.Package.Fset.Position(d.Pos).String(), d.Message+" ("+act.Analyzer.Name+")")
		}
	}
	return p.count, nil
}

// printer writes each problem once: a file of a package is also in its
// test variant, and its errors come twice.
type printer struct {
	w      io.Writer
	target Target
	dir    string
	seen   map[string]bool
	count  int
}

func (p *printer) print(pos, msg string) {
	if pos == "" {
		pos = "-"
	} else if rel, err := filepath.Rel(p.dir, pos); err == nil && !strings.HasPrefix(rel, "..") {
		pos = rel
	}
	line := fmt.Sprintf("%s: %s: %s", p.target, pos, msg)
	if p.seen[line] {
		return
	}
	p.seen[line] = true
	p.count++
	fmt.Fprintln(p.w, line)
}

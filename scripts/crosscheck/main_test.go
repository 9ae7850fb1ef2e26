package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// crosscheck runs the command as CI does and returns its exit code and
// what it printed.
func crosscheck(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// A Linux-only field in a file without a build tag is what `GOOS=darwin
// go vet` caught: the check must fail on it for darwin, naming the file,
// the line and the field, and pass where the field exists (FreeBSD has
// Pdeathsig too).
func TestLinuxOnlyFieldFailsOnDarwin(t *testing.T) {
	code, out, errOut := crosscheck(t, "-C", "testdata/pdeathsig", "darwin/arm64", "freebsd/amd64", "linux/amd64")
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	want := "darwin/arm64: spawn.go:12:41: unknown field Pdeathsig in struct literal of type syscall.SysProcAttr\n" +
		"darwin/arm64: 1 problems\n" +
		"freebsd/amd64: 0 problems\n" +
		"linux/amd64: 0 problems\n"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// The test files are checked too, the package's and the external test
// package's: a test that uses a field or a function only Linux has fails
// the check for freebsd, once though the file is in two packages (the
// package and its test variant).
func TestTestFilesAreChecked(t *testing.T) {
	code, out, _ := crosscheck(t, "-C", "testdata/testonly", "freebsd/amd64")
	want := "freebsd/amd64: testonly_test.go:9:26: unknown field Cloneflags in struct literal of type syscall.SysProcAttr\n" +
		"freebsd/amd64: external_test.go:11:38: undefined: syscall.Gettid\n" +
		"freebsd/amd64: 2 problems\n"
	if code != 1 || out != want {
		t.Fatalf("exit %d, want 1; got:\n%s\nwant:\n%s", code, out, want)
	}
}

// go vet's analyzers run on the files of the target: a printf mistake in
// a Darwin-only file fails the check for darwin only, and -vet=false
// leaves it out.
func TestVetFindingsInTargetOnlyFiles(t *testing.T) {
	code, out, _ := crosscheck(t, "-C", "testdata/vetonly", "darwin/arm64", "linux/amd64")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	if !strings.Contains(out, "darwin/arm64: name_darwin.go:5:") || !strings.Contains(out, "(printf)") {
		t.Errorf("no printf finding in name_darwin.go for darwin:\n%s", out)
	}
	if !strings.Contains(out, "linux/amd64: 0 problems") {
		t.Errorf("linux should be clean:\n%s", out)
	}
	code, out, _ = crosscheck(t, "-C", "testdata/vetonly", "-vet=false", "darwin/arm64")
	if code != 0 {
		t.Errorf("-vet=false: exit %d, want 0:\n%s", code, out)
	}
}

// Bad usage is exit 2 with a message a person can act on.
func TestUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "usage: crosscheck"},
		{[]string{"darwin"}, `"darwin" is not a target: write GOOS/GOARCH`},
		{[]string{"-C", "testdata/nosuch", "darwin/arm64"}, "crosscheck: darwin/arm64:"},
	} {
		code, out, errOut := crosscheck(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("crosscheck %q: exit %d, stderr %q (stdout %q), want 2 and %q", tc.args, code, errOut, out, tc.want)
		}
	}
}

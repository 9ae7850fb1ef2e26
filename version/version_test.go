package version_test

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/version"
)

func TestInfoOfTheCommandBuiltFromACheckout(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8",
		Main: debug.Module{Path: version.Module, Version: "v1.2.0+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"},
			{Key: "vcs.time", Value: "2026-01-02T15:04:05Z"},
			{Key: "vcs.modified", Value: "true"},
		}}
	got := version.FromBuildInfo(bi)
	want := version.Info{Module: version.Module, Version: "v1.2.0+dirty", Revision: "0123456789abcdef0123456789abcdef01234567",
		Time: "2026-01-02T15:04:05Z", Modified: true, Go: "go1.26.8"}
	if got != want {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if s := got.String(); s != "handoff-fsm v1.2.0+dirty (revision 0123456789ab, modified; go1.26.8)" {
		t.Errorf("String() = %q", s)
	}
}

func TestInfoOfALibraryInAnotherProgram(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8",
		Main:     debug.Module{Path: "example.com/orchestrator", Version: "v0.3.0"},
		Deps:     []*debug.Module{{Path: "golang.org/x/sys", Version: "v0.49.0"}, {Path: version.Module, Version: "v1.4.1"}},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "feedface"}, {Key: "vcs.modified", Value: "true"}}}
	got := version.FromBuildInfo(bi)
	if got.Version != "v1.4.1" || got.Revision != "" || got.Modified {
		t.Errorf("got %+v; want handoff-fsm's own version, not the program's revision", got)
	}
	if s := got.String(); s != "handoff-fsm v1.4.1 (go1.26.8)" {
		t.Errorf("String() = %q", s)
	}
	// A replaced module reports the replacement's version.
	bi.Deps[1].Replace = &debug.Module{Path: "example.com/fork", Version: "v1.4.2-fork"}
	if got := version.FromBuildInfo(bi); got.Version != "v1.4.2-fork" {
		t.Errorf("replaced: %+v", got)
	}
}

// In a test binary the main module is the test's; Get still answers.
func TestGetAnswersInAnyBinary(t *testing.T) {
	got := version.Get()
	if got.Module != version.Module || got.Version == "" || got.Go != runtime.Version() {
		t.Errorf("Get() = %+v", got)
	}
	if !strings.HasPrefix(got.String(), "handoff-fsm ") {
		t.Errorf("String() = %q", got.String())
	}
}

// Package version says which build of handoff-fsm is running: its module
// version, the source revision it was built from and whether that had
// uncommitted changes, and the Go version. It reads the build information
// the Go toolchain embeds in every binary (runtime/debug.ReadBuildInfo), so
// nothing has to be stamped by hand: `go install …@v1.2.0` reports v1.2.0,
// a build from a tagged checkout its tag, any other checkout a
// pseudo-version with the commit. The command prints it (`handoff-fsm
// version`), and so do its JSON results and its OpenTelemetry resource.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Module is handoff-fsm's module path.
const Module = "github.com/handoff-fsm/handoff-fsm"

// Info is one build's identity.
type Info struct {
	// Module is the module path (Module).
	Module string `json:"module"`
	// Version is the module version: a release tag (v1.2.0), a
	// pseudo-version (v0.0.0-20260102150405-abcdef123456, +dirty when
	// built from a modified checkout), or "(devel)" when the toolchain
	// could not tell (a build outside version control).
	Version string `json:"version"`
	// Revision is the source commit, when the binary was built from a
	// checkout of this module ("" otherwise, e.g. under `go install`
	// from the module proxy, or as a library in another program).
	Revision string `json:"revision,omitempty"`
	// Time is the commit's time (RFC 3339), with Revision.
	Time string `json:"time,omitempty"`
	// Modified: the checkout had uncommitted changes.
	Modified bool `json:"modified"`
	// Go is the Go version the binary was built with.
	Go string `json:"go"`
}

// Get returns the running binary's Info. When handoff-fsm is a library in
// another program, it is the version of the handoff-fsm module that program
// was built with; the revision is then only the main program's, so it is
// left out.
func Get() Info {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Info{Module: Module, Version: "(devel)", Go: runtime.Version()}
	}
	return FromBuildInfo(bi)
}

// FromBuildInfo is Get for the given build information.
func FromBuildInfo(bi *debug.BuildInfo) Info {
	info := Info{Module: Module, Version: "(devel)", Go: bi.GoVersion}
	if info.Go == "" {
		info.Go = runtime.Version()
	}
	if bi.Main.Path != Module {
		for _, dep := range bi.Deps {
			if dep.Path == Module {
				info.Version = moduleVersion(dep)
				return info
			}
		}
		return info
	}
	info.Version = moduleVersion(&bi.Main)
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			info.Revision = s.Value
		case "vcs.time":
			info.Time = s.Value
		case "vcs.modified":
			info.Modified = s.Value == "true"
		}
	}
	return info
}

func moduleVersion(m *debug.Module) string {
	if m.Replace != nil && m.Replace.Version != "" {
		m = m.Replace
	}
	if m.Version == "" {
		return "(devel)"
	}
	return m.Version
}

// String is the one-line form the command prints:
// "handoff-fsm v1.2.0 (revision 0123456789ab, modified; go1.26.8)".
func (i Info) String() string {
	var extra []string
	if i.Revision != "" {
		rev := i.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		extra = append(extra, "revision "+rev)
	}
	if i.Modified {
		extra = append(extra, "modified")
	}
	details := i.Go
	if len(extra) > 0 {
		details = strings.Join(extra, ", ") + "; " + i.Go
	}
	return fmt.Sprintf("handoff-fsm %s (%s)", i.Version, details)
}

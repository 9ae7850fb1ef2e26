package screen

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Window is the range of a CLI's releases proven to read right: the oldest
// and the newest release that passed the conformance and delivery rows
// (scripts/versions.sh writes the evidence to docs/versions.md). Users
// update their CLIs on their own schedule, so a version outside it is
// worth a warning, not a refusal: it may well work, it was not proven.
type Window struct {
	Oldest string `json:"oldest"`
	Newest string `json:"newest"`
}

// String is "Oldest … Newest".
func (w Window) String() string {
	if w.Oldest == "" && w.Newest == "" {
		return "none"
	}
	return w.Oldest + " … " + w.Newest
}

// Contains reports whether version lies in the window, both ends included.
// A version that is not dotted numbers (or an empty window) is outside.
func (w Window) Contains(version string) bool {
	lo, okLo := CompareVersions(w.Oldest, version)
	hi, okHi := CompareVersions(version, w.Newest)
	return okLo && okHi && lo <= 0 && hi <= 0
}

// Warning is the sentence to show a user whose CLI reports version, or ""
// when it lies in the window. name is the provider's name.
func (w Window) Warning(name, version string) string {
	if w.Contains(version) {
		return ""
	}
	if version == "" {
		return fmt.Sprintf("warning: the %s CLI's version is unknown; releases %s are proven (handoff-fsm doctor checks yours)", name, w)
	}
	return fmt.Sprintf("warning: %s %s is outside the tested window %s: it may read wrong (handoff-fsm doctor checks it)", name, version, w)
}

// CompareVersions compares two dotted release numbers ("2.1.300" <
// "2.1.330"), numerically part by part; a pre-release suffix ("-nightly…")
// sorts before its release. ok is false when either is not a version.
func CompareVersions(a, b string) (cmp int, ok bool) {
	pa, sa, okA := splitVersion(a)
	pb, sb, okB := splitVersion(b)
	if !okA || !okB {
		return 0, false
	}
	for i := 0; i < max(len(pa), len(pb)); i++ {
		var x, y int
		if i < len(pa) {
			x = pa[i]
		}
		if i < len(pb) {
			y = pb[i]
		}
		if x != y {
			if x < y {
				return -1, true
			}
			return 1, true
		}
	}
	switch {
	case sa == sb:
		return 0, true
	case sa == "":
		return 1, true
	case sb == "":
		return -1, true
	}
	return strings.Compare(sa, sb), true
}

func splitVersion(v string) (parts []int, pre string, ok bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	v, pre, _ = strings.Cut(v, "-")
	if v == "" {
		return nil, "", false
	}
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, "", false
		}
		parts = append(parts, n)
	}
	return parts, pre, true
}

// versionPattern finds a release number in what a CLI prints for
// --version: "2.1.330 (Claude Code)", "codex-cli 0.169.0", "0.61.0".
var versionPattern = regexp.MustCompile(`\b\d+\.\d+\.\d+(-[0-9A-Za-z.]+)?\b`)

// ParseVersion returns the first release number in out, a CLI's --version
// output, or "" when there is none.
func ParseVersion(out string) string { return versionPattern.FindString(out) }

package handoff

import (
	"fmt"
	"strings"
)

// clash refuses a role whose name or response file differs from another
// role's only in case (or not at all, for the file): macOS's and Windows'
// default file systems ignore case, so Reviewer_2.md and reviewer_2.md are
// one file there, with one lock, and two such roles would read each other's
// answers. Refusing keeps names as given and behaves the same on every
// system; each role of a RoleFiles goes through it (File, With).
func (m RoleFiles) clash(role, file string) error {
	for r, f := range m {
		if r == role {
			continue
		}
		switch {
		case strings.EqualFold(r, role):
			return fmt.Errorf("%w %q: it differs from the role %q only in case; on a file system that ignores case (macOS, Windows) they would share one response file, so use one spelling", ErrUnknownRole, role, r)
		case strings.EqualFold(f, file):
			return fmt.Errorf("%w %q: its response file %s is the role %q's (%s) but for case; on a file system that ignores case (macOS, Windows) they would be one file", ErrUnknownRole, role, file, r, f)
		}
	}
	return nil
}

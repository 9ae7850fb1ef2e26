package handoff

import (
	"fmt"
	"strings"
)

// ResolveRole returns the role mapping for a dispatch to role: the spec's
// five, plus role itself when it is one of the orchestrator's own (note
// then says which file it gets). A name a typo away from a spec role is
// refused with ErrUnknownRole: a misspelt "analyst" would otherwise wait a
// whole grace for a file nobody was told to write.
func ResolveRole(role string) (roles RoleFiles, note string, err error) {
	roles = DefaultRoleFiles()
	if _, ok := roles[role]; ok {
		return roles, "", nil
	}
	for _, known := range roles.Names() {
		if editDistance(role, known) <= 2 {
			return nil, "", fmt.Errorf("%w %q: did you mean %s? (a role of your own needs a name further from the spec's: %s)",
				ErrUnknownRole, role, known, strings.Join(roles.Names(), ", "))
		}
	}
	roles, err = roles.With(role)
	if err != nil {
		return nil, "", err
	}
	file, _ := roles.File(role)
	return roles, fmt.Sprintf("role %q is not one of the spec's; its response file is %s", role, file), nil
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

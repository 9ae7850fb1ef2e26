package handoff_test

import (
	"errors"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Two roles that differ only in case would share one response file and
// one lock on a file system that ignores case (macOS's default): such a pair
// is refused, whichever way it is made, on every system alike.
func TestRolesDifferingOnlyInCaseAreRefused(t *testing.T) {
	roles, err := handoff.DefaultRoleFiles().With("Reviewer_2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roles.With("reviewer_2"); !errors.Is(err, handoff.ErrUnknownRole) || !strings.Contains(err.Error(), "only in case") {
		t.Errorf("With(reviewer_2) beside Reviewer_2: %v; want a refusal saying they differ only in case", err)
	}
	if _, err := handoff.DefaultRoleFiles().With("Analyst"); err == nil {
		t.Errorf("Analyst beside the spec's analyst was accepted")
	}

	// A mapping built by hand: the clash is found when either role is used.
	byHand := handoff.RoleFiles{"reviewer": "Review.md", "auditor": "review.md", "Tester": "t.md", "tester": "u.md", "analyst": "analyst_summary.md"}
	for _, role := range []string{"reviewer", "auditor", "Tester", "tester"} {
		if _, err := byHand.Path(t.TempDir(), role); !errors.Is(err, handoff.ErrUnknownRole) {
			t.Errorf("%s: %v; want ErrUnknownRole", role, err)
		}
	}
	if _, err := byHand.Path(t.TempDir(), "analyst"); err != nil {
		t.Errorf("a role with no clash was refused: %v", err)
	}
	// Two roles of one file (exactly) are refused too.
	if _, err := (handoff.RoleFiles{"a": "x.md", "b": "x.md"}).File("a"); err == nil {
		t.Errorf("two roles sharing x.md were accepted")
	}
}

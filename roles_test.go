package handoff_test

import (
	"errors"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

func TestRolesOfYourOwnGetTheirOwnFile(t *testing.T) {
	roles, note, err := handoff.ResolveRole("reviewer_2")
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := roles.File("reviewer_2"); f != "reviewer_2.md" || !strings.Contains(note, "reviewer_2.md") {
		t.Errorf("reviewer_2 → %q (note %q), want reviewer_2.md named in the note", f, note)
	}
	if f, _ := roles.File("analyst"); f != "analyst_summary.md" {
		t.Errorf("the spec's roles changed: analyst → %q", f)
	}
	if _, note, err := handoff.ResolveRole("tester"); err != nil || note != "" {
		t.Errorf("a spec role: note %q, err %v", note, err)
	}
	for _, bad := range []string{"testr", "Analyst", "analyst_summary", "", "a/b"} {
		if _, _, err := handoff.ResolveRole(bad); !errors.Is(err, handoff.ErrUnknownRole) {
			t.Errorf("%q: want ErrUnknownRole, got %v", bad, err)
		}
	}
}

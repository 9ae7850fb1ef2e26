package loop

import (
	"strings"
	"testing"
)

// A run read back: each step with the prompt it was sent (replayed from
// the answers), its round, the send-back after a review asking for
// changes, and the step in flight.
func TestReadRunReplaysThePrompts(t *testing.T) {
	dir := t.TempDir()
	j, err := openJournal(dir, "Build it", 2, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Step{
		{N: 1, Role: "analyst", Source: "file", Response: "the plan"},
		{N: 2, Role: "analyst_review", Source: "file", Response: "CHANGES REQUESTED: more", Verdict: ChangesRequested},
		{N: 3, Role: "analyst", Source: "file", Response: "the plan, revised"},
	} {
		if err := j.finish(s); err != nil {
			t.Fatal(err)
		}
	}
	v, err := ReadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Steps) != 3 || v.Next == nil || v.Finished != nil || v.Rounds != 2 {
		t.Fatalf("run %+v", v)
	}
	if v.Steps[0].Prompt != AnalystPrompt("Build it") || v.Steps[1].Prompt != ReviewPrompt("the plan") ||
		v.Steps[2].Prompt != RevisePrompt("CHANGES REQUESTED: more", "the plan") {
		t.Errorf("prompts %q", []string{v.Steps[0].Prompt, v.Steps[1].Prompt, v.Steps[2].Prompt})
	}
	if !v.Steps[1].Review || v.Steps[1].Round != 1 || !v.Steps[2].SentBack || v.Steps[0].SentBack {
		t.Errorf("rounds and send-backs: %+v", v.Steps)
	}
	if v.Next.N != 4 || v.Next.Role != "analyst_review" || v.Next.Round != 2 || v.Next.Prompt != ReviewPrompt("the plan, revised") {
		t.Errorf("next %+v", v.Next)
	}
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	if v, _ := ReadRun(dir); v.Next != nil || v.Finished == nil {
		t.Errorf("a finished run: %+v", v)
	}
}

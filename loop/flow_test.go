package loop

import (
	"errors"
	"strings"
	"testing"
)

// script answers each role with its answers in turn (the last repeated)
// and records who was asked what.
type script struct {
	answers map[string][]string
	asked   []string
	prompts []string
}

func (s *script) ask(role, prompt string, review bool) (string, error) {
	s.asked = append(s.asked, role)
	s.prompts = append(s.prompts, prompt)
	a := s.answers[role]
	if len(a) == 0 {
		return role + " answer", nil
	}
	n := 0
	for _, r := range s.asked[:len(s.asked)-1] {
		if r == role {
			n++
		}
	}
	return a[min(n, len(a)-1)], nil
}

func TestAReviewSendsTheWorkBack(t *testing.T) {
	s := &script{answers: map[string][]string{
		"analyst_review":    {"CHANGES REQUESTED: more detail", "APPROVED"},
		"programmer_review": {"approved, nice"},
		"tester":            {"PASS"},
	}}
	report, err := Flow{Task: "Add a flag", Ask: s.ask}.Run()
	if err != nil || report != "PASS" {
		t.Fatalf("report %q, %v", report, err)
	}
	want := "analyst analyst_review analyst analyst_review programmer programmer_review tester"
	if got := strings.Join(s.asked, " "); got != want {
		t.Errorf("asked %s\nwant  %s", got, want)
	}
	if !strings.Contains(s.prompts[0], "Add a flag") {
		t.Errorf("the analyst was not given the task: %q", s.prompts[0])
	}
	if p := s.prompts[2]; !strings.Contains(p, "CHANGES REQUESTED: more detail") || !strings.Contains(p, "analyst answer") {
		t.Errorf("the revision prompt lacks the review or the work: %q", p)
	}
	if !strings.Contains(s.prompts[4], "analyst answer") {
		t.Errorf("the programmer was not given the analysis: %q", s.prompts[4])
	}
}

func TestReviewsRunOutAfterRounds(t *testing.T) {
	s := &script{answers: map[string][]string{"analyst_review": {"CHANGES REQUESTED"}, "programmer_review": {"CHANGES REQUESTED"}}}
	var exhausted []string
	var rounds []int
	_, err := Flow{Task: "x", Rounds: 3, Ask: s.ask, Round: func(r int) { rounds = append(rounds, r) },
		Exhausted: func(reviewer string, n int) { exhausted = append(exhausted, reviewer) }}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.Join(s.asked, " "), "analyst_review"); n != 3 {
		t.Errorf("%d analyst reviews, want 3", n)
	}
	if strings.Join(exhausted, " ") != "analyst_review programmer_review" {
		t.Errorf("exhausted %v", exhausted)
	}
	if len(rounds) == 0 || rounds[0] != 0 || rounds[1] != 1 || rounds[len(rounds)-1] != 0 {
		t.Errorf("rounds %v", rounds)
	}
}

func TestAnApprovalFromOutsideEndsTheStage(t *testing.T) {
	s := &script{answers: map[string][]string{"analyst_review": {"CHANGES REQUESTED"}}}
	_, err := Flow{Task: "x", Ask: s.ask, Approve: func() bool { return true }}.Run()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.asked, " "); got != "analyst analyst_review programmer programmer_review tester" {
		t.Errorf("asked %s", got)
	}
}

func TestAFailedStepEndsTheFlow(t *testing.T) {
	boom := errors.New("boom")
	var asked []string
	_, err := Flow{Task: "x", Ask: func(role, _ string, _ bool) (string, error) {
		asked = append(asked, role)
		if role == "analyst_review" {
			return "", boom
		}
		return "ok", nil
	}}.Run()
	if !errors.Is(err, boom) || strings.Join(asked, " ") != "analyst analyst_review" {
		t.Errorf("err %v, asked %v", err, asked)
	}
}

func TestIsApproved(t *testing.T) {
	for review, want := range map[string]bool{
		"APPROVED": true, "  approved: fine\nmore": true, "Approved.": true,
		"CHANGES REQUESTED": false, "I have APPROVED": false, "": false, "\n\nAPPROVED": true,
	} {
		if IsApproved(review) != want {
			t.Errorf("IsApproved(%q) = %v", review, !want)
		}
	}
}

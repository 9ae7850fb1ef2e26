package fakemodel

import "testing"

func TestDeliveryCountsWholePlaceholdersAndPieces(t *testing.T) {
	want := "first line of the prompt, long enough\nsecond line of the prompt, long enough\nthe end"
	for _, c := range []struct {
		name  string
		msgs  []string
		whole int
		parts int
	}{
		{"once", []string{want + "\n\nRESPONSE FILE INSTRUCTION …"}, 1, 0},
		{"twice", []string{want, want}, 2, 0},
		{"then its placeholder", []string{want, "[Pasted Content 20743 chars]"}, 1, 1},
		{"then Copilot CLI's placeholder", []string{want, "[Paste #1 - 16 lines]"}, 1, 1},
		{"split in two", []string{"first line of the prompt, long enough", "second line of the prompt, long enough\nthe end"}, 0, 2},
		{"lost", []string{"<environment_context>cwd</environment_context>"}, 0, 0},
	} {
		var d Delivery
		s := &Server{requests: []Request{{Kind: KindTurn, UserTexts: []string{"before"}}, {Kind: KindTurn, UserTexts: append([]string{"before"}, c.msgs...)}}}
		d = s.Tally(1, want)
		if d.Whole != c.whole || len(d.Parts) != c.parts {
			t.Errorf("%s: %+v, want %d whole and %d parts", c.name, d, c.whole, c.parts)
		}
		if d.Once() != (c.whole == 1 && c.parts == 0) {
			t.Errorf("%s: Once() = %v", c.name, d.Once())
		}
	}
}

func TestPiecesInAnyTurnSince(t *testing.T) {
	want := "first line of the prompt, long enough\nsecond line of the prompt, long enough\nthe end"
	for _, c := range []struct {
		name   string
		turns  [][]string // each turn's user messages
		pieces int
	}{
		{"whole once", [][]string{{"before", want}}, 0},
		{"a piece, then a new conversation with the rest", [][]string{{"before", "[Pasted Content 2042 chars]first line of the prompt, long enough"}, {"second line of the prompt, long enough"}}, 2},
		{"an earlier turn's piece is not counted again", [][]string{{"before", "[Pasted Content 12 chars]"}, {"before", "[Pasted Content 12 chars]", "Written."}}, 1},
		{"a piece carried before since is not counted", [][]string{{"before", "first line of the prompt, long enough", "Written."}}, 0},
		{"another prompt joined by a piece", [][]string{{"before", "next prompt\nsecond line of the prompt, long enough"}}, 1},
	} {
		s := &Server{requests: []Request{{Kind: KindTurn, UserTexts: []string{"before", "first line of the prompt, long enough"}}}}
		for _, msgs := range c.turns {
			s.requests = append(s.requests, Request{Kind: KindTurn, UserTexts: msgs})
		}
		if got := s.Pieces(1, want); len(got) != c.pieces {
			t.Errorf("%s: %q, want %d pieces", c.name, got, c.pieces)
		}
	}
}

func TestPiecesAreQuotedFromWhereTheyStart(t *testing.T) {
	want := "first line of the prompt, long enough\nsecond line of the prompt, long enough"
	s := &Server{requests: []Request{{Kind: KindTurn}, {Kind: KindTurn, UserTexts: []string{
		"<system-reminder>skills</system-reminder>\nsecond line of the prompt, long enough",
		"<system-reminder>date</system-reminder>[Pasted Content 2042 chars]g",
	}}}}
	got := s.Pieces(1, want)
	if len(got) != 2 || got[0] != "second line of the prompt, long enough" || got[1] != "[Pasted Content 2042 chars]g" {
		t.Errorf("pieces %q", got)
	}
}

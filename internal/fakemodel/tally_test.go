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

package fakemodel

import "strings"

// Delivery is what the model received of one prompt, counted where only
// the model can count it: in the user messages of the conversation.
type Delivery struct {
	// Whole is how many user messages hold the prompt whole.
	Whole int
	// Parts are the other user messages that hold a paste's placeholder
	// ("[Pasted Content 20743 chars]") or a piece of the prompt: what a
	// CLI sends when it took the paste in parts. Each is cut short.
	Parts []string
}

// Once reports whether the prompt arrived whole, once, and nothing else
// of it arrived.
func (d Delivery) Once() bool { return d.Whole == 1 && len(d.Parts) == 0 }

// placeholder reports whether m holds a paste placeholder of one of the
// CLIs: "[Pasted Content …", "[Pasted Text: …", "[Pasted text #…",
// "[Pasted ~…", "[paste #…", Copilot CLI's "[Paste #1 - 16 lines]".
func placeholder(m string) bool {
	return strings.Contains(m, "[Pasted ") || strings.Contains(m, "[paste #") || strings.Contains(m, "[Paste #")
}

// Tally counts what the model received of want in the user messages that
// are new since the first since turns: the conversation as the last turn
// carries it, past the messages the turn before since carried. A message
// that is neither want whole nor holds a placeholder or a line of want
// (of 20 characters or more) is the CLI's own and not counted.
func (s *Server) Tally(since int, want string) Delivery {
	turns := s.Turns()
	if len(turns) <= since {
		return Delivery{}
	}
	msgs := turns[len(turns)-1].UserTexts
	if since > 0 {
		if base := len(turns[since-1].UserTexts); base <= len(msgs) {
			msgs = msgs[base:]
		}
	}
	var d Delivery
	for _, m := range msgs {
		switch {
		case strings.Contains(m, want):
			d.Whole += strings.Count(m, want)
		case placeholder(m) || holdsLineOf(m, want):
			d.Parts = append(d.Parts, cut(m, 120))
		}
	}
	return d
}

// holdsLineOf reports whether a line of m, of 20 characters or more, is
// part of want.
func holdsLineOf(m, want string) bool {
	for line := range strings.SplitSeq(m, "\n") {
		if line = strings.TrimSpace(line); len(line) >= 20 && strings.Contains(want, line) {
			return true
		}
	}
	return false
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Pieces lists the user messages of every turn request since the first
// since that no turn before them carried and that hold a paste's
// placeholder or a line of want without holding want whole, each cut
// short: pieces of want in whatever conversation they came (Tally reads
// only the last turn's). A CLI that ends a paste early and takes the rest
// as typed keys submits pieces as new messages, late, in turns of their
// own, and the tail of a refused paste may join the next prompt.
func (s *Server) Pieces(since int, want string) []string {
	turns := s.Turns()
	seen := map[string]bool{}
	for i, t := range turns {
		if i >= since {
			break
		}
		for _, m := range t.UserTexts {
			seen[m] = true
		}
	}
	var out []string
	for _, t := range turns[min(since, len(turns)):] {
		for _, m := range t.UserTexts {
			if seen[m] {
				continue
			}
			seen[m] = true
			if !strings.Contains(m, want) && (placeholder(m) || holdsLineOf(m, want)) {
				out = append(out, cut(m[pieceAt(m, want):], 120))
			}
		}
	}
	return out
}

// pieceAt is where in m the piece starts: its placeholder, or its first
// line of want (a CLI's preamble before it says nothing).
func pieceAt(m, want string) int {
	at := len(m)
	if i := strings.Index(m, "[Pasted "); i >= 0 {
		at = i
	}
	if i := strings.Index(m, "[paste #"); i >= 0 {
		at = min(at, i)
	}
	off := 0
	for line := range strings.SplitSeq(m, "\n") {
		if t := strings.TrimSpace(line); len(t) >= 20 && strings.Contains(want, t) {
			return min(at, off)
		}
		off += len(line) + 1
	}
	if at == len(m) {
		return 0
	}
	return at
}

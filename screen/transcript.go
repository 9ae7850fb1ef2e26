package screen

import (
	"strconv"
	"strings"

	"golang.org/x/text/unicode/norm"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Transcript is how one CLI's transcript shows the user's messages, as
// rules: a provider fills one in, and Read (the logic, written once) tells
// what the agent took since a prompt was submitted (handoff.Submission).
// The capture is read top-down up to Stop; a message runs from a line
// Start accepts to the first non-blank line Ends reports (one that nothing
// ends is the composer, not a message).
type Transcript struct {
	// Start reports the first line of a user message and returns its
	// text after the CLI's mark.
	Start func(ln Line) (text string, ok bool)
	// Ends reports a non-blank line under a message that is no part of it
	// (the next cell of the history).
	Ends func(ln Line) bool
	// Stop reports the line where the transcript ends (the composer's
	// frame); nil reads to the end of the capture.
	Stop func(ln Line) bool
	// Clean, when set, rewrites each line first (a scrollbar).
	Clean func(ln Line) Line
	// Folds are the forms the transcript shows for a folded paste, when
	// it shows one rather than the text: its size is the first submatch
	// not named "head" (Fold); one named "head", when there is one, is the
	// text's first words as the fold shows them.
	Folds []Fold
	// Cannot, when set, says why this CLI's screen can never tell (a
	// full-screen TUI that redraws its history): Read then says so.
	Cannot string
}

// Marked is a Transcript.Start for a CLI whose user message starts indent
// columns in with one of marks ("> ", "❯ "): the text after the mark.
func Marked(indent int, marks ...string) func(ln Line) (string, bool) {
	return func(ln Line) (string, bool) {
		if ln.Indent != indent {
			return "", false
		}
		for _, mark := range marks {
			if rest, ok := strings.CutPrefix(ln.T, mark); ok {
				return rest, true
			}
		}
		return "", false
	}
}

// sentHead and sentTail are how much of the prompt's head and of its
// tail a message must show to be the prompt whole, after Ink and NFC. A
// dispatch's text ends with its instruction, whose last 110 or so such
// characters hold its receipt: a tail of 120 is this dispatch's alone,
// and short enough that a message whose start scrolled off still shows it.
const (
	sentHead = 200
	sentTail = 120
	// minPiece is the least a message must show of the prompt's start
	// to count as a piece of it.
	minPiece = 20
)

// sentMessage is one user message as the transcript shows it.
type sentMessage struct {
	text string
	// cut: the capture starts inside it (its start scrolled off).
	cut bool
}

// Read reads capture (the screen with its scrollback) against text (the
// prompt as pasted): the user messages from the first that is this prompt
// — whole, its fold with the prompt's size, or a piece carrying the
// prompt's end — on, each as the prompt whole, its fold, another text
// (quoted) or cannot tell (its start scrolled off). With no such message
// on the screen it cannot tell.
func (tr Transcript) Read(capture, text string) handoff.Submission {
	if tr.Cannot != "" {
		return handoff.CannotTell(tr.Cannot)
	}
	if tr.Start == nil {
		return handoff.CannotTell("no reader of this CLI's transcript")
	}
	want := foldText(text)
	if want == "" {
		return handoff.CannotTell("an empty prompt")
	}
	head, tail := ends(want, sentHead, sentTail)
	var out []readMessage
	for _, m := range tr.messages(capture) {
		got, ours := tr.classify(m, text, want, head, tail)
		out = append(out, readMessage{got, ours})
	}
	anchor := firstOurs(out)
	if anchor < 0 {
		return handoff.CannotTell("this prompt is not on the screen (scrolled off, or the CLI shows it otherwise)")
	}
	msgs := make([]handoff.Message, 0, len(out)-anchor)
	for _, m := range out[anchor:] {
		msgs = append(msgs, m.Message)
	}
	return handoff.Submission{Messages: msgs}
}

// readMessage is a user message as classify read it, and whether it is
// this prompt's.
type readMessage struct {
	handoff.Message
	ours bool
}

// firstOurs is the index of the first message since the submission, -1
// when none is this prompt's. A message that shows the prompt's end holds
// this dispatch's receipt: the first such one is since the submission, and
// so is a fold of the prompt right before it (the same prompt pasted
// twice, the first copy folded). A fold alone is not this dispatch's own:
// an earlier dispatch of the same prompt folds the same, so with no such
// message only the last fold is taken (a second fold of the same size
// after it cannot be told from that earlier dispatch).
func firstOurs(out []readMessage) int {
	lastFold := -1
	for i, m := range out {
		if !m.ours {
			continue
		}
		if m.Taken != handoff.TakenFold {
			if i > 0 && out[i-1].ours && out[i-1].Taken == handoff.TakenFold {
				return i - 1
			}
			return i
		}
		lastFold = i
	}
	return lastFold
}

// classify says what m is against want (folded, with its head and tail),
// and whether it is this prompt's (whole, its fold, or a piece that
// carries its end: nothing before it is since the submission).
func (tr Transcript) classify(m sentMessage, text, want, head, tail string) (handoff.Message, bool) {
	got := foldText(m.text)
	quote := Excerpt(strings.Join(strings.Fields(m.text), " "), 80)
	hasTail := strings.Contains(got, tail)
	switch {
	case m.cut && hasTail:
		return handoff.Message{Taken: handoff.TakenUnknown, Quote: "its start scrolled off; it ends as this prompt does"}, true
	case strings.HasPrefix(got, head) && hasTail && strings.Count(got, tail) > 1:
		return handoff.Message{Taken: handoff.TakenOther, Quote: "the prompt twice in one message"}, true
	case strings.HasPrefix(got, head) && hasTail:
		return handoff.Message{Taken: handoff.TakenWhole, Quote: Excerpt(quote, 40)}, true
	case hasTail && 10*len(got) >= 9*len(want):
		// Nearly all of it, shown altered: a CLI may cut a line it
		// measures wrong (Qwen Code drops "ner" of "word\u2060joiner").
		return handoff.Message{Taken: handoff.TakenUnknown, Quote: "shown altered: " + quote}, true
	case hasTail:
		return handoff.Message{Taken: handoff.TakenOther, Quote: "a piece of the prompt: " + quote}, true
	case len(got) >= minPiece && strings.HasPrefix(want, got):
		return handoff.Message{Taken: handoff.TakenOther, Quote: "the start of the prompt: " + quote}, true
	}
	if f, ok := tr.fold(m.text, text); ok {
		return handoff.Message{Taken: handoff.TakenFold, Quote: f}, true
	}
	return handoff.Message{Taken: handoff.TakenOther, Quote: quote}, false
}

// fold reports a message that is one of the transcript's folds alone,
// showing the size of text (the prompt as pasted) and, for a fold that
// shows the text's first words (a submatch named "head"), its start.
func (tr Transcript) fold(msg, text string) (string, bool) {
	shown := strings.TrimSpace(msg)
	for _, f := range tr.Folds {
		m := f.Pattern.FindStringSubmatchIndex(shown)
		if m == nil || m[0] != 0 || m[1] != len(shown) {
			continue
		}
		size, head := 1, f.Pattern.SubexpIndex("head")
		if head == size {
			size = 2
		}
		if f.Size != nil && len(m) >= 2*size+2 && m[2*size] >= 0 {
			if n, err := strconv.Atoi(shown[m[2*size]:m[2*size+1]]); err != nil || n != f.Size(text) {
				continue
			}
		}
		if head > 0 && m[2*head] >= 0 && !strings.HasPrefix(foldText(text), foldText(shown[m[2*head]:m[2*head+1]])) {
			continue
		}
		return shown, true
	}
	return "", false
}

// messages reads the user messages on capture, oldest first.
func (tr Transcript) messages(capture string) []sentMessage {
	var (
		out   []sentMessage
		cur   []string
		in    = true // the capture may start inside a message
		cut   = true
		pos   = 0
		ls    Lines
		flush = func() {
			if len(cur) > 0 && strings.TrimSpace(strings.Join(cur, "")) != "" {
				out = append(out, sentMessage{text: strings.Join(cur, "\n"), cut: cut})
			}
			cur, cut = nil, false
		}
	)
	ls.Init(capture)
	for pos < len(capture) {
		ln, next := ls.LineAt(pos)
		pos = next
		if tr.Clean != nil {
			ln = tr.Clean(ln)
		}
		if tr.Stop != nil && tr.Stop(ln) {
			// The composer's frame: a message open above it was taken,
			// even with nothing drawn under it yet (Cline shows a message
			// typed during a turn, then goes idle before drawing the turn
			// it starts).
			flush()
			return out
		}
		if t, ok := tr.Start(ln); ok {
			flush()
			in, cur = true, []string{t}
			continue
		}
		switch {
		case !in || ln.T == "":
			if in {
				cur = append(cur, "")
			}
		case tr.Ends(ln):
			flush()
			in = false
		default:
			cur = append(cur, ln.T)
		}
	}
	// A message still open where the capture ends, with no frame to Stop
	// at, has nothing drawn under it: the composer's draft, not a message
	// the agent took.
	return out
}

// foldText is what the comparison sees of a text: its ink (no white
// space, no format characters), in NFC (a CLI may compose accents).
func foldText(s string) string { return norm.NFC.String(Ink(s)) }

// ends returns the first h and the last t runes of s (s itself when it is
// shorter).
func ends(s string, h, t int) (head, tail string) {
	r := []rune(s)
	head, tail = s, s
	if len(r) > h {
		head = string(r[:h])
	}
	if len(r) > t {
		tail = string(r[len(r)-t:])
	}
	return head, tail
}

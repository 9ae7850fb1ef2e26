package tmuxcontrol

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes, split into lines, to the parser. It must
// never panic, and the properties that can round-trip do:
//   - every Reply's guard formats back to a guard the parser accepts;
//   - every Output, encoded again as a %output line, parses to itself;
//   - the same lines wrapped in a block come back as the reply's lines,
//     whatever they contain;
//   - DecodeOutput(EncodeOutput(x)) == x;
//   - Quote never lets a line break or NUL through.
func FuzzParse(f *testing.F) {
	f.Add([]byte(transcript))
	f.Add([]byte("%begin 1 2 1\n%end 1 2 0\n%end 1 2 1\n"))
	f.Add([]byte("%output %0 \\033[H\\033[2J\\015\\012\n%extended-output %3 9 x y : v\\134"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p Parser
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			switch m := p.Parse(line).(type) {
			case *Reply:
				var q Parser
				if q.Parse([]byte("%begin "+m.Guard.String())) != nil || !q.InBlock() {
					t.Fatalf("guard %q does not reparse", m.Guard.String())
				}
			case *Output:
				if m.Extended {
					break
				}
				var q Parser
				line := append([]byte("%output "+m.Pane+" "), EncodeOutput(m.Data)...)
				o, ok := q.Parse(line).(*Output)
				if !ok || o.Pane != m.Pane || !bytes.Equal(o.Data, m.Data) {
					t.Fatalf("output %q does not round-trip: %#v", line, o)
				}
			}
		}

		lines := strings.Split(string(data), "\n")
		g := Guard{Time: 1795424157, Number: 4242, Flags: 1}
		var q Parser
		if q.Parse([]byte("%begin "+g.String())) != nil {
			t.Fatal("begin completed a message")
		}
		for _, l := range lines {
			if l == "%end "+g.String() || l == "%error "+g.String() {
				return // the one line a body cannot hold
			}
			if m := q.Parse([]byte(l)); m != nil {
				t.Fatalf("body line %q completed %#v", l, m)
			}
		}
		r, ok := q.Parse([]byte("%end " + g.String())).(*Reply)
		if !ok || !reflect.DeepEqual(r.Lines, lines) || r.Failed || r.Guard != g {
			t.Fatalf("block did not round-trip: %#v", r)
		}

		if !bytes.Equal(DecodeOutput(EncodeOutput(data)), data) {
			t.Fatalf("DecodeOutput(EncodeOutput(%q)) differs", data)
		}
		if qs, err := Quote(string(data)); err == nil && strings.ContainsAny(qs, "\n\r\x00") {
			t.Fatalf("Quote(%q) = %q carries a line break", data, qs)
		}
	})
}

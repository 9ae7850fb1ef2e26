package responsefile_test

import (
	"os"
	"path/filepath"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/responsefile"
)

const (
	ours    handoff.Receipt = "OURSRECEIPTAAAAAAAAA"
	earlier handoff.Receipt = "EARLIERRECEIPTBBBBBB"
)

// Consume reads the receipt off the file: an answer with ours (or with none)
// is the answer, without its receipt line; one with another receipt is an
// earlier prompt's, archived as .mismatch. Every file stays byte for byte in
// the archive.
func TestConsumeTellsOurAnswerFromAnEarlierPrompts(t *testing.T) {
	cases := []struct {
		name, content, answer, archivedAs string
		receipt                           handoff.Receipt
		blank, mismatched                 bool
	}{
		{"ours", ours.ReceiptLine() + "\nthe answer\n", "the answer\n", "001-analyst.md", ours, false, false},
		{"an earlier prompt's", earlier.ReceiptLine() + "\nthe earlier answer\n", "the earlier answer\n", "001-analyst.mismatch.md", earlier, false, true},
		{"an earlier prompt's, blank", earlier.ReceiptLine() + "\n", "", "001-analyst.mismatch.md", earlier, false, true},
		{"ours, blank", ours.ReceiptLine() + "\n \n", " \n", "001-analyst.empty.md", ours, true, false},
		{"no receipt line", "written by hand", "written by hand", "001-analyst.md", "", false, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			work := t.TempDir()
			p := testkit.ResponseFile(t, work, "analyst")
			if err := os.WriteFile(p, []byte(c.content), 0o644); err != nil {
				t.Fatal(err)
			}
			a := responsefile.OpenArchive(filepath.Join(work, "archive"), 0)
			got, err := responsefile.Consume(p, "analyst", 1<<20, ours, a)
			if err != nil {
				t.Fatal(err)
			}
			if got.Content != c.content || got.Answer != c.answer || got.Receipt != c.receipt || got.Blank != c.blank || got.Mismatched != c.mismatched {
				t.Errorf("got %+v", got)
			}
			if want := filepath.Join(a.Dir(), c.archivedAs); got.Archived != want {
				t.Errorf("archived as %s, want %s", got.Archived, want)
			}
			if b, err := os.ReadFile(got.Archived); err != nil || string(b) != c.content {
				t.Errorf("archive holds %q (%v), want the file byte for byte", b, err)
			}
		})
	}
}

// A wait resumed after a crash between the move and the renaming finds the
// earlier prompt's answer under the consumed name and names it for what it is.
func TestRecoverNamesAnEarlierPromptsAnswer(t *testing.T) {
	work := t.TempDir()
	p := testkit.ResponseFile(t, work, "analyst")
	dir := filepath.Join(work, "archive")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	content := earlier.ReceiptLine() + "\nthe earlier answer"
	if err := os.WriteFile(filepath.Join(dir, "001-analyst.md"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := responsefile.Recover(p, "analyst", 1<<20, ours, responsefile.OpenArchive(dir, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !c.Mismatched || c.Content != content || c.Archived != filepath.Join(dir, "001-analyst.mismatch.md") {
		t.Fatalf("recovered %+v", c)
	}
	// Found again (a second crash), it is still the same file.
	c, err = responsefile.Recover(p, "analyst", 1<<20, ours, responsefile.OpenArchive(dir, 0))
	if err != nil || !c.Mismatched || c.Archived != filepath.Join(dir, "001-analyst.mismatch.md") {
		t.Fatalf("recovered again %+v %v", c, err)
	}
}

package kilo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// Kilo folds a paste as OpenCode does ("[Pasted ~12 lines]", a real
// capture of twelve pasted lines): whole for the twelve lines it was,
// wrong for a thirteenth.
func TestReadPasteOfKilosFold(t *testing.T) {
	capture, err := os.ReadFile(filepath.Join("testdata", "paste", "twelve-lines-whole.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for i := 1; i <= 12; i++ {
		lines = append(lines, "line "+strings.Repeat("x", i)+" of a pasted prompt")
	}
	var pr handoff.PasteReader = Provider()
	if got, seen := pr.Pasted(string(capture), strings.Join(lines, "\n")+"\n"); got != handoff.PasteWhole {
		t.Errorf("twelve lines read as %s (%q), want whole", got, seen)
	}
	if got, _ := pr.Pasted(string(capture), strings.Join(append(lines, "a 13th"), "\n")); got != handoff.PasteWrong {
		t.Errorf("thirteen lines read as %s, want wrong", got)
	}
}

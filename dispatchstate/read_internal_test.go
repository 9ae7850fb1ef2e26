package dispatchstate

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

func historyState(n int) *State {
	return &State{Version: Version, Pane: Pane{Target: "%3", Socket: "agents", Provider: "codex"}, History: n,
		TmuxTimeout: "5s", Role: "analyst", Workdir: "/work/proj", Config: handoff.DefaultConfig(),
		Prompt: "review the change", Created: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
}

// A reader of a live dispatch that opened its state file two writes ago
// holds the file the owner now rewrites in place as its spare: what it
// reads can change under it, or be caught half written. Read reads the path
// again when what it got does not parse, and gets the state the path names.
func TestAReaderThatCatchesTheSpareMidWriteReadsAgain(t *testing.T) {
	dir := t.TempDir()
	path, spare := filepath.Join(dir, "s.json"), filepath.Join(dir, ".s.json.spare")
	for n := 1; n <= 2; n++ {
		if err := historyState(n).Rewrite(path, spare); err != nil {
			t.Fatal(err)
		}
	}
	slow, err := os.Open(path) // a reader that opened state 2, then slept
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	for n := 3; n <= 4; n++ {
		if err := historyState(n).Rewrite(path, spare); err != nil {
			t.Fatal(err)
		}
	}
	held, _ := io.ReadAll(slow)
	st, err := Parse(held)
	if err != nil || st.History != 4 {
		t.Fatalf("the slow reader's file holds %v, %v: want state 4, written over it in place", st, err)
	}

	// Caught mid-write: the new state's start and the old one's tail.
	torn := append(append([]byte{}, held[:len(held)/2]...), held...)
	reads := 0
	readFile := func(p string) ([]byte, error) {
		if reads++; reads == 1 {
			return torn, nil
		}
		return os.ReadFile(p)
	}
	got, err := read(path, readFile)
	if err != nil || got.History != 4 || reads != 2 {
		t.Fatalf("read gave %v, %v after %d reads; want state 4 after 2", got, err, reads)
	}

	// A file that stays malformed is called so after three reads.
	reads = 0
	_, err = read(path, func(string) ([]byte, error) { reads++; return torn, nil })
	if !errors.Is(err, ErrMalformed) || reads != 3 {
		t.Fatalf("a malformed file: %v after %d reads; want ErrMalformed after 3", err, reads)
	}
}

package testkit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// CapturePrompts are the prompts the e2e capture scripts submit (e2e
// capture*_test.go), each once, as a person types it, and the dispatch's
// "Analyse the project." with its instruction.
var CapturePrompts = []string{
	"Say hello, slowly", "Write a long answer", "Run a slow command", "Analyse the project.",
	"This request fails: http-400", "This request fails: http-500", "This request fails",
	"This request fails and is retried", "This request gets HTTP 500", "This request gets response.failed",
	"Try again", "This turn gets interrupted while streaming", "This turn gets interrupted while waiting",
	"This turn gets interrupted while working", "Ask me which colour I prefer", "Create a marker file",
	"Write a marker file", "Run the installer", "First question", "Question before the restart",
	"Question after the restart",
}

// lastPrompt is the capture prompt shown last on capture: the last line
// that ends with one (nothing but blanks, a clock or a frame after it) or
// a fold that starts with it ("[Analyse the project. RESPONSE… Pasted +15
// lines]"), and where it starts.
func lastPrompt(capture string) (prompt string, at int) {
	at = -1
	for _, p := range CapturePrompts {
		for i := strings.Index(capture, p); i >= 0; {
			rest, _, _ := strings.Cut(capture[i+len(p):], "\n")
			folded := i > 0 && capture[i-1] == '['
			if i > at && (folded || strings.IndexFunc(rest, unicode.IsLetter) < 0) {
				prompt, at = p, i
			}
			next := strings.Index(capture[i+1:], p)
			if next < 0 {
				break
			}
			i += 1 + next
		}
	}
	return prompt, at
}

// CheckOrdinaryScreens reads every real capture of the provider package's
// testdata/real-* (each size and terminal, the colourless .plain.txt
// forms) against the capture prompt shown last on it, which was
// submitted once: no reading may call it anything but taken whole and
// once, whatever the screen shows under it (replies, tool boxes, a
// dialog, a draft or a folded paste in the composer, the footer). It
// returns how many screens could tell of those read (a screen whose last
// prompt is folded is not counted: the fold's size is the dispatch's), for
// the caller to require.
func CheckOrdinaryScreens(t *testing.T, sr handoff.SubmissionReader) (told, read int) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "real-*", "*", "*.plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	deeper, _ := filepath.Glob(filepath.Join("testdata", "real-*", "*", "*", "*.plain.txt"))
	for _, f := range append(files, deeper...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		capture := string(b)
		prompt, at := lastPrompt(capture)
		if prompt == "" {
			continue
		}
		sub := sr.Submitted(capture, prompt)
		if capture[at-1] == '[' {
			// Its fold: its size is the dispatch's, not this text's.
			if p := sub.Problem(); p != "" {
				t.Errorf("%s read against %q, folded last: problem %q (%+v)", f, prompt, p, sub)
			}
			continue
		}
		read++
		if p := sub.Problem(); p != "" {
			t.Errorf("%s read against %q, its last prompt: problem %q (%+v)", f, prompt, p, sub)
		}
		if sub.Tell == "" && len(sub.Messages) == 1 && sub.Messages[0].Taken == handoff.TakenWhole {
			told++
		} else if os.Getenv("READERS_DEBUG") != "" {
			t.Logf("cannot tell: %s (%q): %+v", f, prompt, sub)
		}
	}
	return told, read
}

// SubmittedScreen is one entry of a provider's
// testdata/submitted/manifest.json: a real capture after a dispatch
// (File), the text it is read against (Prompt: that dispatch's, or
// another's to prove a reading needs this one's receipt), how it was
// taken, and what the check at the end must make of it: a problem
// quoting Problem, none and able to tell (both empty), or none because it
// cannot tell (CannotTell).
type SubmittedScreen struct {
	File       string `json:"file"`
	Prompt     string `json:"prompt"`
	Note       string `json:"note"`
	Capture    string `json:"capture"`
	Problem    string `json:"problem,omitempty"`
	CannotTell bool   `json:"cannot_tell,omitempty"`
}

// Tells says how many of a provider's ordinary screens must tell the
// prompt taken whole and once (CheckOrdinaryScreens): every one, or at
// least one (a CLI some of whose terminals draw prompts the reader leaves
// alone).
type Tells bool

// What CheckTranscript requires of the ordinary screens.
const (
	EveryScreenTells Tells = true
	SomeScreensTell  Tells = false
)

// CheckTranscript is a provider's transcript test, in its package: the
// entries of testdata/submitted/manifest.json read as each says
// (CheckSubmissions), then every ordinary real screen
// (CheckOrdinaryScreens), of which all or some must tell.
func CheckTranscript(t *testing.T, sr handoff.SubmissionReader, tells Tells) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "submitted", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var screens []SubmittedScreen
	if err := json.Unmarshal(b, &screens); err != nil {
		t.Fatalf("testdata/submitted/manifest.json: %v", err)
	}
	var cases []SubmittedCase
	for _, s := range screens {
		file, prompt := strings.TrimSuffix(s.File, ".txt"), strings.TrimSuffix(s.Prompt, ".prompt")
		if prompt == file {
			prompt = ""
		}
		cases = append(cases, SubmittedCase{File: file, Prompt: prompt, Problem: s.Problem, CannotTell: s.CannotTell})
	}
	CheckSubmissions(t, sr, cases)
	told, read := CheckOrdinaryScreens(t, sr)
	t.Logf("%d of %d ordinary screens tell the prompt taken whole and once", told, read)
	if read == 0 || told == 0 || tells == EveryScreenTells && told != read {
		t.Errorf("%d of %d ordinary screens tell the prompt taken whole and once, want %s", told, read, map[Tells]string{EveryScreenTells: "all", SomeScreensTell: "some"}[tells])
	}
}

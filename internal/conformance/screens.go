// Package conformance is what every provider must pass, written once: its
// real screens against their manifest, the properties any classification
// keeps (for the fuzz tests), and the classify benchmarks (a 200-line
// capture within the budget, flat in the scrollback). The end-to-end half
// of the suite, on the real CLIs, is the table in e2e/conformance_test.go.
//
// It is test support: the providers' tests call it.
package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Screen is one entry of a provider's testdata/real-<version>/manifest.json:
// a screen captured from the real CLI in tmux, the pane title at that
// moment, and the status the screen truthfully means.
type Screen struct {
	File   string         `json:"file"`
	Title  string         `json:"title"`
	Status handoff.Status `json:"status"`
	Note   string         `json:"note"`
	// Size is the pane's size, WxH ("" for the default 120x40).
	Size string `json:"size,omitempty"`
	// Capture is the tmux command that took it (colours kept or not).
	Capture string `json:"capture,omitempty"`
	// Captured says how the screen was brought about, when not by the
	// default capture run.
	Captured string `json:"captured,omitempty"`
	// Message, when set, is the last assistant message as the model sent
	// it (the screen may wrap it: compared word by word).
	Message string `json:"message,omitempty"`
	// Detail, when set, starts the error Classification.Detail quotes.
	Detail string `json:"detail,omitempty"`
}

// LoadScreens reads dir/manifest.json.
func LoadScreens(tb testing.TB, dir string) []Screen {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		tb.Fatalf("the real screens must be in the repository: %v", err)
	}
	var screens []Screen
	if err := json.Unmarshal(b, &screens); err != nil {
		tb.Fatalf("%s/manifest.json: %v", dir, err)
	}
	if len(screens) == 0 {
		tb.Fatalf("%s/manifest.json lists no screens", dir)
	}
	return screens
}

// Dirs is dir and each folder right under it that holds a manifest.json of
// its own: the same screens taken in another environment (a terminal, an
// approval mode). A provider's tests read them all.
func Dirs(dir string) []string {
	dirs := []string{dir}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if _, err := os.Stat(filepath.Join(sub, "manifest.json")); e.IsDir() && err == nil {
			dirs = append(dirs, sub)
		}
	}
	return dirs
}

// Want is what a provider's set of screens must cover beyond every status.
type Want struct {
	// Sizes is how many pane sizes the screens come in (at least).
	Sizes int
	// Plain: every screen also comes without colour (NAME.plain.txt).
	Plain bool
	// Titles: every screen carries its pane title.
	Titles bool
	// Every: each folder under the real screens' (another terminal, an
	// approval mode) shows every status and size too, not only some.
	Every bool
}

// CheckRealScreens checks the real screens of dir (CheckScreens) and of
// each folder under it that has a manifest (Dirs): those with
// CheckSomeScreens, or CheckScreens when want.Every.
func CheckRealScreens(t *testing.T, dir string, c handoff.Classifier, want Want) {
	t.Helper()
	for i, d := range Dirs(dir) {
		t.Run(filepath.Base(d), func(t *testing.T) {
			if i == 0 || want.Every {
				CheckScreens(t, d, c, want)
				return
			}
			some := want
			some.Sizes = 0
			CheckSomeScreens(t, d, c, some)
		})
	}
}

// NoMessage judges a LastMessage result that must be "no message": an
// error wrapping screen.ErrNoAssistantMessage.
func NoMessage(_ string, err error) bool { return errors.Is(err, screen.ErrNoAssistantMessage) }

// Prefix judges a LastMessage result that must be a message starting with
// p and holding none of not (a note, a spinner, the chrome).
func Prefix(p string, not ...string) func(string, error) bool {
	return func(msg string, err error) bool {
		if err != nil || !strings.HasPrefix(msg, p) {
			return false
		}
		for _, n := range not {
			if strings.Contains(msg, n) {
				return false
			}
		}
		return true
	}
}

// Interrupted is the LastMessageCase of the probe's "interrupted-streaming"
// screen, the same fake-model script for every CLI: the partial answer
// it streamed before the interrupt, holding none of notes (the CLI's
// interrupt note, spinner or chrome).
func Interrupted(notes ...string) LastMessageCase {
	want := "the partial answer"
	if len(notes) > 0 {
		want += fmt.Sprintf(", without %q", notes)
	}
	return LastMessageCase{File: "interrupted-streaming", OK: Prefix("A partial answer that is cut short.", notes...), Want: want}
}

func words(s string) string { return strings.Join(strings.Fields(s), " ") }

// CheckScreens runs c over every real screen of dir, with its pane title,
// against the status the manifest gives; on an error screen Detail must
// start with the manifest's detail, on any other it must be empty; where
// the manifest gives the last message, LastMessage must find it. The
// screens must show all five statuses and cover want.
func CheckScreens(t *testing.T, dir string, c handoff.Classifier, want Want) {
	t.Helper()
	seen, sizes := checkScreens(t, dir, c, want)
	for _, st := range Statuses {
		if seen[st] == 0 {
			t.Errorf("no real screen shows %s", st)
		}
	}
	if len(sizes) < want.Sizes {
		t.Errorf("screens of %d pane size(s), want at least %d", len(sizes), want.Sizes)
	}
}

// CheckSomeScreens is CheckScreens for a folder that holds only some
// phases (the main ones in another terminal, or in an approval mode):
// every screen is read as its manifest says and want's Plain and Titles
// hold, but not every status or size need be there.
func CheckSomeScreens(t *testing.T, dir string, c handoff.Classifier, want Want) {
	t.Helper()
	checkScreens(t, dir, c, want)
}

// checkScreens checks the screens of dir's own manifest and returns the
// statuses and sizes they show.
func checkScreens(t *testing.T, dir string, c handoff.Classifier, want Want) (map[handoff.Status]int, map[string]bool) {
	t.Helper()
	screens := LoadScreens(t, dir)
	seen := map[handoff.Status]int{}
	sizes := map[string]bool{}
	files := map[string]bool{}
	for _, sc := range screens {
		seen[sc.Status]++
		sizes[sc.Size] = true
		files[sc.File] = true
		t.Run(sc.File, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, sc.File))
			if err != nil {
				t.Fatal(err)
			}
			if want.Titles && sc.Title == "" {
				t.Errorf("no pane title in the manifest")
			}
			got := c.Classify(string(b), sc.Title)
			if got.Status != sc.Status {
				sig, _ := json.Marshal(got.Signals)
				t.Errorf("status %q (%s), want %q — %s\nsignals: %s", got.Status, got.Reason, sc.Status, sc.Note, sig)
			}
			if sc.Status == handoff.StatusError && !strings.HasPrefix(got.Detail, sc.Detail) {
				t.Errorf("detail %q, want it to start with %q", got.Detail, sc.Detail)
			}
			if sc.Status != handoff.StatusError && got.Detail != "" {
				t.Errorf("detail %q on a %s screen", got.Detail, got.Status)
			}
			if sc.Message != "" {
				msg, err := c.LastMessage(string(b))
				if err != nil || words(msg) != words(sc.Message) {
					t.Errorf("last message %q, %v; want %q", msg, err, sc.Message)
				}
			}
		})
	}
	if want.Plain {
		for f := range files {
			if !strings.HasSuffix(f, ".plain.txt") && !files[strings.TrimSuffix(f, ".txt")+".plain.txt"] {
				t.Errorf("%s has no plain twin", f)
			}
		}
	}
	return seen, sizes
}

// Statuses are the five statuses a classifier answers with.
var Statuses = []handoff.Status{handoff.StatusIdle, handoff.StatusProcessing, handoff.StatusCompleted,
	handoff.StatusWaitingUserAnswer, handoff.StatusError}

// CheckStatus classifies capture with its title and wants status and,
// when reason is not "", that reason; a mismatch shows the signals.
func CheckStatus(t *testing.T, c handoff.Classifier, capture, title string, status handoff.Status, reason string) handoff.Classification {
	t.Helper()
	got := c.Classify(capture, title)
	if got.Status != status || (reason != "" && got.Reason != reason) {
		sig, _ := json.Marshal(got.Signals)
		t.Errorf("%s (%s), want %s (%s)\nsignals: %s", got.Status, got.Reason, status, reason, sig)
	}
	return got
}

// CheckClassification checks what holds for any classification of any
// input (the fuzz tests' properties): one of the five statuses, a one-line
// reason, JSON-encodable, an empty capture is an error, and the message
// extraction finds a non-empty message or says there is none (noMessage).
// It returns the classification for the provider's own checks.
func CheckClassification(t *testing.T, c handoff.Classifier, capture, title string, noMessage error) handoff.Classification {
	t.Helper()
	got := c.Classify(capture, title)
	known := false
	for _, st := range Statuses {
		known = known || got.Status == st
	}
	if !known {
		t.Fatalf("status %q is not one of the five", got.Status)
	}
	if got.Reason == "" || strings.ContainsAny(got.Reason, "\r\n") {
		t.Fatalf("reason %q is not one line", got.Reason)
	}
	if _, err := json.Marshal(got); err != nil {
		t.Fatalf("classification does not encode: %v", err)
	}
	if strings.TrimSpace(capture) == "" && got.Status != handoff.StatusError {
		t.Fatalf("empty capture read as %q", got.Status)
	}
	msg, err := c.LastMessage(capture)
	if err != nil && !errors.Is(err, noMessage) {
		t.Fatalf("last message: unexpected error %v", err)
	}
	if err == nil && strings.TrimSpace(msg) == "" {
		t.Fatal("last message is empty, without an error")
	}
	return got
}

// AddScreens adds every real screen of dir (with its title) to a fuzz
// corpus.
func AddScreens(f *testing.F, dir string) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return
	}
	var screens []Screen
	if json.Unmarshal(b, &screens) != nil {
		return
	}
	for _, sc := range screens {
		if capture, err := os.ReadFile(filepath.Join(dir, sc.File)); err == nil {
			f.Add(string(capture), sc.Title)
		}
	}
}

// LastMessageCase is one real screen and what the fallback must make of it:
// OK judges LastMessage's result, Want says what it should have been.
type LastMessageCase struct {
	File string
	OK   func(msg string, err error) bool
	Want string
}

// CheckLastMessages runs c.LastMessage over each case's screen: dir/File
// as is, or with sizes given, dir/<size>/<File>.txt and .plain.txt for each.
func CheckLastMessages(t *testing.T, dir string, c handoff.Classifier, sizes []string, cases []LastMessageCase) {
	t.Helper()
	var files []string
	for _, tc := range cases {
		if len(sizes) == 0 {
			files = append(files, tc.File)
			continue
		}
		for _, size := range sizes {
			files = append(files, filepath.Join(size, tc.File+".txt"), filepath.Join(size, tc.File+".plain.txt"))
		}
	}
	per := len(files) / len(cases)
	for i, file := range files {
		tc := cases[i/per]
		t.Run(file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := c.LastMessage(string(b)); !tc.OK(got, err) {
				t.Fatalf("got %q, %v; want %s", got, err, tc.Want)
			}
		})
	}
}

// CheckReason runs c over each named screen of dir (a path without ".txt":
// the capture with colour and the plain one) and wants reason, the one
// only the rule under test gives, and no last message.
func CheckReason(t *testing.T, dir string, c handoff.Classifier, reason string, files ...string) {
	t.Helper()
	for _, f := range files {
		for _, file := range []string{f + ".txt", f + ".plain.txt"} {
			t.Run(file, func(t *testing.T) {
				b, err := os.ReadFile(filepath.Join(dir, file))
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Classify(string(b), ""); got.Reason != reason {
					t.Errorf("read as %s (%s), want the reason %q", got.Status, got.Reason, reason)
				}
				if msg, err := c.LastMessage(string(b)); !NoMessage(msg, err) {
					t.Errorf("last message %q, %v; want none", msg, err)
				}
			})
		}
	}
}

// Unanswered are the screens of every capture script (e2e captureScript)
// on which no answer stands: no prompt yet, the first byte not back, an
// API error, a dialog. LastMessage must find no message on them.
func Unanswered() []LastMessageCase {
	return []LastMessageCase{
		{File: "idle-fresh", OK: NoMessage, Want: "ErrNoAssistantMessage: no prompt yet"},
		{File: "processing-first-byte", OK: NoMessage, Want: "ErrNoAssistantMessage: nothing answered yet"},
		{File: "error-api-400", OK: NoMessage, Want: "ErrNoAssistantMessage: an API error is no answer"},
		{File: "waiting-confirmation", OK: NoMessage, Want: "ErrNoAssistantMessage: a dialog"},
	}
}

// CheckScriptMessages runs c.LastMessage over the screens a capture script
// took in dir (80x24 and 200x50, coloured and plain): the Unanswered ones,
// then the provider's own cases. Each folder of another terminal under dir
// (Dirs) is checked on those of the screens it holds.
func CheckScriptMessages(t *testing.T, dir string, c handoff.Classifier, own ...LastMessageCase) {
	t.Helper()
	cases := append(Unanswered(), own...)
	CheckLastMessages(t, dir, c, []string{"80x24", "200x50"}, cases)
	for _, sub := range Dirs(dir)[1:] {
		t.Run(filepath.Base(sub), func(t *testing.T) {
			for _, size := range []string{"80x24", "200x50"} {
				var shown []LastMessageCase
				for _, tc := range cases {
					if _, err := os.Stat(filepath.Join(sub, size, tc.File+".txt")); err == nil {
						shown = append(shown, tc)
					}
				}
				if len(shown) > 0 {
					CheckLastMessages(t, sub, c, []string{size}, shown)
				}
			}
		})
	}
}

// CheckReadsToTheLastPrompt checks, for a classification got of capture,
// that the scan read no more lines than there are and, once it found the
// last user prompt, that scrollback put above the capture (old) changes
// neither the verdict, nor the lines scanned, nor the last message: the
// cost follows what happened since the last prompt. read gives the
// provider's lines scanned and the last prompt's line (0: not found).
func CheckReadsToTheLastPrompt(t *testing.T, c handoff.Classifier, capture, title, old string, got handoff.Classification,
	read func(handoff.Classification) (scanned, lastUser int)) {
	t.Helper()
	scanned, lastUser := read(got)
	if lines := strings.Count(capture, "\n") + strings.Count(capture, "\r") + 1; scanned > lines {
		t.Fatalf("scanned %d lines of a %d-line capture", scanned, lines)
	}
	if lastUser == 0 {
		return
	}
	more := c.Classify(old+capture, title)
	moreScanned, _ := read(more)
	if more.Status != got.Status || moreScanned != scanned {
		t.Fatalf("with scrollback above: %q after %d lines; alone: %q after %d lines", more.Status, moreScanned, got.Status, scanned)
	}
	msg, err := c.LastMessage(capture)
	moreMsg, moreErr := c.LastMessage(old + capture)
	if moreMsg != msg || (moreErr == nil) != (err == nil) {
		t.Fatalf("with scrollback above, the last message changed: %q (%v) vs %q (%v)", moreMsg, moreErr, msg, err)
	}
}

// FuzzScreens is every provider's FuzzClassify: seeds (capture, title,
// capture, title, …), an empty and a broken capture, and every real screen
// under realDir (AddScreens, each of Dirs) as the corpus; the body is Fuzz
// with screen.ErrNoAssistantMessage and screen.ReasonEmpty, and old as the
// scrollback.
func FuzzScreens[S any](f *testing.F, c handoff.Classifier, realDir, old string, scan func(S) (scanned, lastUser int), seeds ...string) {
	for i := 0; i+1 < len(seeds); i += 2 {
		f.Add(seeds[i], seeds[i+1])
	}
	f.Add("", "")
	f.Add("\r\r\n\x1b[", "\xe2\xa0")
	f.Add("\r\r\n\x1b[", "\xe2\x97")
	for _, dir := range Dirs(realDir) {
		AddScreens(f, dir)
	}
	f.Fuzz(Fuzz(c, screen.ErrNoAssistantMessage, screen.ReasonEmpty, old, scan))
}

// Fuzz is the body every provider's FuzzClassify runs (f.Fuzz(Fuzz(…))):
// CheckClassification; signals of the provider's own type S; an error
// status exactly when there is a detail to quote or the capture is empty
// (the provider's emptyReason; "" leaves this check out); and
// CheckReadsToTheLastPrompt with old as the scrollback, scan giving the
// lines scanned and the last prompt's line from S.
func Fuzz[S any](c handoff.Classifier, noMessage error, emptyReason, old string, scan func(S) (scanned, lastUser int)) func(t *testing.T, capture, title string) {
	return func(t *testing.T, capture, title string) {
		got := CheckClassification(t, c, capture, title, noMessage)
		if _, ok := got.Signals.(S); !ok {
			var want S
			t.Fatalf("signals are %T, want %T", got.Signals, want)
		}
		if emptyReason != "" && (got.Status == handoff.StatusError) != (got.Detail != "" || got.Reason == emptyReason) {
			t.Fatalf("status %s with detail %q", got.Status, got.Detail)
		}
		CheckReadsToTheLastPrompt(t, c, capture, title, old, got, func(c handoff.Classification) (int, int) {
			return scan(c.Signals.(S))
		})
	}
}

// CheckWithoutDecoration runs c over every plain screen (NAME.plain.txt)
// of dir with the lines drop reports (a frame, a rule: decoration some
// terminal may not draw) blanked, and wants the status the manifest gives:
// a classifier must find the composer, the busy line and errors by what
// they say and where they are. except names screens (by file name
// without its folder and ".plain.txt") the decoration is known to decide,
// with why.
func CheckWithoutDecoration(t *testing.T, dir string, c handoff.Classifier, drop func(line string) bool, except map[string]string) {
	t.Helper()
	for _, sc := range LoadScreens(t, dir) {
		if !strings.HasSuffix(sc.File, ".plain.txt") {
			continue
		}
		t.Run(sc.File, func(t *testing.T) {
			if why, ok := except[strings.TrimSuffix(filepath.Base(sc.File), ".plain.txt")]; ok {
				t.Skip(why)
			}
			b, err := os.ReadFile(filepath.Join(dir, sc.File))
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			for i, l := range lines {
				if drop(strings.TrimSpace(l)) {
					lines[i] = ""
				}
			}
			got := c.Classify(strings.Join(lines, "\n"), sc.Title)
			if got.Status != sc.Status {
				sig, _ := json.Marshal(got.Signals)
				t.Errorf("without decoration: status %q (%s), want %q — %s\nsignals: %s", got.Status, got.Reason, sc.Status, sc.Note, sig)
			}
		})
	}
}

// Suite is what CheckProvider is given besides the provider value: what
// its composer must guard, and screens of its CLI.
type Suite struct {
	// Leaders are the characters that, first in a message, open another
	// mode of the CLI's composer: each must get the lead line.
	Leaders string
	// Composer is the folder of real screens taken after a paste
	// (testdata/composer; see CheckComposer), "" when there is none.
	Composer string
	// Screens are captures of the CLI and the status each shows.
	Screens []Shown
}

// Shown is a capture of an agent CLI, its pane title and the status it
// shows; Name says which, in an error.
type Shown struct {
	Name, Capture, Title string
	Status               handoff.Status
}

// ShownIn reads the screens of dir's manifest (LoadScreens) with their
// captures.
func ShownIn(t *testing.T, dir string) []Shown {
	t.Helper()
	var out []Shown
	for _, sc := range LoadScreens(t, dir) {
		b, err := os.ReadFile(filepath.Join(dir, sc.File))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, Shown{Name: sc.File, Capture: string(b), Title: sc.Title, Status: sc.Status})
	}
	return out
}

// CheckProvider is what every provider value must pass, shipped or not: it
// says what it reads (name, CLI, version) and has every rule; it is a
// handoff.Classifier and a handoff.Composer; its composer keeps a prompt a
// message (CheckComposer, or CheckInert without screens); an empty screen
// is an error and a screen with no reply says so with an error that wraps
// screen.ErrNoAssistantMessage and names the provider; each of the suite's
// screens reads as its status, within CheckClassification's rules.
func CheckProvider(t *testing.T, p screen.Provider, s Suite) {
	t.Helper()
	if p.Name == "" || p.CLI == "" || p.Version == "" || p.Read == nil || p.Last == nil || p.Recognize == nil {
		t.Fatalf("incomplete provider: name %q, CLI %q, version %q, or a rule missing", p.Name, p.CLI, p.Version)
	}
	var c handoff.Classifier = p
	comp, ok := c.(handoff.Composer)
	if !ok {
		t.Fatal("the provider is no handoff.Composer")
	}
	if s.Composer != "" {
		CheckComposer(t, comp, s.Composer, s.Leaders)
	} else {
		CheckInert(t, comp, s.Leaders)
	}
	if got := CheckClassification(t, c, "", "", screen.ErrNoAssistantMessage); got.Status != handoff.StatusError {
		t.Errorf("an empty screen reads as %s", got.Status)
	}
	if _, err := c.LastMessage(""); !errors.Is(err, screen.ErrNoAssistantMessage) || !strings.HasPrefix(err.Error(), p.Name+": ") {
		t.Errorf("the last message of an empty screen: %v; want screen.ErrNoAssistantMessage, named %s", err, p.Name)
	}
	for _, sc := range s.Screens {
		got := CheckClassification(t, c, sc.Capture, sc.Title, screen.ErrNoAssistantMessage)
		if got.Status != sc.Status {
			t.Errorf("%s: %s (%s), want %s", sc.Name, got.Status, got.Reason, sc.Status)
		}
		checkNothingLeft(t, c, sc)
		if sc.Status == handoff.StatusProcessing {
			checkMidDraw(t, c, sc)
		}
	}
}

// checkMidDraw: a frame caught mid-draw does not read as a quiet agent
// while it shows the work. A CLI redraws its frame top down, so a capture
// on a busy machine can hold the top of a frame and nothing under it yet
// (Continue did, under load: its working line and box, not the footer,
// read as idle, and a slow first byte took a grace). So every cut of a
// processing screen (its lines down to one, blank under it) from the first
// that reads processing must not read idle or completed: during a turn one
// such reading starts the grace.
func checkMidDraw(t *testing.T, c handoff.Classifier, sc Shown) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(sc.Capture, "\n"), "\n")
	shown := false
	for k := 1; k < len(lines); k++ {
		cut := strings.Join(lines[:k], "\n") + strings.Repeat("\n", len(lines)-k+1)
		got := c.Classify(cut, sc.Title)
		shown = shown || got.Status == handoff.StatusProcessing
		if shown && got.Status.Quiet() {
			t.Errorf("%s drawn down to line %d of %d reads %s (%s): a frame caught mid-draw, its work shown, must not read quiet",
				sc.Name, k, len(lines), got.Status, got.Reason)
			return
		}
	}
}

// checkNothingLeft: the tmux driver pastes into no quiet agent's composer
// that already holds something (handoff.Held: a fold, or text its
// PasteReader or DraftReader reads): the prompt would join it. So a quiet
// screen whose composer is empty, or shows the CLI's placeholder, must not
// read so, or every dispatch to the CLI would be refused; the screens
// taken with a draft in the composer (named so) must, or Send would paste
// onto it. What a screen reads as held must be one of the leftovers the
// captures put there.
func checkNothingLeft(t *testing.T, c handoff.Classifier, sc Shown) {
	t.Helper()
	comp, ok := c.(handoff.Composer)
	if !ok || !sc.Status.Quiet() || comp.Mode(sc.Capture) != "" {
		return
	}
	prompt := comp.Inert(handoff.WithInstruction("A prompt about to be pasted.", "/tmp/work/tester_response.md", "r3c31p7"))
	seen, held := handoff.Held(comp, sc.Capture, prompt)
	switch {
	case strings.Contains(sc.Name, "draft") && !held:
		t.Errorf("%s: its composer holds a draft, which reads before a paste as nothing: Send would paste the prompt onto it", sc.Name)
	case held && !leftover(seen):
		t.Errorf("%s: its composer reads before a paste as holding %q, which no capture left there (a placeholder, a hint?): Send would refuse every prompt", sc.Name, seen)
	}
}

// leftovers are what the captures of real screens leave in a composer
// (e2e's capture scripts): a draft not sent, a long paste not sent (its
// text, or the CLI's fold of it), and the prompt a CLI gives back to its
// composer when its turn is interrupted (Claude Code, Qwen Code).
var leftovers = []string{"a draft that is not sent yet", "A long pasted prompt line.", "This turn gets interrupted while", "13 lines", "Pasted +12 lines", "12 lines]", "📄 #"}

// leftover reports whether seen quotes one of the leftovers.
func leftover(seen string) bool {
	for _, l := range leftovers {
		if strings.Contains(seen, l) {
			return true
		}
	}
	return false
}

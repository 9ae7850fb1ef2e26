package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	handoff "github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/fakemodel"
	"github.com/handoff-fsm/handoff-fsm/internal/testkit"
	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/tmuxdriver"
)

// deliveryCase is one prompt sent through a whole dispatch: it must reach
// the model whole and once, and nothing in it may run.
type deliveryCase struct {
	name   string
	prompt string
}

// modeCharacters are the characters some composer treats specially when a
// message starts with one: every provider is tried with every one, first
// and after leading blanks and line breaks.
const modeCharacters = "!/#@$?&"

// deliveryCases are the hostile and unusual prompts of the delivery rows.
// canary is a file that exists only if some prompt ran as a command.
func deliveryCases(canary string) []deliveryCase {
	var cs []deliveryCase
	for _, r := range modeCharacters {
		// Each prompt differs, so "once" can be checked on the whole
		// conversation.
		run := func(where string) string {
			if r == '/' {
				return "exit — this is text (" + where + "), and so is /quit; touch " + canary
			}
			return fmt.Sprintf("touch %s; echo this only looks like shell (%s)", canary, where)
		}
		cs = append(cs,
			deliveryCase{fmt.Sprintf("%q-first", r), string(r) + run("first")},
			deliveryCase{fmt.Sprintf("%q-after-blanks-and-line-breaks", r), "  \n\n  " + string(r) + run("after blanks")},
		)
	}
	var big strings.Builder
	for i := 0; big.Len() < 64<<10; i++ {
		fmt.Fprintf(&big, "line %05d of a long prompt: the quick brown fox jumps over the lazy dog\n", i)
	}
	cs = append(cs,
		deliveryCase{"crlf", "first line\r\nsecond line\r\n\r\nafter an empty line"},
		deliveryCase{"tabs", "\tled by a tab, then\ta tab mid-line\n\t\ttwo tabs"},
		deliveryCase{"wide", "wide 漢字テスト 한국어 and emoji 🧪👩‍💻 in a line"},
		deliveryCase{"combining", "combining e\u0301 a\u0308 n\u0303, not precomposed"},
		deliveryCase{"zero-width", testkit.PastePromptText("zero-width")},
		deliveryCase{"64KB", big.String()},
		deliveryCase{"20000-character-line", strings.Repeat("abcdefghij", 2000)},
		deliveryCase{"quotes-the-instruction", "Quote this back: " + handoff.InstructionHeader + "\nWhen your work is complete, write your complete final response to this file:\n/tmp/not/the/file.md\ncat <<'HANDOFF_EOF' > /tmp/x\nHANDOFF_EOF\nEOF"},
	)
	return cs
}

// received is what the model must find of prompt: the CLIs drop the line
// breaks and blanks at the ends of a message, and take CRLF as one line
// break. What a CLI changes beyond that is listed in docs/providers.md's
// delivery-fidelity table, and here.
func received(prov, prompt string) string {
	text := strings.TrimFunc(handoff.NormalizeLineBreaks(prompt), unicode.IsSpace)
	for _, ch := range fidelity[prov] {
		text = ch.apply(text)
	}
	return text
}

// change is one thing a CLI does to a message's text on its way to the
// model (docs/providers.md, "Delivery fidelity").
type change struct {
	what  string
	apply func(string) string
}

// fidelity lists, per provider, what its CLI changes, measured by
// TestDelivery on the real CLI.
var fidelity = map[string][]change{
	"claude":  {tabsAsSpaces(4), dropZeroWidth},
	"pi":      {tabsAsSpaces(4)},
	"copilot": {tabsAsSpaces(4)},
	"omp":     {tabsAsSpaces(3), composedNFC},
	"kimi":    {tabsAsSpaces(4)},
}

// maxPaste is, per provider, the largest paste (in bytes) its CLI passes
// on to the model as text: Copilot CLI 1.0.102 saves a longer one (more
// than 20 KiB, whatever its compactPaste setting) to a file of its session
// and sends the model "<pasted_content file=… />", a reference. A prompt
// whose paste (with the response-file instruction) is longer is not
// dispatched there: the composer's reading of that paste must say so
// (handoff.PasteWrong), and the composer is emptied again.
var maxPaste = map[string]int{"copilot": 20 << 10}

// dispatchedPaste is what a dispatch of prompt pastes into c's composer:
// the prompt with its response-file instruction, as the composer takes it.
func dispatchedPaste(t *testing.T, r *rig, c conformer, prompt string) string {
	cl, err := provider.Lookup(c.cli.Name)
	if err != nil {
		t.Fatal(err)
	}
	text := handoff.WithInstruction(prompt, testkit.ResponseFile(t, r.workdir, "tester"), captureReceipt)
	return cl.(handoff.Composer).Inert(handoff.NormalizeLineBreaks(text))
}

// tabsAsSpaces: each tab becomes n spaces (not the next tab stop).
func tabsAsSpaces(n int) change {
	return change{fmt.Sprintf("a tab becomes %d spaces", n), func(s string) string {
		return strings.ReplaceAll(s, "\t", strings.Repeat(" ", n))
	}}
}

// composedNFC: the text is put in Unicode's composed form (NFC): "e" and a
// combining accent become "é".
var composedNFC = change{"the text is put in Unicode's composed form (NFC)", norm.NFC.String}

// dropZeroWidth: the zero-width space, word joiner and BOM are removed
// (an emoji's zero-width joiner is kept).
var dropZeroWidth = change{"the zero-width space, word joiner and BOM (U+200B, U+2060, U+FEFF) are removed; an emoji's joiner is kept", func(s string) string {
	return strings.NewReplacer("\u200b", "", "\u2060", "", "\ufeff", "").Replace(s)
}}

// TestDelivery sends each delivery case through a whole dispatch to every
// provider's real CLI and checks, on what the fake model received, that
// the prompt arrived whole and exactly once (no second submission from a
// repeated Enter), and that no prompt ran as a command in the agent's
// pane. A prompt with a control character is refused before the pane.
// longPaste is the size from which a CLI that cannot take a prompt whole
// may refuse it (send fails saying so) instead of delivering it: a short
// prompt must always arrive.
const longPaste = 16 << 10

func TestDelivery(t *testing.T) {
	eachConformer(t, func(t *testing.T, c conformer) {
		if only := os.Getenv("HANDOFF_DELIVERY_ONLY"); only != "" && only != c.cli.Name {
			t.Skip("HANDOFF_DELIVERY_ONLY=" + only)
		}
		r := c.start(t, setup{Terminal: tmuxTerminal})
		canary := filepath.Join(t.TempDir(), "RAN")
		cases := deliveryCases(canary)

		// Refused up front: nothing reaches the pane or the model.
		err := r.pane().Send(context.Background(), "review this\x1b[201~!touch "+canary+"\r")
		if !errors.Is(err, handoff.ErrPromptRefused) {
			t.Fatalf("a prompt with a bracketed-paste end: send = %v, want ErrPromptRefused", err)
		}

		for i, dc := range cases {
			if !wantedCase(t, dc.name) {
				continue
			}
			dispatched := false
			if limit, ok := maxPaste[c.cli.Name]; ok && len(dispatchedPaste(t, r, c, dc.prompt)) > limit {
				t.Run(dc.name+"-over-the-paste-limit", func(t *testing.T) {
					pasteOverTheLimit(t, r.in(t), c, dispatchedPaste(t, r, c, dc.prompt))
				})
				continue
			}
			t.Run(dc.name, func(t *testing.T) {
				r := r.in(t)
				r.drained()
				answer := fmt.Sprintf("delivery answer %d", i)
				r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Written."))
				asked := len(r.model.Turns())
				stalls := stallDuring(r)
				d := r.send("tester", dc.prompt, patientConfig(c.config(true)), nil)
				stalled := stalls()
				if loadRig() {
					var earlier []string
					for _, e := range cases[:i] {
						earlier = append(earlier, e.prompt)
					}
					rigVerdict(r, c.cli.Name, dc.name, dc.prompt, earlier, asked, d, stalled)
					dispatched = true
					return
				}
				if refused := errors.Is(d.err, handoff.ErrPasteIncomplete) || errors.Is(d.err, handoff.ErrEnterNotTaken); refused && len(dc.prompt) >= longPaste {
					// Where a CLI cannot take a long prompt whole (Qwen Code,
					// starved mid-paste, stops reading it), the promise is
					// the refusal: send fails saying so, and the model got
					// nothing of it.
					if got := r.model.Tally(asked, received(c.cli.Name, dc.prompt)); got.Whole != 0 || len(got.Parts) != 0 {
						r.fail("send refused the prompt (%v) but the model got %d whole and these parts: %q", d.err, got.Whole, got.Parts)
					}
					t.Logf("%s could not take the %d-byte prompt whole here; send refused it: %v", c.cli.Name, len(dc.prompt), d.err)
					// Nobody will ask for this row's replies: the next row
					// starts from an empty script. A composer Send could not
					// empty again leaves the CLI's state unknown: the rows
					// stop there, as after a failure.
					r.model.Clear()
					dispatched = !errors.Is(d.err, tmuxdriver.ErrComposerNotCleared)
					return
				}
				if d.err != nil || d.res.Content != answer+"\n" {
					r.fail("dispatch: %q, %v; the model's turns since the send: %s", d.res.Content, d.err, turnsSince(r, asked))
				}
				if got := r.model.Tally(asked, received(c.cli.Name, dc.prompt)); !got.Once() {
					t.Errorf("the model got the prompt %d times whole and these parts of it: %q", got.Whole, got.Parts)
				}
				dispatched = true
				if _, err := os.Stat(canary); err == nil {
					r.fail("the prompt ran as a command in the agent's pane: %s exists", canary)
				}
				// The turn this dispatch asked: the one carrying its
				// receipt (the previous dispatch's last turn may come
				// after that dispatch ended).
				first, found := "", false
				for _, turn := range r.model.Turns() {
					if p := turn.Prompt(); strings.Contains(p, string(d.res.Receipt)) {
						first, found = p, true
						break
					}
				}
				if !found {
					r.fail("no request to the model carries the dispatch's receipt %s", d.res.Receipt)
				}
				want := received(c.cli.Name, dc.prompt)
				if n := strings.Count(first, want); n != 1 {
					t.Errorf("the prompt (%d bytes) reached the model %d times, want once whole; the model got %d bytes:\n%s",
						len(want), n, len(first), excerptDiff(first, want))
				}
			})
			if !dispatched {
				break // the CLI's state is unknown now
			}
		}
		// The shipped command on the same pane, as a user drives it, for
		// the CLIs no test of their own sends to: a CLI start is most of
		// a case's CPU, so it shares this one.
		if sendsByNameAndAuto[c.cli.Name] && !t.Failed() && !loadRig() && os.Getenv("HANDOFF_DELIVERY_CASES") == "" {
			t.Run("send-by-name-and-auto-twice", func(t *testing.T) {
				sendByNameAndAuto(t, r.in(t), []string{c.cli.Name, c.cli.Name, "auto", "auto"})
			})
		}
		if !t.Failed() {
			lookBeforeEnter(t, r, c)
		}
		if !t.Failed() {
			lookBeforePaste(t, r, c)
		}
		// Once: the whole conversation, as the last request carries it,
		// holds each prompt in one message.
		turns := r.model.Turns()
		if len(turns) == 0 {
			return
		}
		last := turns[len(turns)-1]
		for _, dc := range cases {
			want := received(c.cli.Name, dc.prompt)
			n := 0
			for _, u := range last.UserTexts {
				n += strings.Count(u, want)
			}
			if n > 1 {
				t.Errorf("%s: the conversation holds the prompt %d times", dc.name, n)
			}
		}
	})
}

// wantedCase reports whether the delivery case name is one to run:
// HANDOFF_DELIVERY_CASES, when set, is a regular expression of the
// names (the load rig's CASES: `CASES='^64KB$'`); subtests filtered out
// with -run would end the row at the first one, as a failed dispatch does.
func wantedCase(t *testing.T, name string) bool {
	expr := os.Getenv("HANDOFF_DELIVERY_CASES")
	if expr == "" {
		return true
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatalf("HANDOFF_DELIVERY_CASES=%q: %v", expr, err)
	}
	return re.MatchString(name)
}

// pasteOverTheLimit pastes text (a dispatch's paste, longer than the CLI
// passes on as text) into the composer without Enter: the provider's
// composer reads it as not the prompt (handoff.PasteWrong, quoting the
// CLI's form of it), and its clear keys empty the composer again; the
// model is asked nothing.
func pasteOverTheLimit(t *testing.T, r *rig, c conformer, text string) {
	cl, err := provider.Lookup(c.cli.Name)
	if err != nil {
		t.Fatal(err)
	}
	pr := cl.(handoff.PasteReader)
	before := len(r.model.Turns())
	if err := r.cli.Paste(context.Background(), text); err != nil {
		t.Fatal(err)
	}
	var seen string
	r.waitScreen(30*time.Second, "the paste read as not the prompt", func(plain, _ string) bool {
		var p handoff.Paste
		p, seen = pr.Pasted(plain, text)
		return p == handoff.PasteWrong
	})
	t.Logf("%d bytes: the composer shows %q", len(text), seen)
	capture, _, err := r.cli.CapturePlain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r.keys(cl.(handoff.Composer).ClearKeys(capture)...)
	r.waitScreen(30*time.Second, "the composer empty again", func(plain, _ string) bool {
		p, _ := pr.Pasted(plain, text)
		return p == handoff.PasteArriving // an empty composer
	})
	if n := len(r.model.Turns()); n != before {
		r.fail("the model was asked %d times after a paste without Enter", n-before)
	}
}

// lookBeforeEnter: a composer a person left in shell mode ('!' typed on
// the empty composer) takes the next paste as a command. The driver sees
// the mode after the paste, clears the composer, presses no Enter, and the
// dispatch fails with ErrComposerMode, having seen the composer empty (no
// mode, nothing of the refused prompt) before it returned; the model is
// not asked, and the next dispatch goes through, its prompt alone. Nothing
// here waits on the screen between the two: the driver's word that the
// composer is empty is what is tested. pi's bash mode shows only as a
// colour, so it is not read there (its lead line is the guard); OMP's bash
// and Python modes neither.
func lookBeforeEnter(t *testing.T, r *rig, c conformer) {
	if c.cli.Name == "pi" || c.cli.Name == "omp" {
		return
	}
	t.Run("composer-left-in-shell-mode", func(t *testing.T) {
		r := r.in(t)
		comp := composerOf(t, c)
		// Cline has no shell mode: its one mode is a slash command, '/'
		// typed first (the command menu opens above the composer).
		key := "!"
		if c.cli.Name == "cline" {
			key = "/"
		}
		r.keys(key)
		r.waitScreen(30*time.Second, "the composer in shell mode", func(plain, _ string) bool { return comp.Mode(plain) != "" })
		r.drained()
		before := len(r.model.Turns())
		r.model.Script(fakemodel.WriteResponse("never"), fakemodel.Answer("Written."))
		refused := "Plain words, typed into a shell mode by mistake."
		d := r.send("tester", refused, patientConfig(c.config(true)), nil)
		if !errors.Is(d.err, handoff.ErrComposerMode) {
			r.fail("dispatch into a composer in shell mode: %v, want ErrComposerMode", d.err)
		}
		// Cleared for certain, or (a CLI starved past the driver's wait
		// for it to settle: load 17–35) said not to be: either way the
		// next prompt must reach the model alone, once, or not at all.
		unsure, first := errors.Is(d.err, tmuxdriver.ErrComposerNotCleared), d.err
		if n := len(r.model.Turns()); n != before {
			r.fail("the model was asked %d times after the refused paste", n-before)
		}
		r.model.Clear()
		r.model.Script(fakemodel.WriteResponse("after the mode"), fakemodel.Answer("Written."))
		next := "Now a plain message."
		asked := len(r.model.Turns())
		d = r.send("tester", next, patientConfig(c.config(true)), nil)
		if unsure && errors.Is(d.err, handoff.ErrComposerMode) && len(r.model.Turns()) == asked {
			t.Logf("the composer was not shown cleared (%v); the next prompt was refused before its paste, nothing at the model: %v", first, d.err)
			return
		}
		if d.err != nil || d.res.Content != "after the mode\n" {
			r.fail("the dispatch after the cleared composer: %q, %v; the model's turns: %s", d.res.Content, d.err, turnsSince(r, asked))
		}
		// The model's turns are the session's: the first since the send.
		turns := r.model.Turns()[asked:]
		if len(turns) == 0 || strings.Count(turns[0].Prompt(), received(c.cli.Name, next)) != 1 || strings.Contains(turns[0].Prompt(), refused) {
			r.fail("the model's first turn after the refusal does not hold the next prompt alone, once: %s", turnsSince(r, asked))
		}
	})
}

// lookBeforePaste: a line a person typed into the quiet agent's composer
// (send-keys -l) and did not send is not pasted onto, or the model would
// get it and the prompt as one message. The dispatch fails with
// ErrComposerMode quoting the line before anything is pasted, the model is
// asked nothing, and the line is still in the composer, as the provider's
// composer reads it. It is the rows' last: the composer is left so.
func lookBeforePaste(t *testing.T, r *rig, c conformer) {
	t.Run("leftover-text-in-the-composer", func(t *testing.T) {
		r := r.in(t)
		comp := composerOf(t, c)
		const typed = "a line typed and never sent"
		r.drained()
		before := len(r.model.Turns())
		r.keys("-l", typed)
		r.waitScreen(30*time.Second, "the typed line", func(plain, _ string) bool { return strings.Contains(plain, typed) })
		r.model.Script(fakemodel.WriteResponse("never"), fakemodel.Answer("Written."))
		prompt := "A prompt that must not join the typed line."
		d := r.send("tester", prompt, patientConfig(c.config(true)), nil)
		if !errors.Is(d.err, handoff.ErrComposerMode) || !strings.Contains(fmt.Sprint(d.err), "a line typed") {
			r.fail("dispatch onto a typed line: %v, want ErrComposerMode quoting the line", d.err)
		}
		if n := len(r.model.Turns()); n != before {
			r.fail("the model was asked %d times after the refusal: %s", n-before, turnsSince(r, before))
		}
		plain, _, err := r.cli.CapturePlain(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if seen, held := handoff.Held(comp, plain, prompt); !held || !strings.Contains(seen, "a line typed") || strings.Contains(plain, prompt) {
			r.fail("after the refusal the composer reads %q (held %v), want the typed line alone:\n%s", seen, held, plain)
		}
		r.model.Clear()
	})
}

// composerOf is c's provider's composer.
func composerOf(t *testing.T, c conformer) handoff.Composer {
	t.Helper()
	cl, err := provider.Lookup(c.cli.Name)
	if err != nil {
		t.Fatal(err)
	}
	return cl.(handoff.Composer)
}

// turnsSince says, for each turn the model got from the n-th on, how long
// its prompt was and which receipt its instruction carried.
func turnsSince(r *rig, n int) string {
	var b strings.Builder
	turns := r.model.Turns()
	for i := n; i < len(turns); i++ {
		p := turns[i].Prompt()
		tk, _ := handoff.ParseInstruction(p)
		fmt.Fprintf(&b, "\n  turn %d: prompt %d bytes, receipt %q, reply %q, user text %d bytes", i, len(p), tk.Receipt, turns[i].Reply, len(turns[i].UserText))
	}
	return b.String()
}

// excerptDiff shows where got first differs from want.
func excerptDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	// Find want's start in got by its first 40 bytes, for the likely case
	// that something came before it.
	if j := strings.Index(got, want[:min(40, len(want))]); j >= 0 {
		k := 0
		for k < len(want) && j+k < len(got) && got[j+k] == want[k] {
			k++
		}
		return fmt.Sprintf("found its start at byte %d; it differs after %d bytes: got %q, want %q", j,
			k, got[j+k:min(len(got), j+k+80)], want[k:min(len(want), k+80)])
	}
	return fmt.Sprintf("its start is not there; got begins %q", got[:min(len(got), 300)])
}

// The shipped command, as a user runs it: `handoff-fsm send` with a
// hostile prompt to the real Claude Code and the real Codex answers it
// (exit 0, the prompt whole in what the model got, nothing run in the
// pane), and a prompt holding a paste end sequence exits 2 with nothing
// sent.
func TestSendCommandDeliversHostilePromptsInertly(t *testing.T) {
	eachConformer(t, func(t *testing.T, c conformer) {
		bin := buildCommand(t)
		r := c.start(t, setup{})
		canary := filepath.Join(t.TempDir(), "RAN")
		send := func(prompt string) (string, string, int) {
			return r.runSend(bin, "--provider", c.cli.Name, "--role", "tester", "--idle-grace", "6s", "--timeout", "60s", "--prompt", prompt)
		}
		for i, prompt := range []string{
			"!touch " + canary + "; echo this only looks like shell",
			"/quit\n!touch " + canary,
		} {
			answer := fmt.Sprintf("hostile answer %d", i)
			r.drained()
			before := len(r.model.Turns())
			r.model.Script(fakemodel.WriteResponse(answer), fakemodel.Answer("Written."))
			stdout, stderr, code := send(prompt)
			if code != 0 || stdout != answer+"\n" {
				r.fail("send %q: exit %d, stdout %q, stderr:\n%s", prompt, code, stdout, stderr)
			}
			if _, err := os.Stat(canary); err == nil {
				r.fail("the prompt ran in the agent's pane: %s exists", canary)
			}
			if turns := r.model.Turns()[before:]; len(turns) == 0 || strings.Count(turns[0].Prompt(), prompt) != 1 {
				r.fail("the model did not get the prompt whole and once")
			}
		}
		r.drained()
		before := len(r.model.Turns())
		_, stderr, code := send("look\x1b[201~!touch " + canary)
		if code != 2 || !strings.Contains(stderr, "ESC") || !strings.Contains(stderr, "byte 4") {
			t.Fatalf("a prompt with ESC: exit %d, stderr %q; want 2 naming ESC at byte 4", code, stderr)
		}
		if n := len(r.model.Turns()); n != before {
			t.Fatalf("the refused prompt reached the model")
		}
	}, "claude", "codex")
}

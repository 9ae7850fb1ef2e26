package codex

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
)

// The bottom of a Codex 0.169 screen, as described in issue 3.
var (
	composer169 = []string{
		"",
		"› Ask Codex to do anything",
		"",
		"  gpt-5.5 high · ~/work/proj",
		"  ← for agents · ? for shortcuts",
		"",
	}
	composerBusy169 = []string{
		"",
		"› Ask Codex to do anything",
		"",
		"  gpt-5.5 high · ~/work/proj",
		"  tab to queue message",
	}
	banner169 = []string{
		"╭─────────────────────────────────────────────╮",
		"│ >_ OpenAI Codex (v0.169.0)                  │",
		"│                                             │",
		"│ model:     gpt-5.5 high   /model to change  │",
		"│ directory: ~/work/proj                      │",
		"╰─────────────────────────────────────────────╯",
		"",
		"  Tip: Use /compact to free up context.",
		"",
	}
)

func ls(lines ...string) []string { return lines }

func TestClassify(t *testing.T) {
	tests := []struct {
		name    string
		capture string
		title   string
		want    handoff.Status
	}{
		// Legacy screens.
		{"legacy idle prompt", conformance.Text("Welcome to Codex", "❯"), "", handoff.StatusIdle},
		{"legacy completed", conformance.Text("You Summarise the repo", "assistant: It is a Go module.", "❯"), "", handoff.StatusCompleted},
		{"legacy codex> prompt", conformance.Text("You hi", "codex: hello", "codex>"), "", handoff.StatusCompleted},
		{"legacy user without reply and no prompt", conformance.Text("You Summarise the repo"), "", handoff.StatusProcessing},
		{"legacy user, prompt, no reply", conformance.Text("You Summarise the repo", "❯"), "", handoff.StatusIdle},
		{"legacy error after user", conformance.Text("You run it", "Error: model not found", "❯"), "", handoff.StatusError},
		{"legacy traceback after user", conformance.Text("You run it", "Traceback (most recent call last):", "  File \"x.py\"", "❯"), "", handoff.StatusError},
		{"legacy error quoted by the assistant", conformance.Text("You run it", "assistant: The tool said:", "Error: model not found", "❯"), "", handoff.StatusCompleted},
		{"legacy approval question", conformance.Text("You delete the tmp dir", "Approve running rm -rf tmp? [y/n]"), "", handoff.StatusWaitingUserAnswer},
		{"legacy approval quoted by the assistant", conformance.Text("You what did it ask?", "assistant: It asked:", "Approve running rm -rf tmp? [y/n]", "❯"), "", handoff.StatusCompleted},
		{"legacy error without any user message, in the last lines", conformance.Text("Error: could not start", "❯"), "", handoff.StatusError},
		// The old interface's thinking indicator takes the composer's place:
		// a bouncing ball, the elapsed seconds, "Thinking" and its dots.
		{"legacy thinking indicator, no composer", conformance.Text("You Summarise the repo", "", "( ●    ) 3s  Thinking..."), "", handoff.StatusProcessing},
		{"legacy thinking indicator without seconds", conformance.Text("You Summarise the repo", "", "(     ●)  Thinking"), "", handoff.StatusProcessing},
		{"legacy thinking indicator after a reply part", conformance.Text("You Summarise the repo", "assistant: Reading the files.", "", "(●     ) 12s  Thinking.."), "", handoff.StatusProcessing},
		{"legacy thinking as narrative", conformance.Text("You what were you doing?", "assistant: Thinking... about the parser.", "❯"), "", handoff.StatusCompleted},
		{"legacy thinking word alone", conformance.Text("You Summarise the repo", "", "Thinking..."), "", handoff.StatusIdle},
		{"legacy thinking indicator above the last user message", conformance.Text("You first", "( ●    ) 3s  Thinking...", "assistant: done", "You second", "assistant: done too", "❯"), "", handoff.StatusCompleted},

		// v0.104: lone › with "N% context left".
		{"v0.104 idle", conformance.Text(">_ OpenAI Codex (v0.104.0)", "", "›", "", "100% context left"), "", handoff.StatusIdle},
		{"v0.104 placeholder composer", conformance.Text("› Explain this codebase", "", "100% context left · ? for shortcuts"), "", handoff.StatusIdle},
		{"v0.104 hint on the prompt line", conformance.Text("› hi", "", "• Hello!", "", "› Summarize recent commits                ? for shortcuts"), "", handoff.StatusCompleted},
		{"v0.104 completed", conformance.Text("› hi", "", "• Hello!", "", "› Summarize recent commits", "", "98% context left"), "", handoff.StatusCompleted},
		{"v0.104 working", conformance.Text("› hi", "", "• Working (3s • esc to interrupt)", "", "›", "", "98% context left"), "", handoff.StatusProcessing},
		{"v0.104 just sent, nothing below", conformance.Text("› hi"), "", handoff.StatusProcessing},

		// v0.105: "model effort · N% left · cwd".
		{"v0.105 completed", conformance.Text("› hi", "", "• Hello!", "", "› Find and fix a bug in @filename", "", "  gpt-5.3-codex high · 97% left · ~/proj"), "", handoff.StatusCompleted},
		{"v0.105 idle", conformance.Text("›", "", "  gpt-5.3-codex high · 100% left · ~/proj"), "", handoff.StatusIdle},

		// Codex 0.169.
		{"0.169 fresh idle", conformance.Capture(banner169, composer169), "proj", handoff.StatusIdle},
		{"0.169 fresh idle, footer on the status line", conformance.Capture(banner169, ls("› Ask Codex to do anything", "", "  gpt-5.5 high · ~/work/proj · ← for agents · ? for shortcuts")), "", handoff.StatusIdle},
		{"0.169 unsent draft is not a user message", conformance.Capture(banner169, ls("› Reply with READY"), ls("", "  gpt-5.5 high · ~/work/proj", "  ← for agents · ? for shortcuts")), "proj", handoff.StatusIdle},
		{"0.169 multi-line draft after a reply", conformance.Capture(ls("› hi", "", "• Hello!", "", "  Worked for 2s • 04:28", "", "› first line of a draft", "  second line of it", "", "  gpt-5.5 high · ~/work/proj", "  ← for agents · ? for shortcuts")), "", handoff.StatusCompleted},
		{"0.169 draft above a status line without cwd", conformance.Capture(ls("› hi", "", "• Hello!", "", "› a draft", "", "  gpt-5.5 high · Fake task title")), "proj", handoff.StatusCompleted},
		{"0.169 draft with the esc-again hint", conformance.Capture(ls("› hi", "", "• Hello!", "", "› a draft", "", "  esc again to edit previous message")), "proj", handoff.StatusCompleted},
		{"0.169 ctrl-c hint", conformance.Capture(ls("› hi", "", "• Hello!", "", "› Ask Codex to do anything", "", "  ctrl + c again to quit")), "proj", handoff.StatusCompleted},
		{"0.169 working", conformance.Capture(banner169, ls("› Write the file", "", "◦ Working (0s • esc to interrupt)"), composerBusy169), "⠋ proj", handoff.StatusProcessing},
		{"0.169 working without a title", conformance.Capture(banner169, ls("› Write the file", "", "• Working (5s • esc to interrupt)"), composer169), "", handoff.StatusProcessing},
		{"0.169 reconnecting", conformance.Capture(ls("› Write the file", "", "• Reconnecting... 2/5 (3s • esc to interrupt)"), composer169), "", handoff.StatusProcessing},
		{"0.169 reasoning header", conformance.Capture(ls("› Write the file", "", "• Planning the answer (4s • esc to interrupt)"), composer169), "", handoff.StatusProcessing},
		{"0.169 background terminal", conformance.Capture(ls("› Start the server", "", "• Started it.", "", "· 1 background terminal running"), composer169), "", handoff.StatusProcessing},
		{"0.169 busy footer", conformance.Capture(ls("› Write the file", "", "• Writing it now"), composerBusy169), "", handoff.StatusProcessing},
		{"0.169 streaming: title spinner", conformance.Capture(ls("› Explain", "", "• The parser reads tokens and"), composer169), "⠴ proj", handoff.StatusProcessing},
		{"0.169 streaming: title spinner, other braille", conformance.Capture(ls("› Explain", "", "• The parser reads tokens and"), composer169), "⣿ proj", handoff.StatusProcessing},
		{"0.169 finished turn", conformance.Capture(ls("› Explain", "", "• The parser reads tokens.", "", "  Worked for 11s • 04:28"), composer169), "proj", handoff.StatusCompleted},
		{"0.169 finished turn, tool cell only", conformance.Capture(ls("› Write your answer", "", "• Ran cat << 'AGENT_EOF' > .tmp/agent-responses/analyst_summary.md", "  │ # Summary", "  │ All good.", "  │ AGENT_EOF", "  └ (no output)", "", "  Worked for 4s • 04:30"), composer169), "proj", handoff.StatusCompleted},
		{"0.169 tool cell only, no Worked-for line", conformance.Capture(ls("› Write your answer", "", "• Ran cat << 'AGENT_EOF' > out.md", "  └ (no output)"), composer169), "proj", handoff.StatusCompleted},
		{"0.169 approval", conformance.Capture(ls("› Clean up", "", "• I will remove the build folder.", "", "  Would you like to run the following command?", "", "  Reason: remove build output", "", "  $ rm -rf build", "", "› 1. Yes, proceed (y)", "  2. Yes, and don't ask again for this command (p)", "  3. No, and tell Codex what to do differently (esc)", "", "  Press enter to confirm or esc to cancel")), "[ ! ] Action Required | proj", handoff.StatusWaitingUserAnswer},
		{"0.169 approval, no title", conformance.Capture(ls("› Clean up", "", "Would you like to run the following command?", "", "$ rm -rf build", "", "› 1. Yes, proceed (y)", "  2. No, and tell Codex what to do differently (esc)")), "", handoff.StatusWaitingUserAnswer},
		{"0.169 plan-mode question", conformance.Capture(ls("› Plan the change", "", "  Question 1/1 (1 unanswered)", "  Which database should it use?", "", "› 1. Postgres", "  2. SQLite", "", "  enter to submit answer · esc to cancel")), "", handoff.StatusWaitingUserAnswer},
		{"0.169 question right under the user message, no cursor glyph", conformance.Capture(ls("› Plan the change", "", "  Question 1/1 (1 unanswered)", "  Which database should it use?", "", "  1. Postgres", "  2. SQLite", "", "  enter to submit answer · esc to cancel")), "proj", handoff.StatusWaitingUserAnswer},
		{"0.169 action required title alone", conformance.Capture(ls("› Clean up", "", "• Thinking about it"), composer169), "[ ! ] Action Required | proj", handoff.StatusWaitingUserAnswer},
		{"0.169 stream disconnected", conformance.Capture(ls("› Explain", "", "■ stream disconnected before completion: error sending request"), composer169), "proj", handoff.StatusError},
		{"0.169 high demand", conformance.Capture(ls("› Explain", "", "■ We’re currently experiencing high demand, which may cause temporary errors."), composer169), "proj", handoff.StatusError},
		{"0.169 raw JSON error", conformance.Capture(ls("› Explain", "", `■ {"error":{"message":"boom","type":"server_error"}}`), composer169), "proj", handoff.StatusError},
		{"0.169 error after a partial reply", conformance.Capture(ls("› Explain", "", "• The parser", "", "■ stream disconnected before completion: idle timeout"), composer169), "proj", handoff.StatusError},
		{"0.169 error from an earlier turn", conformance.Capture(ls("› Explain", "", "■ stream disconnected before completion", "", "› Try again", "", "• Here it is.", "", "  Worked for 3s • 04:40"), composer169), "proj", handoff.StatusCompleted},
		{"0.169 error quoted in a reply", conformance.Capture(ls("› What failed?", "", "• Codex printed:", "  ■ stream disconnected before completion", "  Error: boom"), composer169), "proj", handoff.StatusCompleted},
		{"0.169 interrupted, no reply", conformance.Capture(ls("› Explain", "", "■ Conversation interrupted - tell the model what to do differently."), composer169), "proj", handoff.StatusIdle},
		{"0.169 interrupted after a reply", conformance.Capture(ls("› Explain", "", "• The parser", "", "■ Conversation interrupted - tell the model what to do differently."), composer169), "proj", handoff.StatusCompleted},
		{"0.169 approval text quoted in a reply", conformance.Capture(ls("› What did it ask?", "", "• It asked: Would you like to run the following command?", "  Approve running rm? [y/n]"), composer169), "proj", handoff.StatusCompleted},
		{"0.169 narrative esc to interrupt", conformance.Capture(ls("› How do I stop it?", "", "• Press esc to interrupt the turn; it stops running."), composer169), "proj", handoff.StatusCompleted},
		{"0.169 menu cursor from an earlier turn", conformance.Capture(ls("› 1. Yes, proceed (y)", "", "› next", "", "• Done.", ""), composer169), "proj", handoff.StatusCompleted},

		// The user's own prompt is not Codex's UI, even when it quotes it.
		{"user prompt quoting an approval question", conformance.Capture(ls("› Reply with this text:", "  Would you like to run the following command?", "  Press enter to confirm or esc to cancel", "", "◦ Working (1s • esc to interrupt)"), composer169), "⠋ proj", handoff.StatusProcessing},
		{"user prompt quoting an approval question, turn done", conformance.Capture(ls("› Reply with this text:", "  Would you like to run the following command?", "  Question 1/1 (1 unanswered)", "", "• Would you like to run the following command?", "", "  Worked for 1s • 05:00"), composer169), "proj", handoff.StatusCompleted},
		{"user prompt quoting the busy line", conformance.Capture(ls("› Why does it say this?", "  • Working (3s • esc to interrupt)", "", "• Because a turn was running.", "", "  Worked for 1s • 05:00"), composer169), "proj", handoff.StatusCompleted},
		{"user prompt quoting the busy line, no reply yet", conformance.Capture(ls("› Why does it say this?", "  (3s • esc to interrupt)"), composer169), "proj", handoff.StatusIdle},

		// Active-work UI that scrolled out of the last lines no longer counts.
		{"active work scrolled out", conformance.Capture(ls("› Go", "", "• Working (3s • esc to interrupt)", "", "• Here is the listing:"), manyLines("  line", window+5), composer169), "", handoff.StatusCompleted},
		{"active work just inside the last lines", conformance.Capture(ls("› Go", "", "• Step one.", "• Working (3s • esc to interrupt)"), manyLines("  line", window-8), composer169), "", handoff.StatusProcessing},
		{"active work before the last user message", conformance.Capture(ls("› Go", "", "• Working (3s • esc to interrupt)", "", "› Next", "", "• Done."), composer169), "", handoff.StatusCompleted},

		// Escapes and line endings.
		{"colour escapes", "\x1b[1m›\x1b[0m \x1b[48;5;236mExplain\x1b[0m\n\n\x1b[1m•\x1b[0m The parser.\n\n\x1b[2m  Worked for 1s • 04:28\x1b[0m\n\n\x1b[1m›\x1b[0m \x1b[2mAsk Codex to do anything\x1b[0m\n\n\x1b[2m  gpt-5.5 high · ~/p\x1b[0m\n", "", handoff.StatusCompleted},
		{"unterminated OSC does not eat the next line", "\x1b]0;title without end\n› Explain\n\n• Working (3s • esc to interrupt)\n\n›\n100% context left\n", "", handoff.StatusProcessing},
		{"OSC hyperlink", "› Explain\n\n• See \x1b]8;;https://x.test\x1b\\the docs\x1b]8;;\x07.\n\n›\n100% context left\n", "", handoff.StatusCompleted},
		{"CRLF line endings", strings.ReplaceAll(conformance.Text("› hi", "", "• Hello", "", "›", "100% context left"), "\n", "\r\n"), "", handoff.StatusCompleted},
		{"CR line endings", strings.ReplaceAll(conformance.Text("› hi", "", "• Hello", "", "›", "100% context left"), "\n", "\r"), "", handoff.StatusCompleted},
		{"no trailing newline", "› hi\n\n• Hello\n\n›\n100% context left", "", handoff.StatusCompleted},

		// Empty captures.
		{"empty capture", "", "", handoff.StatusError},
		{"blank capture", "\n\n   \n\x1b[0m\n", "proj", handoff.StatusError},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := conformance.CheckStatus(t, Provider(), tc.capture, tc.title, tc.want, "")
			if got.Reason == "" || strings.ContainsAny(got.Reason, "\n\r") {
				t.Errorf("reason %q must be one non-empty line", got.Reason)
			}
		})
	}
}

func manyLines(line string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = line
	}
	return out
}

// The provider value is the handoff.Classifier the driver is given.
func TestTheProviderIsAClassifier(t *testing.T) {
	var c handoff.Classifier = Provider()
	if got := c.Classify("› hi\n\n• Hello\n\n›\n100% context left\n", ""); got.Status != handoff.StatusCompleted {
		t.Fatalf("%q, want completed", got.Status)
	}
}

func TestSignalsDescribeTheDecision(t *testing.T) {
	capture := conformance.Capture(ls("› Explain the parser", "", "• It reads tokens.", "", "  Worked for 11s • 04:28"), composer169)
	got := Provider().Classify(capture, "⠴ proj")
	sig := got.Signals.(Signals)
	if got.Status != handoff.StatusProcessing || got.Reason != ReasonTitleSpinner {
		t.Fatalf("got %q (%s), want processing because of the title spinner", got.Status, got.Reason)
	}
	checks := []struct {
		what      string
		got, want any
	}{
		{"title", sig.Title, TitleSpinner},
		{"prompt", sig.Prompt, "composer"},
		{"composer", sig.Composer, "Ask Codex to do anything"},
		{"placeholder", sig.ComposerPlaceholder, true},
		{"footer", sig.Footer, "← for agents · ? for shortcuts"},
		{"footer line", sig.FooterLine, 2},
		{"prompt line", sig.PromptLine, 5},
		{"reply", sig.Reply, "worked_for"},
		{"reply line", sig.ReplyLine, 7},
		{"last user", sig.LastUser, "› Explain the parser"},
		{"last user line", sig.LastUserLine, 11},
		{"lines scanned", sig.LinesScanned, 11},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"status":"processing"`, `"reason":`, `"signals":{`, `"last_user_line":11`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON %s lacks %s", b, key)
		}
	}
}

// TestScanStopsAtTheLastUserMessage: what is above the last user message is
// never looked at, so old errors, menus and busy lines cannot leak in and
// the scrollback does not cost.
func TestScanStopsAtTheLastUserMessage(t *testing.T) {
	old := ls("■ stream disconnected before completion", "› 1. Yes, proceed (y)", "Error: boom", "• Working (1s • esc to interrupt)")
	var history []string
	for i := 0; i < 1000; i++ {
		history = append(history, old...)
	}
	capture := conformance.Capture(history, ls("› Explain", "", "• Done."), composer169)
	got := Provider().Classify(capture, "proj")
	sig := got.Signals.(Signals)
	if got.Status != handoff.StatusCompleted {
		t.Errorf("status %q (%s), want completed", got.Status, got.Reason)
	}
	if sig.LinesScanned != sig.LastUserLine || sig.LinesScanned > 12 {
		t.Errorf("scanned %d lines, last user at %d: want the scan to stop there", sig.LinesScanned, sig.LastUserLine)
	}
}

// The driver quotes Detail in the wait's error: an error screen must carry
// its ■ line there, and nothing else may.
func TestErrorScreenQuotesItsLineInDetail(t *testing.T) {
	capture := conformance.Capture(ls("› Explain", "", "■ stream disconnected before completion: boom"), composer169)
	got := Provider().Classify(capture, "proj")
	if got.Status != handoff.StatusError || got.Detail != "■ stream disconnected before completion: boom" {
		t.Fatalf("status %q, detail %q: want error quoting the ■ line", got.Status, got.Detail)
	}
	done := Provider().Classify(conformance.Capture(ls("› Explain", "", "• It reads tokens."), composer169), "proj")
	if done.Detail != "" {
		t.Fatalf("a completed screen has detail %q", done.Detail)
	}
}

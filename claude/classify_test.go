package claude

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

const rule = "────────────────────────────────────────────────────────────────────────────────"

// chromeOf is the bottom of a Claude Code screen: composer and footer.
func chromeOf(composer, footer string) []string {
	return []string{rule, "❯\u00a0" + composer, rule, "  " + footer}
}

const (
	idleFooter = "⏵⏵ bypass permissions on (shift+tab to cycle)"
	busyFoot   = "⏵⏵ bypass permissions on (shift+tab to cycle) · esc to interrupt"
)

func withChrome(history []string, composer, footer string) string {
	return conformance.Text(append(append([]string{}, history...), chromeOf(composer, footer)...)...)
}

func realScreen(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(realDir, file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSyntheticScreens(t *testing.T) {
	turn := []string{"❯ Say hello", "", "● Hello.", ""}
	tests := []struct {
		name   string
		screen string
		title  string
		want   handoff.Status
		reason string
	}{
		{"empty", "", "", handoff.StatusError, screen.ReasonEmpty},
		{"blank lines only", "\n\n   \n", "", handoff.StatusError, screen.ReasonEmpty},
		{"fresh", withChrome([]string{" ▐▛███▛█   Claude Code v2.1.330", ""}, "", idleFooter), "✳ Claude Code", handoff.StatusIdle, screen.ReasonIdleNoTurns},
		{"prompt, nothing after it", withChrome([]string{"❯ Say hello", ""}, "", idleFooter), "", handoff.StatusIdle, screen.ReasonIdle},
		{"done line", withChrome(append(turn, "✻ Brewed for 3s · done 9:04 AM"), "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"done line in minutes", withChrome(append(turn, "✻ Worked for 1m 5s"), "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"busy footer only", withChrome([]string{"❯ Say hello", ""}, "", busyFoot), "", handoff.StatusProcessing, ReasonBusyFooter},
		// The rules are decoration: without them the composer is the
		// "❯" with a no-break space above the footer.
		{"no rules, busy footer", conformance.Text("❯ Say hello", "", "❯\u00a0", "  "+busyFoot), "", handoff.StatusProcessing, ReasonBusyFooter},
		{"no rules, done line", conformance.Text(append(turn, "✻ Brewed for 3s", "", "❯\u00a0", "  "+idleFooter)...), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"no rules, a draft", conformance.Text(append(turn, "✻ Brewed for 3s", "", "❯\u00a0a draft", "  "+idleFooter)...), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"no rules, an error", conformance.Text("❯ Go", "", "● API Error: 500 Internal server error.", "", "❯\u00a0Resend your message to try again", "  "+idleFooter), "", handoff.StatusError, screen.ReasonError},
		{"no rules, a prompt at the bottom is no composer", conformance.Text("● Hello.", "", "❯ Say hello", "  "+idleFooter), "", handoff.StatusIdle, screen.ReasonNoComposer},
		{"spinner only", withChrome([]string{"❯ Say hello", "", "✶ Computing… ", "  ⎿  Tip: Use /memory"}, "", idleFooter), "", handoff.StatusProcessing, ReasonSpinner},
		{"spinner with timer", withChrome([]string{"❯ Say hello", "", "● Hel", "✽ Orbiting… (2s · ↓ 21 tokens)"}, "", idleFooter), "", handoff.StatusProcessing, ReasonSpinner},
		{"retry line", withChrome([]string{"❯ Say hello", "✻ API error · retrying in 4s · attempt 2/10"}, "", idleFooter), "", handoff.StatusProcessing, ReasonRetry},
		{"title spinner", withChrome(append(turn, "✻ Brewed for 3s"), "", idleFooter), "⠋ Claude Code", handoff.StatusProcessing, ReasonTitle},
		{"title of an idle Claude is neutral", withChrome([]string{"❯ Say hello"}, "", idleFooter), "✳ Claude Code", handoff.StatusIdle, screen.ReasonIdle},
		{"api error", withChrome([]string{"❯ Say hello", "● API Error: 500 Internal server error. This is a", "  server-side issue.", "                          ◐ medium · /effort"}, "Resend your message to try again", idleFooter), "", handoff.StatusError, screen.ReasonError},
		{"not logged in", withChrome([]string{"❯ Go", "  ⎿ \u00a0Not logged in · Please run /login"}, "Once fixed, resend your message", idleFooter), "", handoff.StatusError, ReasonErrorNote},
		{"context limit", withChrome([]string{"❯ Go", "  ⎿ \u00a0Context limit reached · /compact or /clear to continue", "  tmux focus-events off · add it"}, "Once fixed, resend your message", idleFooter), "", handoff.StatusError, ReasonErrorNote},
		{"a note without the resend placeholder is neutral", withChrome([]string{"❯ Go", "  ⎿ \u00a0Something happened"}, "", idleFooter), "", handoff.StatusIdle, screen.ReasonIdle},
		{"a tip under a prompt is no failure", withChrome([]string{"❯ Go", "  ⎿ \u00a0Tip: Use /memory"}, "Once fixed, resend your message", idleFooter), "", handoff.StatusIdle, screen.ReasonIdle},
		{"the model quoting an API error finished its turn", withChrome([]string{"❯ What does it say?", "● API Error: 500 means the server failed.", "✻ Brewed for 2s"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		// Before about 2.1.320 a failed turn ends in its duration line too.
		{"an error in Claude Code's words, then the duration line", withChrome([]string{"❯ Go", "● API Error: 500 Internal server error. This is a", "  server-side issue.", "✻ Sautéed for 5s · done 2:03 PM"}, "", idleFooter), "", handoff.StatusError, screen.ReasonError},
		{"a 429 in Claude Code's words, then the duration line", withChrome([]string{"❯ Go", "● API Error: Request rejected (429) · retry later", "✻ Baked for 1s"}, "", idleFooter), "", handoff.StatusError, screen.ReasonError},
		{"not logged in, then the duration line", withChrome([]string{"❯ Go", "  ⎿ \u00a0Not logged in · Please run /login", "✻ Baked for 1s · done 2:08 PM"}, "", idleFooter), "", handoff.StatusError, ReasonErrorNote},
		{"a tool's output note above the duration line is no failure", withChrome([]string{"❯ Go", "  ⎿ \u00a0Read 1 file", "✻ Baked for 1s"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"an error above a later reply is history", withChrome([]string{"❯ Go", "● API Error: 500 Internal server error.", "● Recovered and answered.", "✻ Baked for 1s"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"an old error is history", withChrome([]string{"❯ one", "● API Error: 529 Overloaded.", "❯ two", "● Fine now.", "✻ Churned for 1s"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"narrative busy words are neutral", withChrome([]string{"❯ Explain", "● Press esc to interrupt while it is Computing… and running.", "  ✶ Working… is what the spinner says;", "  API Error: is what errors say.", "✻ Brewed for 2s"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"interrupted while streaming", withChrome([]string{"❯ Go", "● A partial", "  ⎿ \u00a0Interrupted · What should Claude do instead?"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"tool call without a message yet", withChrome([]string{"❯ Go", "● Running a command", "  ⎿  $ ls"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"a draft is not a prompt", withChrome(append(turn, "✻ Brewed for 3s"), "❯ fake prompt in the draft", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"unknown screen is neutral", conformance.Text("Some text", "that Claude Code did not draw", "$ "), "", handoff.StatusIdle, screen.ReasonNoComposer},
		{"permission dialog", conformance.Text("❯ Go", rule, " Bash command", " Do you want to proceed?", " ❯ 1. Yes", "   2. No", " Esc to cancel · Tab to amend"), "", handoff.StatusWaitingUserAnswer, ReasonDialog},
		// Auto mode behind a gateway: a full-width panel asks, with no menu.
		{"auto mode panel", conformance.Text("❯ Run it", "● Running it", "  ⎿  $ curl -fsSL http://x.invalid/i.sh | bash", rule,
			"  Auto mode can't check actions in this session", "  Auto mode's safety check runs on the server.",
			"  Enter to stay in auto mode · shift+Tab to leave for accept edits mode and stop · Esc to cancel"), "✳ Claude Code", handoff.StatusWaitingUserAnswer, ReasonDialog},
		{"a panel hint without a rule above is no dialog", conformance.Text("❯ Go", "  Enter to stay · Esc to cancel"), "", handoff.StatusIdle, screen.ReasonNoComposer},
		{"a panel hint above the composer is history", withChrome([]string{"❯ Go", rule, "  Enter to stay in auto mode · Esc to cancel", "● Done.", "✻ Brewed for 1s"}, "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
		{"a key hint without an option is no dialog", conformance.Text("❯ Go", "● Esc to cancel"), "", handoff.StatusIdle, screen.ReasonNoComposer},
		{"an option above the last prompt is stale", conformance.Text(" ❯ 1. Yes", "❯ Go", "● Esc to cancel"), "", handoff.StatusIdle, screen.ReasonNoComposer},
		{"crlf", strings.ReplaceAll(withChrome([]string{"❯ Say hello", "", "✶ Computing…"}, "", idleFooter), "\n", "\r\n"), "", handoff.StatusProcessing, ReasonSpinner},
		{"unterminated escape", "\x1b]0;title\n" + withChrome(append(turn, "✻ Brewed for 3s\x1b["), "", idleFooter), "", handoff.StatusCompleted, screen.ReasonCompleted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conformance.CheckStatus(t, Provider(), tc.screen, tc.title, tc.want, tc.reason)
		})
	}
}

// Each positive sign of work is enough on its own: the real processing
// screens stay processing with the footer's "esc to interrupt" removed
// (the spinner or retry line decides), and with the spinner line removed
// (the footer decides).
func TestRealProcessingScreensHaveTwoIndependentSigns(t *testing.T) {
	for _, rc := range conformance.LoadScreens(t, realDir) {
		if rc.Status != handoff.StatusProcessing {
			continue
		}
		t.Run(rc.File, func(t *testing.T) {
			screen := realScreen(t, rc.File)
			noFooter := strings.ReplaceAll(screen, "esc to interrupt", "")
			if got := Provider().Classify(noFooter, rc.Title); got.Status != handoff.StatusProcessing {
				t.Errorf("without the footer's hint: %s (%s)", got.Status, got.Reason)
			}
			sig := Provider().Classify(screen, rc.Title).Signals.(Signals)
			var kept []string
			for i, l := range strings.Split(screen, "\n") {
				if n := strings.Count(screen, "\n") + 1 - i; n == sig.NewestLine {
					continue // the spinner or retry line
				}
				kept = append(kept, l)
			}
			if got := Provider().Classify(strings.Join(kept, "\n"), rc.Title); got.Status != handoff.StatusProcessing || got.Reason != ReasonBusyFooter {
				t.Errorf("without the spinner line: %s (%s)", got.Status, got.Reason)
			}
		})
	}
}

// A finished turn's screen does not change its verdict when any number of
// earlier turns (with errors, spinners and dialogs) sit above it, and the
// scan stops at the last prompt.
func TestScrollbackAboveTheLastPromptIsIgnored(t *testing.T) {
	for _, file := range []string{"80x24/completed-answer.txt", "200x50/error-api-500.txt", "80x24/processing-tool.txt", "200x50/waiting-question.txt", "80x24/interrupted-streaming.plain.txt"} {
		screen := realScreen(t, file)
		alone := Provider().Classify(screen, "✳ Claude Code")
		more := Provider().Classify(scrollback()+screen, "✳ Claude Code")
		a, m := alone.Signals.(Signals), more.Signals.(Signals)
		if alone.Status != more.Status {
			t.Errorf("%s: %s alone, %s with scrollback", file, alone.Status, more.Status)
		}
		if a.LastUserLine != 0 && a.LinesScanned != m.LinesScanned {
			t.Errorf("%s: scanned %d lines alone, %d with scrollback", file, a.LinesScanned, m.LinesScanned)
		}
	}
}

func TestDetailLeavesTheEffortHintOut(t *testing.T) {
	screen := withChrome([]string{"❯ Say hello", "● API Error: 529 Overloaded. This is a", "  server-side issue.", "                          ◐ medium · /effort"}, "", idleFooter)
	if got := Provider().Classify(screen, ""); got.Detail != "API Error: 529 Overloaded. This is a server-side issue." {
		t.Fatalf("detail %q", got.Detail)
	}
}

func TestDetailQuotesTheWholeErrorCell(t *testing.T) {
	got := Provider().Classify(realScreen(t, "80x24/error-after-retries.plain.txt"), "")
	const want = "API Error: 500 Internal server error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:40000)."
	if got.Status != handoff.StatusError || got.Detail != want {
		t.Fatalf("%s, detail %q\nwant %q", got.Status, got.Detail, want)
	}
}

func TestTitleSignal(t *testing.T) {
	for title, want := range map[string]string{
		"": TitleNone, "⠋ Claude Code": TitleSpinner, "⣿ x": TitleSpinner, "\u2800 blank": TitleOther,
		"✳ Claude Code": TitleClaude, "vm": TitleOther, "\xe2\xa0": TitleOther,
	} {
		if got := titleSignal(title); got != want {
			t.Errorf("%q: %s, want %s", title, got, want)
		}
	}
}

func TestExtractSynthetic(t *testing.T) {
	tests := []struct {
		name, screen, want string
	}{
		{"multi-line with list", withChrome([]string{"❯ Go", "● First line", "  second line", "", "  - item one", "    nested", "✻ Brewed for 2s"}, "", idleFooter),
			"First line\nsecond line\n\n- item one\n  nested"},
		{"the last of two messages", withChrome([]string{"❯ Go", "● Let me look.", "● Running a command", "  ⎿  $ ls", "● Done: two files.", "✻ Brewed for 2s"}, "", idleFooter),
			"Done: two files."},
		{"one-line partial then Interrupted", withChrome([]string{"❯ Go", "● A partial", "  ⎿ \u00a0Interrupted · What should Claude do instead?"}, "", idleFooter),
			"A partial"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := lastMessage(tc.screen)
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
			if got2, _ := Provider().LastMessage(tc.screen); got2 != got {
				t.Fatalf("LastMessage %q differs from lastMessage %q", got2, got)
			}
		})
	}
	for _, screen := range []string{
		"",
		withChrome([]string{"● An old answer.", "✻ Brewed for 1s", "❯ A new prompt"}, "", busyFoot),
		withChrome([]string{"❯ Go", "● Running a command", "  ⎿  $ ls"}, "", idleFooter),
	} {
		if got, err := lastMessage(screen); err == nil {
			t.Errorf("got %q from %q, want screen.ErrNoAssistantMessage", got, screen)
		}
	}
}

package gemini

import (
	"testing"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/internal/conformance"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

const (
	upper = "▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄▄"
	lower = "▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀▀"
	rule  = "────────────────────────────────────────"
)

// chrome is the bottom of a Gemini CLI screen under status: the rule, the
// mode line, the composer with text in it, the footer.
func chrome(status, composer string) []string {
	return []string{status, rule, " YOLO Ctrl+Y", upper, " * " + composer, lower,
		" workspace (/directory)          sandbox          /model", " ~/work                          no sandbox       Auto"}
}

// framed is chrome with the composer's frame drawn as top and bottom:
// blank lines where the terminal shades the box instead (no COLORTERM),
// "───" rules with NO_COLOR.
func framed(top, bottom, status, composer string) []string {
	c := chrome(status, composer)
	c[3], c[5] = top, bottom
	return c
}

// prompt is a user prompt's box in the history.
func prompt(text string) []string { return []string{upper, " > " + text, lower} }

func ls(lines ...string) []string { return lines }

const (
	idleStatus  = "                                  ? for shortcuts"
	busyStatus  = " ⠼ Thinking... (esc to cancel, 4s)       ? for shortcuts"
	placeholder = "  Type your message or @path/to/file"
	ready       = "◇  Ready (work)        "
	working     = "✦  Working… (work)     "
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name, capture, title string
		want                 handoff.Status
		reason               string
	}{
		{"empty", "", "", handoff.StatusError, screen.ReasonEmpty},
		{"blank lines", "\n   \n\n", ready, handoff.StatusError, screen.ReasonEmpty},
		{"fresh", conformance.Capture(ls("Tips for getting started:"), chrome(idleStatus, placeholder)), ready, handoff.StatusIdle, screen.ReasonIdleNoTurns},
		{"prompt, nothing after", conformance.Capture(prompt("hi"), chrome(idleStatus, placeholder)), ready, handoff.StatusIdle, screen.ReasonIdle},
		{"busy line", conformance.Capture(prompt("hi"), chrome(busyStatus, placeholder)), ready, handoff.StatusProcessing, ReasonBusy},
		{"busy line alone, no title", conformance.Capture(prompt("hi"), ls("✦ Partial"), chrome(busyStatus, placeholder)), "", handoff.StatusProcessing, ReasonBusy},
		{"working title alone", conformance.Capture(prompt("hi"), ls("✦ Hello"), chrome(idleStatus, placeholder)), working, handoff.StatusProcessing, ReasonTitleWorking},
		{"reply", conformance.Capture(prompt("hi"), ls("✦ Hello"), chrome(idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"tool box then reply", conformance.Capture(prompt("hi"), ls("╭──────────╮", "│ ✓  Shell ls │", "╰──────────╯", "", "✦ Done."), chrome(idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"narrative esc to cancel", conformance.Capture(prompt("hi"), ls("✦ Press (esc to cancel) to stop,", "  ⠼ Thinking... (esc to cancel, 4s) is the busy line."), chrome(idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"queued prompt", conformance.Capture(ls("ℹ Initializing... Prompts will be queued.", "", "  Queued (press ↑ to edit):", "    Analyse the project."), chrome(idleStatus, placeholder)), ready, handoff.StatusProcessing, ReasonQueued},
		{"initializing note newest", conformance.Capture(ls("Tips for getting started:", "ℹ Initializing... Prompts will be queued."), chrome(idleStatus, placeholder)), ready, handoff.StatusProcessing, ReasonInitializing},
		{"initializing note above the last prompt", conformance.Capture(ls("ℹ Initializing... Prompts will be queued."), prompt("hi"), ls("✦ Hello"), chrome(idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"error", conformance.Capture(prompt("hi"), ls("✕ [API Error: {\"error\":{\"code\":400,\"message\":\"bad", "  request\"}}]", "", "ℹ This request failed. Press F12 for diagnostics."), chrome(idleStatus, placeholder)), ready, handoff.StatusError, screen.ReasonError},
		{"error, then a reply", conformance.Capture(prompt("hi"), ls("✕ [API Error: boom]"), prompt("again"), ls("✦ Fine."), chrome(idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"error in a message", conformance.Capture(prompt("hi"), ls("✦ It said:", "  ✕ [API Error: boom]"), chrome(idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"cancelled before a reply", conformance.Capture(prompt("hi"), ls("ℹ Request cancelled."), chrome(idleStatus, placeholder)), ready, handoff.StatusIdle, screen.ReasonIdle},
		{"draft", conformance.Capture(prompt("hi"), ls("✦ Hello"), chrome(rule, "a draft")[1:]), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"confirmation", conformance.Capture(prompt("hi"), ls("╭──────────────╮", "│ ? Shell  rm x │", "│ Allow execution of [Shell]? │", "│ ● 1. Allow once │", "│   2. No (esc) │", "╰──────────────╯")), "", handoff.StatusWaitingUserAnswer, ReasonDialog},
		{"action required title alone", conformance.Capture(prompt("hi"), chrome(idleStatus, placeholder)), "✋  Action Required (work)", handoff.StatusWaitingUserAnswer, ReasonTitleAction},
		{"a box at the bottom without options", conformance.Capture(prompt("hi"), ls("╭──────╮", "│ ✓  Shell ls │", "╰──────╯")), ready, handoff.StatusIdle, screen.ReasonNoComposer},
		{"unknown screen is neutral", conformance.Text("$ ls", "file.txt", "$"), "", handoff.StatusIdle, screen.ReasonNoComposer},
		// Without COLORTERM the frames are a shaded background: blank lines.
		{"no frames: reply", conformance.Capture(ls("", " > hi", "", "✦ Hello"), framed("", "", idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"no frames: error", conformance.Capture(ls("", " > hi", "", "✕ [API Error: boom]", "", "ℹ This request failed."), framed("", "", idleStatus, placeholder)), ready, handoff.StatusError, screen.ReasonError},
		{"no frames: busy", conformance.Capture(ls("", " > hi", ""), framed("", "", busyStatus, placeholder)), "", handoff.StatusProcessing, ReasonBusy},
		{"no frames: nothing after the prompt", conformance.Capture(ls("✦ old", "", " > hi", "", "ℹ Request cancelled."), framed("", "", idleStatus, placeholder)), ready, handoff.StatusIdle, screen.ReasonIdle},
		{"no frames: a draft in default mode", conformance.Capture(ls(" > hi", "✦ Hello"), framed("", "", idleStatus, "")[:2], ls(" Shift+Tab to accept edits", " > a draft", "   on two lines", " ~/work")), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		// Should a terminal not draw the rule either, the status line above
		// the mode line places the composer.
		{"no rule: reply", conformance.Capture(ls("", " > hi", "", "✦ Hello"), framed("", "", idleStatus, placeholder)[:1], framed("", "", idleStatus, placeholder)[2:]), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"no rule: busy", conformance.Capture(ls("", " > hi", ""), framed("", "", busyStatus, placeholder)[:1], framed("", "", busyStatus, placeholder)[2:]), "", handoff.StatusProcessing, ReasonBusy},
		// With NO_COLOR the frames are rules and a prompt starts at column 0.
		{"NO_COLOR: reply", conformance.Capture(ls("> hi", "", "✦ Hello"), framed(rule, rule, idleStatus, placeholder)), ready, handoff.StatusCompleted, screen.ReasonCompleted},
		{"NO_COLOR: error", conformance.Capture(ls("> hi", "", "✕ [API Error: boom]"), framed(rule, rule, idleStatus, placeholder)), ready, handoff.StatusError, screen.ReasonError},
		// A prompt line with no rule above it is history, not the composer.
		{"a prompt at the bottom is no composer", conformance.Text("✦ old", " > hi", " workspace"), ready, handoff.StatusIdle, screen.ReasonNoComposer},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			conformance.CheckStatus(t, Provider(), tc.capture, tc.title, tc.want, tc.reason)
		})
	}
}

func TestErrorDetailJoinsTheCell(t *testing.T) {
	capture := conformance.Capture(prompt("hi"), ls("✕ [API Error: {\"error\":{\"code\":400,\"message\":\"Request contains an invalid", "  argument (fake).\",\"status\":\"INVALID_ARGUMENT\"}}]", "", "ℹ This request failed."), chrome(idleStatus, placeholder))
	want := `[API Error: {"error":{"code":400,"message":"Request contains an invalid argument (fake).","status":"INVALID_ARGUMENT"}}]`
	if got := Provider().Classify(capture, ready); got.Detail != want {
		t.Errorf("detail %q, want %q", got.Detail, want)
	}
}

func TestExtractLastMessage(t *testing.T) {
	capture := conformance.Capture(prompt("hi"), ls("✦ First line", "  second line", "", "  after a blank", "", "ℹ Request cancelled."), chrome(idleStatus, placeholder))
	got, err := lastMessage(capture)
	if want := "First line\nsecond line\n\nafter a blank"; err != nil || got != want {
		t.Fatalf("got %q, %v; want %q", got, err, want)
	}
	if got2, _ := Provider().LastMessage(capture); got2 != got {
		t.Fatalf("LastMessage %q differs", got2)
	}
	for _, s := range []string{"", conformance.Capture(prompt("hi"), chrome(idleStatus, placeholder)), conformance.Capture(ls("✦ old"), prompt("hi"), chrome(busyStatus, placeholder))} {
		if got, err := lastMessage(s); err == nil {
			t.Errorf("got %q from %q, want screen.ErrNoAssistantMessage", got, s)
		}
	}
}

package claude

import (
	"slices"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// The glyphs of Claude Code 2.1.330's screen.
const (
	chevron = "❯" // the composer, a user prompt in the history, a menu cursor
	bullet  = "●" // an assistant message, a tool call, an API error
	elbow   = "⎿" // a tool's output, a tip, "Interrupted"
)

// spinnerGlyphs are the frames of Claude Code's spinner; "✻" also starts
// the line that ends a turn ("✻ Brewed for 7s").
var spinnerGlyphs = [...]string{"·", "✢", "✳", "✶", "✻", "✽", "*"}

// spinnerGlyph returns the length of the spinner glyph and space t starts
// with, or 0.
func spinnerGlyph(t string) int {
	for _, g := range spinnerGlyphs {
		if len(t) > len(g) && t[len(g)] == ' ' && strings.HasPrefix(t, g) {
			return len(g) + 1
		}
	}
	return 0
}

// isRule reports a line of box-drawing "─" only (the rules around the
// composer), at least ten long.
func isRule(t string) bool { return screen.IsRule(t, 10) }

// doneLine reports the line that ends a turn: "✻ <Verb> for <duration>",
// often followed by " · done 9:04 AM".
func doneLine(ln line) bool {
	if ln.Indent != 0 {
		return false
	}
	k := spinnerGlyph(ln.T)
	if k == 0 {
		return false
	}
	rest := ln.T[k:]
	verb, after, ok := strings.Cut(rest, " for ")
	return ok && verb != "" && !strings.ContainsAny(verb, " …") && after != "" && after[0] >= '0' && after[0] <= '9'
}

// spinnerLine reports the line of a running turn: a spinner glyph, then a
// word ending in "…" ("✶ Computing…", "✻ Enchanting… (4s · ↓ 38 tokens)",
// "✻ API error · retrying… · attempt 1/2"). It is never a done line.
func spinnerLine(ln line) bool {
	if ln.Indent != 0 {
		return false
	}
	k := spinnerGlyph(ln.T)
	if k == 0 || doneLine(ln) {
		return false
	}
	i := strings.Index(ln.T[k:], "…")
	return i > 0 && i < 80
}

// retryLine reports the line Claude Code shows while it backs off before
// retrying a failed request: "✻ API error · retrying in 1s · attempt 1/2".
func retryLine(ln line) bool {
	if ln.Indent != 0 || spinnerGlyph(ln.T) == 0 {
		return false
	}
	i := strings.Index(ln.T, "retrying")
	return i > 0 && strings.Contains(ln.T[i:], "attempt ")
}

// userPrompt reports a user message in the history: "❯ text" at column 0
// with a plain space (the composer has a no-break space; a menu's cursor is
// followed by "1. …").
func userPrompt(ln line) (string, bool) {
	if ln.Indent != 0 || !strings.HasPrefix(ln.T, chevron+" ") {
		return "", false
	}
	text := strings.TrimLeft(ln.T[len(chevron)+1:], " ")
	if text == "" || menuItem(text) {
		return "", false
	}
	return text, true
}

// composerLine reports the composer's first line: "❯" with a no-break
// space (a prompt of the history has a plain one), or alone when empty.
func composerLine(t string) bool {
	return t == chevron || strings.HasPrefix(t, chevron+"\u00a0")
}

// menuItem reports the text of a numbered option: "1. Yes".
func menuItem(text string) bool {
	n := screen.Numbered(text)
	return n > 0 && n < 3
}

// bulletText returns the text of a "● text" cell at column 0.
func bulletText(ln line) (string, bool) {
	if ln.Indent != 0 || !strings.HasPrefix(ln.T, bullet) {
		return "", false
	}
	rest := ln.T[len(bullet):]
	if rest == "" {
		return "", true
	}
	if rest[0] != ' ' {
		return "", false
	}
	return trimLeftOnly(rest), true
}

func trimLeftOnly(s string) string {
	t, _ := screen.TrimLeft(s)
	return t
}

// errorPrefixes start the text of the "●" cell Claude Code shows when a
// request failed for good (after its retries): "API Error: 500 Internal
// server error. …", "API Error: 529 Overloaded. …", "API Error: Request
// rejected (429) · …".
var errorPrefixes = [...]string{"API Error"}

// startsWithAny reports whether s starts with one of prefixes (an error
// cell's text, a failure note).
func startsWithAny(s string, prefixes []string) bool {
	return slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(s, p) })
}

// failureWording reports an error cell's text in Claude Code's own words
// for a failed request: a status code and a capitalised message ("API
// Error: 500 Internal server error.", "API Error: 529 Overloaded.", "API
// Error: 400 {…}") or a capitalised phrase ("API Error: Request rejected
// (429)", "API Error: Connection error."). A reply that merely starts with
// the words ("API Error: 500 means the server failed.") has neither.
func failureWording(text string) bool {
	rest, ok := strings.CutPrefix(text, "API Error: ")
	if !ok || rest == "" {
		return false
	}
	if len(rest) >= 4 && isDigits(rest[:3]) && rest[3] == ' ' {
		rest = rest[4:]
		return rest != "" && (rest[0] == '{' || (rest[0] >= 'A' && rest[0] <= 'Z'))
	}
	return rest[0] >= 'A' && rest[0] <= 'Z'
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// failureNotes start the notes Claude Code shows under a prompt whose
// request failed before any reply: "Not logged in · Please run /login",
// "Context limit reached · /compact or /clear to continue".
var failureNotes = [...]string{"Not logged in", "Context limit reached", "Invalid API key", "Credit balance is too low"}

// resendPlaceholder reports the composer's placeholder after a failed
// request: "Resend your message to try again" (an API error), "Once fixed,
// resend your message" (not logged in, context limit reached).
func resendPlaceholder(composer string) bool {
	return strings.Contains(strings.ToLower(composer), "resend your message")
}

// noteText returns the text of a "⎿ note" line that is neither the
// Interrupted note nor a tip: under a prompt with no cell, Claude Code's
// failure notes ("⎿  Not logged in · Please run /login", "⎿  Context
// limit reached · /compact or /clear to continue").
func noteText(ln line) (string, bool) {
	if !elbowLine(ln) || interruptedLine(ln) {
		return "", false
	}
	t := trimLeftOnly(ln.T[len(elbow):])
	if t == "" || strings.HasPrefix(t, "Tip:") {
		return "", false
	}
	return t, true
}

// elbowLine reports an indented "⎿ …" line: a tool's output, a tip, or the
// "Interrupted" note.
func elbowLine(ln line) bool {
	return ln.Indent > 0 && strings.HasPrefix(ln.T, elbow)
}

// interruptedLine reports "⎿  Interrupted · What should Claude do instead?".
func interruptedLine(ln line) bool {
	return elbowLine(ln) && strings.HasPrefix(trimLeftOnly(ln.T[len(elbow):]), "Interrupted")
}

// noticeLine reports a hint Claude Code prints under the history, not part
// of any cell: "tmux focus-events off · add 'set -g focus-events on' …".
func noticeLine(t string) bool { return strings.HasPrefix(t, "tmux focus-events off") }

// effortLine reports the right-aligned effort hint above the composer:
// "◐ medium · /effort".
func effortLine(ln line) bool { return ln.Indent >= 10 && strings.HasSuffix(ln.T, "/effort") }

// busyFooter reports the footer's offer to interrupt a running turn.
func busyFooter(t string) bool { return strings.Contains(t, "esc to interrupt") }

// dialogHints are the key hints at the bottom of Claude Code's dialogs: the
// permission prompt ("Esc to cancel · Tab to amend"), a question ("Enter to
// select · ↑/↓ to navigate · Esc to cancel"), the startup trust dialog
// ("Enter to confirm · Esc to cancel").
var dialogHints = [...]string{"Esc to cancel", "Enter to confirm", "Enter to select", "Esc to go back"}

func dialogHint(t string) bool {
	for _, h := range dialogHints {
		if strings.Contains(t, h) {
			return true
		}
	}
	return false
}

// panelHint reports the key hint of a full-width panel that waits for a
// choice without a menu: "Enter to stay in auto mode · shift+Tab to leave
// for accept edits mode and stop · Esc to cancel". panel is the panel's
// lines from the hint's last line up; a narrow pane wraps the hint over two.
func panelHint(panel []line) bool {
	for i := 0; i < len(panel) && i < 2; i++ {
		if strings.HasPrefix(panel[i].T, "Enter to ") {
			hint := panel[i].T
			if i == 1 {
				hint += " " + panel[0].T
			}
			return strings.Contains(hint, " · ") && strings.Contains(hint, "Esc to ")
		}
	}
	return false
}

// menuCursor reports the highlighted option of a dialog: "❯ 1. Yes",
// "❯ No, exit", at most two columns in.
func menuCursor(ln line) bool {
	return ln.Indent <= 2 && strings.HasPrefix(ln.T, chevron+" ") && len(ln.T) > len(chevron)+1
}

// Title signals, reported in Signals.Title.
const (
	TitleNone    = "none"    // no title given
	TitleSpinner = "spinner" // a braille spinner in front: a turn runs (not seen from 2.1.330 in tmux, which keeps "✳ Claude Code")
	TitleClaude  = "claude"  // "✳ Claude Code": no signal either way
	TitleOther   = "other"   // anything else (the host name before Claude Code sets it)
)

func titleSignal(title string) string {
	switch {
	case title == "":
		return TitleNone
	case screen.BrailleSpinner(title):
		return TitleSpinner
	case strings.Contains(title, "Claude Code"):
		return TitleClaude
	}
	return TitleOther
}

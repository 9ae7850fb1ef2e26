// Package copilot reads the screen of GitHub Copilot CLI (1.0.102), as
// captured from a tmux pane, into a terminal status (idle, processing,
// completed, waiting_user_answer, error), and extracts the last assistant
// message for the fallback path.
//
// From the bottom up: the footer, one column in ("← open sidebar ·
// Interactive · Manual Approval · / commands · ? help …" when idle, "●
// Working esc esc edit prompt" or "○ Working · 60 B esc esc interrupt"
// while a turn runs, "Shell · Manual Approval" in shell mode); the
// composer ("❯" then a draft, or "!" in shell mode; its further lines two
// columns in) at column 0 between two full-width rules; the folder line
// (" /tmp/work"); and the history, one column in: prompts ("❯ text" with
// the time at the right), messages ("● text"), tool calls ("$ Shell …"),
// errors ("✗ 400 Request …") and notes ("! Model …", "● Tip: …", before
// the first prompt); continuation lines three columns in. While the
// history is taller than the pane a scrollbar ("┃", "█" without colour)
// stands in its last column. A dialog replaces the composer and the footer: a box ("╭─…─╮")
// whose options are numbered, the chosen one after "❯" ("│ ❯ 1. Yes
// │"): the folder-trust question at the start ("Confirm folder trust")
// and the approval of a command ("Do you want to run this command?").
// The pane title is "GitHub Copilot", then "<first prompt> - GitHub
// Copilot"; it does not change while a turn runs.
//
// Only positive signs make a screen busy (the footer's "Working"); text it
// does not know is neutral. The history is read up to the last user
// prompt, so the cost does not grow with the scrollback.
package copilot

import (
	"strings"
	"unicode/utf8"

	"github.com/handoff-fsm/handoff-fsm"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Reasons reported in handoff.Classification.Reason.
const (
	ReasonDialog = "a dialog waits for a choice (a box of numbered options, '❯ 1. Yes')"
	ReasonBusy   = "the footer under the composer says a turn is running ('Working', 'esc esc interrupt')"
)

// CellNote is a note in the history ("! Model …", "● Tip: …"); reported in
// Signals.Newest.
const CellNote = "note"

// Signals are what the classifier found on a screen. Line numbers count
// from the end of the capture (1 = last line); 0 means not found.
type Signals struct {
	LinesScanned int `json:"lines_scanned"`
	screen.ChromeSignals
	Footer     string `json:"footer,omitempty"`
	DialogLine int    `json:"dialog_line"`
	// Turn: the last prompt, the newest cell after it, the bottom-most
	// reply, an error.
	screen.Turn
}

type reading struct {
	sig Signals
	screen.Cells
}

func read(capture string) *reading {
	r := &reading{}
	r.Read(capture, r.chrome, r.history)
	r.sig.LinesScanned = r.N()
	return r
}

// Decide turns the reading into a status: the screen only (Copilot CLI's
// title says nothing of the turn).
func (r *reading) Decide(string) (handoff.Status, string) {
	if st, reason, ok := screen.Blocked(r.Capture(), r.NonBlank, r.sig.Chrome, ReasonDialog); ok {
		return st, reason
	}
	if r.sig.Busy != "" {
		return handoff.StatusProcessing, ReasonBusy
	}
	return r.sig.Settled(r.sig.Chrome)
}

// How far up the chrome pass looks.
const (
	footerLines   = 4  // footer lines under the composer
	composerLines = 40 // a draft of many lines
	dialogLines   = 40 // a dialog with a long command in it
)

// chrome reads the footer and the composer; without them, a dialog. It
// returns the lines read that are not chrome (newest first) for the
// history pass, and whether the bottom is a dialog.
//
// The composer is found by what it is and where it is: the line at column
// 0 (the footer and the history are one column in) that starts with "❯"
// or "!", above the footer, its further lines two columns in. The rules
// around it are decoration, skipped wherever they are drawn.
func (r *reading) chrome() ([]screen.Line, bool) {
	r.sig.Chrome = screen.ChromeNone
	var seen []screen.Line
	footer := true
	for {
		ln, ok := r.Text()
		if !ok {
			return seen, r.dialog(seen)
		}
		if rule(ln) {
			footer = false
			continue
		}
		if footer && ln.Indent == 1 {
			r.footerLine(ln)
			continue
		}
		footer = false
		seen = append(seen, ln)
		switch {
		case composerLine(ln):
			r.sig.Chrome = screen.ChromeComposer
			r.sig.Composer, r.sig.ComposerLine = screen.Signal(draftLine(ln.T)), ln.N
			r.folder()
			return nil, false
		case len(seen) > composerLines || prompt(ln):
			return seen, r.dialog(seen)
		}
	}
}

// footerLine reads a footer line: the status of the newest turn.
func (r *reading) footerLine(ln screen.Line) {
	if r.sig.Footer == "" {
		r.sig.Footer = screen.Signal(ln.T)
	}
	if busyFooter(ln.T) {
		r.sig.Busy, r.sig.BusyLine = screen.Signal(ln.T), ln.N
	}
}

// busyFooter reports the footer of a running turn: a glyph, then
// "Working" ("● Working esc esc edit prompt", "○ Working · 60 B esc esc
// interrupt"), or its key hint alone where a narrow pane cuts the line.
func busyFooter(t string) bool {
	_, size := utf8.DecodeRuneInString(t)
	if strings.HasPrefix(strings.TrimLeft(t[size:], " "), "Working") {
		return true
	}
	return strings.Contains(t, "esc esc interrupt") || strings.Contains(t, "esc esc edit prompt")
}

// folder skips the folder line above the composer's upper rule (" /tmp/work",
// with a branch in a repository), which is no cell.
func (r *reading) folder() {
	at := r.Mark()
	for {
		ln, ok := r.Text()
		if !ok {
			break
		}
		if rule(ln) {
			continue
		}
		if ln.Indent == 1 && (strings.HasPrefix(ln.T, "/") || strings.HasPrefix(ln.T, "~")) {
			return
		}
		break
	}
	r.Reset(at)
}

// draftLine is the composer's first line without its glyph ("❯" or "!")
// and the blank after it.
func draftLine(t string) string {
	_, size := utf8.DecodeRuneInString(t)
	return strings.TrimPrefix(t[size:], " ")
}

// composerLine reports the composer's first line: at column 0, "❯" or "!"
// (shell mode), then a blank and the draft, or nothing.
func composerLine(ln screen.Line) bool {
	if ln.Indent != 0 {
		return false
	}
	for _, g := range []string{"❯", "!"} {
		if rest, ok := strings.CutPrefix(ln.T, g); ok && (rest == "" || rest[0] == ' ') {
			return true
		}
	}
	return false
}

// dialog looks for a dialog's chosen option ("│ ❯ 1. Yes │") among the bottom lines (those
// already read and up to dialogLines more).
func (r *reading) dialog(seen []screen.Line) bool {
	opt, ln, ok := r.DialogOption(seen, dialogLines, prompt, chosenOption)
	if ok {
		r.sig.Chrome, r.sig.Dialog, r.sig.DialogLine = screen.ChromeDialog, screen.Signal(opt), ln.N
	}
	return ok
}

// chosenOption reports a dialog's chosen option inside its box, "│ ❯ 1.
// Yes   │", and returns "1. Yes".
func chosenOption(t string) (string, bool) {
	in, ok := strings.CutPrefix(t, "│")
	if !ok {
		return "", false
	}
	in = strings.TrimSpace(strings.TrimSuffix(screen.TrimRight(in), "│"))
	rest, ok := strings.CutPrefix(in, "❯ ")
	if !ok {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	return rest, screen.Numbered(rest) > 0
}

// prompt reports a user prompt's first line in the history: "❯ text", one
// column in.
func prompt(ln screen.Line) bool { return ln.Indent == 1 && strings.HasPrefix(ln.T, "❯ ") }

// rule reports a full-width rule at column 0.
func rule(ln screen.Line) bool { return ln.Indent == 0 && screen.IsRule(ln.T, 10) }

// history walks up from the composer to the last user prompt: the cells
// (one column in) and their continuation lines, without the scrollbar the
// history may have in its last column (unbar).
func (r *reading) history(above []screen.Line) {
	r.Clean = unbar
	h := screen.History{Cells: &r.Cells, Above: above, Turn: &r.sig.Turn}
	h.ReadCells(1, nil, func(ln screen.Line) (string, bool) { return promptText(ln.T), prompt(ln) }, cell, CellNote)
}

// promptText is a prompt's first line without its glyph and the time at
// its right ("❯ Say hello       14:03").
func promptText(t string) string {
	t = strings.TrimPrefix(t, "❯ ")
	if i := strings.LastIndex(t, "  "); i > 0 && isClock(strings.TrimSpace(t[i:])) {
		t = screen.TrimRight(t[:i])
	}
	return t
}

// isClock reports "14:03".
func isClock(s string) bool {
	return len(s) == 5 && s[2] == ':' && strings.Trim(s[:2]+s[3:], "0123456789") == ""
}

// unbar drops the scrollbar Copilot CLI draws in the last column while the
// history is taller than the pane ("┃"; its thumb "█" where colour is off)
// and the blanks before it. A bar stands after blanks (or alone).
func unbar(ln screen.Line) screen.Line {
	t := ln.Text
	for _, bar := range []string{"┃", "█"} {
		if rest, ok := strings.CutSuffix(t, bar); ok && (rest == "" || strings.HasSuffix(rest, " ")) {
			t = rest
			break
		}
	}
	if len(t) == len(ln.Text) {
		return ln
	}
	ln.Text = screen.TrimRight(t)
	ln.T, ln.Indent = screen.TrimLeft(ln.Text)
	return ln
}

// cell says what a line one column in starts, and its text after the
// glyph.
func cell(t string) (kind, text string) {
	g, size := utf8.DecodeRuneInString(t)
	rest := t[size:]
	if rest != "" && rest[0] != ' ' {
		return screen.CellOther, t
	}
	rest = strings.TrimLeft(rest, " ")
	switch g {
	case '●':
		if strings.HasPrefix(rest, "Tip: ") || strings.HasPrefix(rest, "MCP Servers reloaded") {
			return CellNote, rest
		}
		return screen.CellMessage, rest
	case '!', 'ℹ':
		return CellNote, rest
	case '✗':
		if rest != "" && (rest[0] >= '0' && rest[0] <= '9' || strings.HasPrefix(rest, "Error") || strings.HasPrefix(rest, "Request failed")) {
			return screen.CellError, rest
		}
		return screen.CellTool, rest
	case '$', '✓', '○', '◐', '◉', '→', '↳':
		if rest != "" && rest[0] >= 'A' && rest[0] <= 'Z' {
			return screen.CellTool, rest
		}
	}
	return screen.CellOther, t
}

// Found is what the reading found and the error text it quotes.
func (r *reading) Found() (any, string) { return r.sig, r.sig.Error }

package codex

import (
	"strings"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Hand-written matchers for the markers of Codex screens. Each takes a
// cleaned line: t is the text without its leading white space, indent how
// much white space there was. They are plain prefix and substring tests on
// purpose: the classifier runs on every poll, and these cost nanoseconds.

const (
	chevron    = "›" // U+203A: Codex's prompt and user-message prefix
	heavyArrow = "❯" // U+276F: legacy idle prompt
	bullet     = "•" // U+2022: assistant messages, tool cells, status indicator
	hollow     = "◦" // U+25E6: the status indicator's blinking bullet
	square     = "■" // U+25A0: error cells (and "Conversation interrupted")
	treeElbow  = "└" // U+2514: first output line of a tool cell
)

// prompt kinds returned by promptLine.
const (
	notPrompt = iota
	chevronPrompt
	legacyPrompt // ❯ or codex>
)

// promptLine reports whether t is a prompt-shaped line (›, ❯ or codex>) and
// returns the text after the prompt character with the horizontal white
// space before it removed. The text never spans lines: a lone "›" has no
// text, whatever the next line says (the spec's USER_PREFIX_PATTERN fix).
func promptLine(t string) (kind int, text string) {
	switch {
	case strings.HasPrefix(t, chevron):
		kind, text = chevronPrompt, t[len(chevron):]
	case strings.HasPrefix(t, heavyArrow):
		kind, text = legacyPrompt, t[len(heavyArrow):]
	case strings.HasPrefix(t, "codex>"):
		kind, text = legacyPrompt, t[len("codex>"):]
	default:
		return notPrompt, ""
	}
	text, _ = screen.TrimLeft(text)
	return kind, text
}

// isMenuItem reports whether the text after a "›" is a numbered menu option
// ("1. Yes, proceed (y)"): there the chevron is the menu cursor, not a user
// message or the composer.
func isMenuItem(text string) bool { return screen.Numbered(text) > 0 }

// isLegacyUser reports whether t is a legacy "You …" user line (column 0).
func isLegacyUser(t string, indent int) bool {
	if indent != 0 || !strings.HasPrefix(t, "You") {
		return false
	}
	rest := t[3:]
	return rest == "" || rest[0] == ' ' || rest[0] == ':' || rest[0] == '\t'
}

// isLegacyLabel reports whether t starts an assistant message in the legacy
// label style ("assistant:", "codex:", "agent:") and returns its text.
func isLegacyLabel(t string, indent int) (string, bool) {
	if indent != 0 {
		return "", false
	}
	for _, label := range [...]string{"assistant", "codex", "agent"} {
		if len(t) > len(label) && strings.EqualFold(t[:len(label)], label) {
			rest, _ := screen.TrimLeft(t[len(label):])
			if strings.HasPrefix(rest, ":") {
				text, _ := screen.TrimLeft(rest[1:])
				return text, true
			}
		}
	}
	return "", false
}

// bulletText reports whether t starts a cell with "• " at (near) column 0 —
// an assistant message or a tool cell — and returns the text after it.
// Bullets deeper in are list items inside a message.
func bulletText(t string, indent int) (string, bool) {
	if indent > 1 || !strings.HasPrefix(t, bullet) {
		return "", false
	}
	rest := t[len(bullet):]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", false
	}
	rest, _ = screen.TrimLeft(rest)
	return rest, true
}

// isWorkedFor reports whether t is the dim line that ends a finished turn
// ("Worked for 11s • 04:28", or "─ Worked for 1m 05s ───" in some versions).
func isWorkedFor(t string) bool {
	if strings.HasPrefix(t, "─") {
		for strings.HasPrefix(t, "─") || strings.HasPrefix(t, " ") {
			if t[0] == ' ' {
				t = t[1:]
			} else {
				t = t[len("─"):]
			}
		}
	}
	rest, ok := strings.CutPrefix(t, "Worked for ")
	// A duration follows: "11s", "1m 05s", "<1s".
	return ok && rest != "" && (rest[0] == '<' || (rest[0] >= '0' && rest[0] <= '9'))
}

// activeWork reports whether t is Codex's own active-work UI: the status
// indicator "(12s • esc to interrupt)" (Working, Reconnecting, a reasoning
// header), an "• Exploring" cell, "· 1 background terminal running", or
// the legacy interface's thinking indicator. Narrative words ("running",
// "working", "exploring", "thinking") never count, and an assistant's
// "• … esc to interrupt" counts only in the indicator's parenthesised form.
func activeWork(t string, indent int) bool {
	if indent <= 2 && (statusIndicator(t) || legacyThinking(t)) {
		return true
	}
	if text, ok := bulletText(t, indent); ok && strings.HasPrefix(text, "Exploring") {
		rest := text[len("Exploring"):]
		return rest == "" || !isWordByte(rest[0])
	}
	return backgroundTerminal(t)
}

// legacyThinking reports the legacy (TypeScript) interface's thinking
// indicator, drawn in the composer's place while a turn runs: a ball
// bouncing in parentheses, the elapsed seconds, then "Thinking" and up to
// three dots — "( ●    ) 3s  Thinking...". The word alone is narrative.
func legacyThinking(t string) bool {
	inner, rest, ok := strings.Cut(strings.TrimPrefix(t, "("), ")")
	if !ok || !strings.HasPrefix(t, "(") || strings.Count(inner, "●") != 1 || strings.Trim(inner, " ●") != "" {
		return false
	}
	rest = strings.TrimLeft(rest, " ")
	if n := len(rest) - len(strings.TrimLeft(rest, "0123456789")); n > 0 && strings.HasPrefix(rest[n:], "s") {
		rest = strings.TrimLeft(rest[n+1:], " ")
	}
	dots, ok := strings.CutPrefix(rest, "Thinking")
	return ok && len(dots) <= 3 && strings.Trim(dots, ".") == ""
}

// statusIndicator reports whether t has the status indicator's
// "(<elapsed> • esc to interrupt)".
func statusIndicator(t string) bool {
	i := indexEscToInterrupt(t)
	if i < 0 {
		return false
	}
	rest := t[i+len("esc to interrupt"):]
	return strings.HasPrefix(rest, ")") && strings.LastIndexByte(t[:i], '(') >= 0
}

// indexEscToInterrupt finds "esc to interrupt" (or "Esc to interrupt").
func indexEscToInterrupt(t string) int {
	if strings.IndexByte(t, '(') < 0 {
		return -1 // the indicator's form needs one; most lines have none
	}
	if i := strings.Index(t, "sc to interrupt"); i > 0 && (t[i-1] == 'e' || t[i-1] == 'E') {
		return i - 1
	}
	return -1
}

// backgroundTerminal matches "· N background terminal(s) running".
func backgroundTerminal(t string) bool {
	i := strings.Index(t, "background terminal")
	if i < 2 || t[i-1] != ' ' || t[i-2] < '0' || t[i-2] > '9' {
		return false
	}
	return strings.Contains(t[i:], "running")
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

// footerKind classifies the lines Codex draws below the composer.
const (
	notFooter = iota
	footerIdle
	footerBusy
)

// footer reports whether t is a footer or status line drawn below the
// composer: "? for shortcuts", "100% context left" (v0.104), "model effort ·
// 93% left · cwd" (v0.105), "  model effort · cwd" and "← for agents · ? for
// shortcuts" (0.169). "tab to queue message" is only shown while a turn runs.
func footer(t string, indent int) int {
	switch {
	case strings.Contains(t, "tab to queue message"):
		return footerBusy
	case strings.Contains(t, "for shortcuts"),
		strings.Contains(t, "context left"),
		strings.Contains(t, "for agents"),
		percentLeft(t),
		// Transient hints in the footer's place.
		strings.Contains(t, "esc again to edit"),
		strings.Contains(t, "again to quit"):
		return footerIdle
	case indent >= 2 && (strings.Contains(t, " · ~") || strings.Contains(t, " · /") || modelEffort(t)):
		// 0.169 status line: "  gpt-5.5 high · ~/work/project"
		return footerIdle
	}
	return notFooter
}

// modelEffort reports whether t starts like the 0.169 status line: a model
// name and a reasoning effort before the first " · " ("GPT-5.5 default · …").
func modelEffort(t string) bool {
	head, _, ok := strings.Cut(t, " · ")
	if !ok {
		return false
	}
	i := strings.LastIndexByte(head, ' ')
	if i < 0 {
		return false
	}
	switch head[i+1:] {
	case "minimal", "low", "medium", "high", "xhigh", "default", "none":
		return true
	}
	return false
}

// percentLeft matches "N% left".
func percentLeft(t string) bool {
	i := strings.Index(t, "% left")
	return i > 0 && t[i-1] >= '0' && t[i-1] <= '9'
}

// menuHint reports whether t is part of an approval or choice menu that
// waits for the user: the approval question, its "Yes, proceed" option, its
// footer, a Plan-mode question and its "enter to submit answer" hint.
func menuHint(t string) bool {
	switch t[0] {
	case 'W':
		return strings.HasPrefix(t, "Would you like to ")
	case 'Q':
		return isQuestionHeader(t)
	case 'P':
		return strings.HasPrefix(t, "Press enter to confirm")
	case 'e':
		return strings.HasPrefix(t, "enter to submit answer")
	}
	// An option line: "1. Yes, proceed (y)".
	if t[0] >= '0' && t[0] <= '9' {
		_, option, ok := strings.Cut(t, ". ")
		return ok && strings.HasPrefix(option, "Yes, proceed")
	}
	return strings.Contains(t, "enter to submit answer")
}

// isQuestionHeader matches the Plan-mode "Question 1/2 (1 unanswered)".
func isQuestionHeader(t string) bool {
	if !strings.HasPrefix(t, "Question ") {
		return false
	}
	rest := t[len("Question "):]
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	return i > 0 && i < len(rest) && rest[i] == '/'
}

// legacyWaiting matches the legacy approval question: a line starting with
// Approve/Allow that offers y/n, yes/no, yes or no, or any "[y/n]" question.
func legacyWaiting(t string) bool {
	for i := strings.IndexByte(t, '['); i >= 0; {
		if len(t) >= i+5 && strings.EqualFold(t[i:i+5], "[y/n]") {
			return true
		}
		j := strings.IndexByte(t[i+1:], '[')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	var rest string
	switch {
	case hasPrefixFold(t, "approve"):
		rest = t[len("approve"):]
	case hasPrefixFold(t, "allow"):
		rest = t[len("allow"):]
	default:
		return false
	}
	if rest != "" && isWordByte(rest[0]) {
		return false
	}
	return containsWordFold(rest, "y/n") || containsWordFold(rest, "yes") || containsWordFold(rest, "no")
}

// legacyError matches the legacy error lines: "Error:", "ERROR:",
// "Traceback (most recent call last):", "panic:" at column 0.
func legacyError(t string, indent int) bool {
	if indent != 0 {
		return false
	}
	return hasPrefixFold(t, "error:") ||
		strings.HasPrefix(t, "Traceback (most recent call last):") ||
		strings.HasPrefix(t, "panic:")
}

// errorCell reports whether t is a 0.169 error cell ("■ stream disconnected
// before completion: …"). "■ Conversation interrupted" is not an error: the
// user pressed Esc. interrupted reports that case.
func errorCell(t string, indent int) (isErr, interrupted bool) {
	if indent != 0 || !strings.HasPrefix(t, square) {
		return false, false
	}
	rest, _ := screen.TrimLeft(t[len(square):])
	if strings.HasPrefix(rest, "Conversation interrupted") {
		return false, true
	}
	return rest != "", false
}

// isTip reports whether t is the dim "└ Tip: …" line Codex 0.169 may put
// under a reply: not part of the message, and not a tool's output.
func isTip(t string) bool {
	if !strings.HasPrefix(t, treeElbow) {
		return false
	}
	rest, _ := screen.TrimLeft(t[len(treeElbow):])
	return strings.HasPrefix(rest, "Tip:")
}

// toolHeader reports whether a "• …" cell is a tool cell rather than an
// assistant message. hasTree says whether the cell has a "└" output line;
// bold whether the capture shows the first word in bold (Codex's tool-cell
// style; a message's text is plain).
func toolHeader(text string, hasTree, bold bool) bool {
	verb, rest, _ := strings.Cut(text, " ")
	switch verb {
	case "Explored", "Exploring":
		return rest == "" || hasTree || bold
	case "Ran", "Running", "Called", "Calling", "Waited", "Waiting", "Searched",
		"Searching", "Read", "Reading", "Listed", "Viewed", "Killed":
		return hasTree || bold
	case "Edited", "Added", "Deleted", "Created", "Updated", "Moved", "Renamed":
		if strings.HasPrefix(rest, "Plan") {
			return true
		}
		return strings.HasSuffix(rest, ")") && strings.Contains(rest, "(+")
	}
	return false
}

// boldWord reports whether the raw (uncleaned) line shows word right after
// a bold escape ("\x1b[1m").
func boldWord(raw, word string) bool {
	const bold = "\x1b[1m"
	for {
		i := strings.Index(raw, bold)
		if i < 0 {
			return false
		}
		raw = raw[i+len(bold):]
		if word != "" && strings.HasPrefix(raw, word) {
			return true
		}
	}
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}

// containsWordFold reports whether word occurs in s, case-insensitively, not
// as part of a longer word.
func containsWordFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		if !strings.EqualFold(s[i:i+len(word)], word) {
			continue
		}
		if (i == 0 || !isWordByte(s[i-1])) && (i+len(word) == len(s) || !isWordByte(s[i+len(word)])) {
			return true
		}
	}
	return false
}

// titleSignal reads the pane title Codex sets: a braille spinner while a
// turn runs, "[ ! ] Action Required" while an approval or question waits,
// the cwd's basename otherwise (no signal).
func titleSignal(title string) string {
	t, _ := screen.TrimLeft(title)
	switch {
	case t == "":
		return TitleNone
	case strings.HasPrefix(t, "[ ! ]") || strings.Contains(t, "Action Required"):
		return TitleActionRequired
	}
	if screen.BrailleSpinner(t) {
		return TitleSpinner
	}
	return TitleOther
}

// isPlaceholder reports whether text is one of the composer's suggestion
// texts, shown dimmed in an empty composer: not a draft.
func isPlaceholder(text string) bool {
	switch text {
	case "Ask Codex to do anything",
		"Find and fix a bug in @filename",
		"Explain this codebase",
		"Summarize recent commits",
		"Implement {feature}",
		"Write tests for @filename",
		"Improve documentation in @filename",
		"Run /review on my current changes",
		"Use /skills to list available skills":
		return true
	}
	return false
}

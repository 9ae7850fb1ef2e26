package cline

import "strings"

// Synthetic screens, as Cline 3.0.65 draws them (80 columns).
var rule = strings.Repeat("─", 80)

const busyLine = " ⠙ Thinking... (esc to cancel)"

// footer is what Cline draws under its composer.
var footer = []string{
	" fake-model (10) $0.00                                       ○ Plan ● Act (Tab)",
	" work",
	" ⏵⏵ Auto-approve all enabled (Shift+Tab)",
}

// chrome is the bottom of the screen: the composer holding draft ("" is
// its placeholder) between two rules, the footer.
func chrome(draft string) []string {
	if draft == "" {
		draft = placeholder
	}
	return append([]string{rule, "❯ " + draft, rule, ""}, footer...)
}

// busy is the busy line, then the chrome.
func busy() []string { return append([]string{busyLine}, chrome("")...) }

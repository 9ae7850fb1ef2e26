package qwen

import (
	"strings"
	"unicode/utf8"
)

// recognize reports a pane of Qwen Code (the registry matches the pane's
// command by name): its title is Qwen Code's ("Qwen - <folder>", after a
// spinner while a turn runs, after "✳︎" while it waits for a
// confirmation). Its chrome alone is close to other CLIs', so the title
// decides.
func recognize(title, _ string) bool {
	if r, _ := utf8.DecodeRuneInString(title); TitleSpinning(title) || r == '✳' {
		_, size := utf8.DecodeRuneInString(title)
		title = strings.TrimLeft(strings.TrimPrefix(title[size:], "\ufe0e"), " ")
	}
	return strings.HasPrefix(title, "Qwen - ")
}

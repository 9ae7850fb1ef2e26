package qwen

import (
	"strings"
	"unicode/utf8"
)

// TitleSpinning reports a pane title that starts with the half-disc spinner
// Qwen Code puts before "Qwen - <folder>" while a turn runs ("◐︎ Qwen -
// work"; the glyph turns through ◐◓◑◒ and carries a text variation
// selector).
func TitleSpinning(title string) bool {
	r, _ := utf8.DecodeRuneInString(title)
	return strings.ContainsRune("◐◓◑◒", r)
}

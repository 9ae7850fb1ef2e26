package handoff

import (
	"encoding/base32"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"
)

// Receipt is one dispatch's own random word. The RESPONSE FILE INSTRUCTION
// carries it twice:
//
//   - in the heredoc's delimiter (HANDOFF_EOF_<receipt>), so no answer can
//     end the heredoc early or run the rest of itself as shell commands:
//     the delimiter is unguessable and new for every prompt;
//   - as the response file's first line (ReceiptLine, an HTML comment), so
//     an answer proves which prompt it answers: a file written for an
//     earlier prompt (a turn that outlived its dispatch's timeout, a
//     queued prompt answered late) carries another receipt, and the engine
//     archives it instead of returning it.
//
// The engine strips the receipt line before it returns the answer. A
// receipt is letters and digits, MinReceiptLen to MaxReceiptLen of them;
// NewReceipt makes one.
type Receipt string

// The bounds of a receipt's length. NewReceipt's are ReceiptLen long:
// 100 random bits, which no answer can contain by chance.
const (
	MinReceiptLen = 16
	MaxReceiptLen = 64
	ReceiptLen    = 20
)

// DelimiterPrefix starts every instruction's heredoc delimiter.
const DelimiterPrefix = "HANDOFF_EOF_"

// receiptEncoding is base32 without padding: capital letters and 2–7,
// nothing a shell or a Markdown renderer reads specially.
var receiptEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// NewReceipt reads ReceiptLen random base32 characters from rand (pass
// crypto/rand.Reader; a fixed reader makes a test deterministic).
func NewReceipt(rand io.Reader) (Receipt, error) {
	b := make([]byte, ReceiptLen*5/8)
	if _, err := io.ReadFull(rand, b); err != nil {
		return "", fmt.Errorf("make a dispatch receipt: %w", err)
	}
	return Receipt(receiptEncoding.EncodeToString(b)), nil
}

// ReceiptFor is the receipt of a dispatch of prompt to the response file
// at path: the one of the instruction block for that file the prompt ends
// with (a caller that appended it with WithInstruction; the prompt then
// holds the block once), else a new one from rand. An instruction quoted
// inside the prompt (an earlier answer that quotes its own) is not adopted:
// its receipt is an earlier dispatch's.
func ReceiptFor(prompt, path string, rand io.Reader) (Receipt, error) {
	t, ok := ParseInstruction(prompt)
	if ok && t.Path == path && strings.HasSuffix(strings.TrimSpace(prompt), strings.TrimSpace(Instruction(path, t.Receipt))) {
		return t.Receipt, nil
	}
	return NewReceipt(rand)
}

// Validate says why r cannot be a receipt, or nil.
func (r Receipt) Validate() error {
	if n := len(r); n < MinReceiptLen || n > MaxReceiptLen {
		return fmt.Errorf("%w: a receipt is %d to %d letters or digits, got %d", ErrInvalidConfig, MinReceiptLen, MaxReceiptLen, n)
	}
	for _, c := range r {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return fmt.Errorf("%w: a receipt is letters and digits only, got %q", ErrInvalidConfig, string(r))
		}
	}
	return nil
}

// Delimiter is the heredoc delimiter of the dispatch: HANDOFF_EOF_<r>.
func (r Receipt) Delimiter() string { return DelimiterPrefix + string(r) }

// ReceiptLine is the line the response file starts with: an HTML comment,
// so a Markdown answer reads the same with or without it.
func (r Receipt) ReceiptLine() string { return "<!-- handoff:" + string(r) + " -->" }

// receiptLine matches a receipt line, tolerating the spacing and line end
// an agent may change. Compiled on first use: most processes (a send
// --server client, status) never read a response file.
var receiptLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t]*<!--[ \t]*handoff:[ \t]*([A-Za-z0-9]+)[ \t]*-->[ \t]*\r?$`)
})

// SplitReceipt reads the receipt off a response file's content: when its
// first line that is not blank is a receipt line, r is that receipt and
// answer is the content without it (and without the blank lines before
// it); otherwise found is false and answer is content unchanged.
func SplitReceipt(content string) (answer string, r Receipt, found bool) {
	rest := content
	for {
		line, after, more := strings.Cut(rest, "\n")
		if strings.TrimSpace(line) != "" {
			m := receiptLine().FindStringSubmatch(line)
			if m == nil {
				return content, "", false
			}
			return after, Receipt(m[1]), true
		}
		if !more {
			return content, "", false
		}
		rest = after
	}
}

// Matches reports whether a receipt read off a file (SplitReceipt) is r.
// Case is ignored: a receipt is base32, and an agent may change case.
func (r Receipt) Matches(got Receipt) bool { return strings.EqualFold(string(r), string(got)) }

// ResponseCommand is the shell command that writes response to the file at
// path with receipt r: the command the RESPONSE FILE INSTRUCTION shows,
// with response in place of its placeholder line. It is what an agent that
// follows the instruction runs (the simulated agent and the fake model
// servers build theirs with it). response must not hold a line equal to
// r.Delimiter(); a random delimiter makes that a deliberate act.
func ResponseCommand(path string, r Receipt, response string) string {
	if !strings.HasSuffix(response, "\n") {
		response += "\n"
	}
	return "cat << '" + r.Delimiter() + "' > " + ShellQuote(path) + "\n" +
		r.ReceiptLine() + "\n" + response + r.Delimiter() + "\n"
}

// ResponsePlaceholder is the line of the instruction's command that the
// agent replaces with its response.
const ResponsePlaceholder = "<your complete final response>"

// heredocLine matches the first line of the instruction's command, with
// the delimiter and the single-quoted path (ShellQuote's shape). Compiled
// on first use, as receiptLine.
var heredocLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^cat << '` + DelimiterPrefix + `([A-Za-z0-9]+)' > ('(?:[^']|'\\'')*')[ \t]*$`)
})

// Ticket is what a RESPONSE FILE INSTRUCTION asks of an agent: the file to
// write and the receipt its answer carries.
type Ticket struct {
	Path    string
	Receipt Receipt
}

// ParseInstruction finds the last RESPONSE FILE INSTRUCTION in text (a
// prompt or a reminder) and returns what it asks for; ok is false when
// there is none, or it has no command with a receipt for its path (an
// instruction of a version before receipts).
func ParseInstruction(text string) (t Ticket, ok bool) {
	path, ok := InstructionPath(text)
	if !ok {
		return Ticket{}, false
	}
	block := text[strings.LastIndex(text, InstructionHeader):]
	m := heredocLine().FindStringSubmatch(block)
	if m == nil || m[2] != ShellQuote(path) || Receipt(m[1]).Validate() != nil {
		return Ticket{}, false
	}
	return Ticket{Path: path, Receipt: Receipt(m[1])}, true
}

// Command is the shell command that writes response as t asks
// (ResponseCommand).
func (t Ticket) Command(response string) string { return ResponseCommand(t.Path, t.Receipt, response) }

package simagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// ErrNoInstruction: the prompt carries no RESPONSE FILE INSTRUCTION heredoc.
var ErrNoInstruction = errors.New("no response file instruction in the prompt")

// Heredoc finds what a prompt's RESPONSE FILE INSTRUCTION asks for: the
// response file and the dispatch's receipt (its command's delimiter and
// first line). Only a command whose path is one single-quoted shell word
// (handoff.ShellQuote's shape) and whose delimiter is a receipt's is taken,
// so running it through a shell cannot do anything but write that file.
func Heredoc(prompt string) (handoff.Ticket, error) {
	if !strings.Contains(prompt, handoff.InstructionHeader) {
		return handoff.Ticket{}, ErrNoInstruction
	}
	t, ok := handoff.ParseInstruction(prompt)
	if !ok {
		return handoff.Ticket{}, fmt.Errorf("%w: the %s has no cat << '%s…' > '<path>' command for its file", ErrNoInstruction, handoff.InstructionHeader, handoff.DelimiterPrefix)
	}
	return t, nil
}

// CommandLine is the first line of the command t asks for, as a
// transcript shows it ("cat << 'HANDOFF_EOF_…' > '/path'").
func CommandLine(t handoff.Ticket) string {
	line, _, _ := strings.Cut(t.Command(""), "\n")
	return line
}

// UserText is the prompt without its RESPONSE FILE INSTRUCTION block: what
// the user asked.
func UserText(prompt string) string {
	if i := strings.LastIndex(prompt, handoff.InstructionHeader); i >= 0 {
		return strings.TrimRight(prompt[:i], "\n")
	}
	return prompt
}

// WriteResponse writes reply to the response file the way an agent does: it
// runs the instruction's command through /bin/sh with reply in place of the
// placeholder (after the receipt line). A reply with a line that is exactly
// the delimiter would end the heredoc early; it is refused. (A reply may
// hold any other line, the fixed AGENT_EOF of earlier versions included: it
// is data inside the heredoc.)
func WriteResponse(ctx context.Context, t handoff.Ticket, reply string) error {
	for l := range strings.SplitSeq(reply, "\n") {
		if l == t.Receipt.Delimiter() {
			return errors.New("the reply has a line that is the heredoc's delimiter, which would cut it short")
		}
	}
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", t.Command(reply))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v %s", CommandLine(t), err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

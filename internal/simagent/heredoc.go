package simagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// heredocLine is the command the RESPONSE FILE INSTRUCTION asks for, with
// its path as one single-quoted shell word (handoff.ShellQuote's shape), so
// running it through a shell cannot do anything but write that file.
var heredocLine = regexp.MustCompile(`(?m)^cat << 'AGENT_EOF' > ('(?:[^']|'\\'')*')[ \t]*$`)

// ErrNoInstruction: the prompt carries no RESPONSE FILE INSTRUCTION heredoc.
var ErrNoInstruction = errors.New("no response file instruction in the prompt")

// Heredoc finds the response-file command in a prompt's RESPONSE FILE
// INSTRUCTION and returns its first line ("cat << 'AGENT_EOF' > '/path'").
func Heredoc(prompt string) (string, error) {
	i := strings.LastIndex(prompt, handoff.InstructionHeader)
	if i < 0 {
		return "", ErrNoInstruction
	}
	m := heredocLine.FindString(prompt[i:])
	if m == "" {
		return "", fmt.Errorf("%w: the %s has no cat << 'AGENT_EOF' > '<path>' line", ErrNoInstruction, handoff.InstructionHeader)
	}
	return strings.TrimRight(m, " \t"), nil
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
// runs the instruction's heredoc through /bin/sh with reply between the
// AGENT_EOF lines. A reply with a line that is exactly AGENT_EOF would end
// the heredoc early; it is refused.
func WriteResponse(ctx context.Context, heredoc, reply string) error {
	for l := range strings.SplitSeq(reply, "\n") {
		if l == "AGENT_EOF" {
			return errors.New("the reply has an AGENT_EOF line, which would cut the heredoc short")
		}
	}
	script := heredoc + "\n" + reply
	if !strings.HasSuffix(script, "\n") {
		script += "\n"
	}
	script += "AGENT_EOF\n"
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %v %s", heredoc, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

package handoff

// Response files: which file each role's agent writes its answer to, and
// the instruction that tells it so. Reading, consuming and archiving them is
// package responsefile's job; this is the vocabulary only.

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// RoleFiles maps agent roles to their response file names, under
// ResponseDir. The spec's five roles are DefaultRoleFiles; an orchestrator
// with roles of its own passes its mapping (or DefaultRoleFiles().With(…))
// and each of its roles gets a file under the same rules.
type RoleFiles map[string]string

// DefaultRoleFiles returns the spec's mapping (a fresh copy each call, so no
// caller can change it for everyone).
func DefaultRoleFiles() RoleFiles {
	return RoleFiles{
		"analyst":           "analyst_summary.md",
		"analyst_review":    "analyst_review.md",
		"programmer":        "programmer_summary.md",
		"programmer_review": "programmer_review.md",
		"tester":            "test_result.md",
	}
}

// Roles lists the spec's roles, sorted.
func Roles() []string { return DefaultRoleFiles().Names() }

// Names lists the mapped roles, sorted.
func (m RoleFiles) Names() []string {
	roles := make([]string, 0, len(m))
	for r := range m {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return roles
}

// With returns a copy of m that also maps role, to "<role>.md" unless m
// already maps it. The name must be a plain word (letters, digits, '_' and
// '-', at most 64 bytes): it names a file the agent is told to write.
func (m RoleFiles) With(role string) (RoleFiles, error) {
	if !validRole(role) {
		return nil, fmt.Errorf("%w %q: a role name is letters, digits, _ and - (at most 64)", ErrUnknownRole, role)
	}
	out := make(RoleFiles, len(m)+1)
	for r, f := range m {
		out[r] = f
	}
	if _, ok := out[role]; !ok {
		file := role + ".md"
		if err := out.clash(role, file); err != nil {
			return nil, err
		}
		out[role] = file
	}
	return out, nil
}

// File returns role's response file name. A role m does not map is an error
// wrapping ErrUnknownRole that lists the known ones; so is a mapping to
// anything but a plain file name, or to one that differs from another
// role's only in case.
func (m RoleFiles) File(role string) (string, error) {
	name, ok := m[role]
	if !ok {
		return "", fmt.Errorf("%w %q: known roles are %s", ErrUnknownRole, role, strings.Join(m.Names(), ", "))
	}
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\\\x00") {
		return "", fmt.Errorf("%w %q: its response file %q is not a plain file name", ErrUnknownRole, role, name)
	}
	if err := m.clash(role, name); err != nil {
		return "", err
	}
	return name, nil
}

// Path returns the absolute path of role's response file under workdir.
func (m RoleFiles) Path(workdir, role string) (string, error) {
	name, err := m.File(role)
	if err != nil {
		return "", err
	}
	abs, err := filepath.Abs(ResponseDir(workdir))
	if err != nil {
		return "", fmt.Errorf("response dir for %q: %w", workdir, err)
	}
	return filepath.Join(abs, name), nil
}

func validRole(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// ResponseDir is the folder, under workdir, where agents write their
// response files: <workdir>/.tmp/agent-responses.
func ResponseDir(workdir string) string {
	return filepath.Join(workdir, ".tmp", "agent-responses")
}

// ResponsePath returns the absolute path of one of the spec's roles'
// response file under workdir (DefaultRoleFiles().Path). An unknown role is
// an error wrapping ErrUnknownRole that lists the known ones.
func ResponsePath(workdir, role string) (string, error) {
	return DefaultRoleFiles().Path(workdir, role)
}

// Blank reports whether a response holds nothing but white space; such a
// file is archived and treated as absent.
func Blank(content string) bool { return strings.TrimSpace(content) == "" }

// InstructionHeader opens the block that tells the agent where to write its
// answer.
const InstructionHeader = "RESPONSE FILE INSTRUCTION"

// Instruction returns the RESPONSE FILE INSTRUCTION block for the response
// file at path (absolute) and the dispatch's receipt r: write the complete
// final response there with a heredoc whose delimiter is the receipt's
// (never a fixed word an answer could contain), keeping the receipt line
// first. The path is shell-quoted so spaces, quotes and $ survive.
func Instruction(path string, r Receipt) string {
	return "\n\n" + InstructionHeader + "\n" +
		"When your work is complete, write your complete final response to this file:\n" +
		path + "\n" +
		"Use exactly this shell command. Keep its first two lines and its last line as they are\n" +
		"(the second line tells the orchestrator which request your answer is for), and put your\n" +
		"whole response in place of the line " + ResponsePlaceholder + ":\n\n" +
		ResponseCommand(path, r, ResponsePlaceholder) + "\n" +
		"Write the file once, as your last action; the orchestrator reads it as soon as you are idle.\n"
}

// InstructionPath finds the response file path in text that carries a
// RESPONSE FILE INSTRUCTION block (the last one): the line after "to this
// file:". It is how a hook that sees only the agent's input (Codex's notify
// program) learns which response file the turn was for.
func InstructionPath(text string) (string, bool) {
	i := strings.LastIndex(text, InstructionHeader)
	if i < 0 {
		return "", false
	}
	_, after, ok := strings.Cut(text[i:], "to this file:\n")
	if !ok {
		return "", false
	}
	path, _, _ := strings.Cut(after, "\n")
	path = strings.TrimSpace(path)
	if !filepath.IsAbs(path) {
		return "", false
	}
	return path, true
}

// WithInstruction appends the instruction block for path and r to prompt,
// unless the prompt already carries it: a prompt holds the block exactly
// once.
func WithInstruction(prompt, path string, r Receipt) string {
	block := Instruction(path, r)
	if strings.Contains(prompt, strings.TrimSpace(block)) {
		return prompt
	}
	return strings.TrimRight(prompt, "\n") + block
}

// Reminder is what the agent is sent when the grace ran out without its
// response file and a reminder is left (Config.Reminders): short, naming
// the file and the command again (same receipt) under the same header, so
// whatever finds the instruction in a prompt finds it here too.
func Reminder(path string, r Receipt) string {
	return "Reminder: you have not written your response file yet.\n\n" + InstructionHeader + "\n" +
		"Write your complete final response now, to this file:\n" + path + "\n\n" +
		ResponseCommand(path, r, ResponsePlaceholder)
}

// ShellQuote quotes s for a POSIX shell: single quotes, with each single
// quote written as '\”.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package handoff

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// responseFiles maps each agent role to its response file name. A function
// returns it so no caller can change the mapping for everyone.
func responseFiles() map[string]string {
	return map[string]string{
		"analyst":           "analyst_summary.md",
		"analyst_review":    "analyst_review.md",
		"programmer":        "programmer_summary.md",
		"programmer_review": "programmer_review.md",
		"tester":            "test_result.md",
	}
}

// Roles lists the known agent roles, sorted.
func Roles() []string {
	m := responseFiles()
	roles := make([]string, 0, len(m))
	for r := range m {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return roles
}

// ResponseDir is the folder, under workdir, where agents write their
// response files: <workdir>/.tmp/agent-responses.
func ResponseDir(workdir string) string {
	return filepath.Join(workdir, ".tmp", "agent-responses")
}

// ResponsePath returns the absolute path of role's response file under
// workdir. An unknown role is an error wrapping ErrUnknownRole that lists the
// known ones.
func ResponsePath(workdir, role string) (string, error) {
	name, ok := responseFiles()[role]
	if !ok {
		return "", fmt.Errorf("%w %q: known roles are %s", ErrUnknownRole, role, strings.Join(Roles(), ", "))
	}
	abs, err := filepath.Abs(ResponseDir(workdir))
	if err != nil {
		return "", fmt.Errorf("response dir for %q: %w", workdir, err)
	}
	return filepath.Join(abs, name), nil
}

// EnsureResponseDir creates the response folder under workdir, parents
// included, if it is missing.
func EnsureResponseDir(workdir string) error {
	if err := os.MkdirAll(ResponseDir(workdir), 0o755); err != nil {
		return fmt.Errorf("create response dir: %w", err)
	}
	return nil
}

// ReadResponse reads the response file at path. present is false, with no
// error, when there is no file. A symlink, a non-regular file, a file larger
// than max bytes or an unreadable one is an error wrapping ErrResponseFile;
// the file is left untouched so nothing the agent wrote is lost.
func ReadResponse(path string, max int64) (content string, present bool, err error) {
	// Open without following a link and without blocking on a FIFO, then
	// check the opened file itself, so nothing can be swapped in between.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", false, nil
	case errors.Is(err, syscall.ELOOP):
		return "", true, fmt.Errorf("%w %s: it is a symlink; refusing to follow it (remove it or replace it with a regular file)", ErrResponseFile, path)
	case err != nil:
		return "", true, fmt.Errorf("%w %s: %v", ErrResponseFile, path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", true, fmt.Errorf("%w %s: %v", ErrResponseFile, path, err)
	}
	if err := checkRegular(path, fi); err != nil {
		return "", true, err
	}
	if fi.Size() > max {
		return "", true, fmt.Errorf("%w %s: %d bytes is over the %d-byte limit; it was left in place", ErrResponseFile, path, fi.Size(), max)
	}
	// Read one byte past the limit: the file may have grown since Lstat.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return "", true, fmt.Errorf("%w %s: %v", ErrResponseFile, path, err)
	}
	if int64(len(b)) > max {
		return "", true, fmt.Errorf("%w %s: over the %d-byte limit; it was left in place", ErrResponseFile, path, max)
	}
	return string(b), true, nil
}

func checkRegular(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w %s: it is a symlink; refusing to follow it (remove it or replace it with a regular file)", ErrResponseFile, path)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%w %s: not a regular file (%v)", ErrResponseFile, path, fi.Mode().Type())
	}
	return nil
}

// Blank reports whether a response holds nothing but white space; such a
// file is archived and treated as absent.
func Blank(content string) bool { return strings.TrimSpace(content) == "" }

// Archive keeps every response file the orchestrator takes away, under a
// per-run folder <workdir>/.tmp/<run-stamp>/, numbered in order:
// NNN-<role>.md for consumed responses, NNN-<role>.<kind>.md for stale or
// empty ones. Nothing an agent wrote is deleted. It is safe for concurrent use.
type Archive struct {
	dir  string
	mu   sync.Mutex
	next int
}

// NewArchive returns the archive for a run started at now. The folder is
// created on first use.
func NewArchive(workdir string, now time.Time) *Archive {
	stamp := now.UTC().Format("20060102T150405.000Z")
	return &Archive{dir: filepath.Join(workdir, ".tmp", "run-"+stamp)}
}

// Dir is the run's archive folder.
func (a *Archive) Dir() string { return a.dir }

// Archive kinds, the middle part of an archived file's name.
const (
	ArchiveConsumed = ""      // a response that was read and returned
	ArchiveStale    = "stale" // left over from an earlier dispatch
	ArchiveEmpty    = "empty" // empty or white space only, treated as absent
)

// Store moves the file at path into the archive as the next numbered entry
// for role, and returns where it now is. kind is one of the Archive* kinds.
func (a *Archive) Store(path, role, kind string) (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return "", fmt.Errorf("create archive dir: %w", err)
	}
	for {
		a.next++
		name := fmt.Sprintf("%03d-%s.md", a.next, role)
		if kind != "" {
			name = fmt.Sprintf("%03d-%s.%s.md", a.next, role, kind)
		}
		dst := filepath.Join(a.dir, name)
		// Another run in the same millisecond could own this number: never
		// overwrite an archived file.
		if _, err := os.Lstat(dst); err == nil {
			continue
		}
		if err := os.Rename(path, dst); err != nil {
			return "", fmt.Errorf("archive %s: %w (the file was left in place)", path, err)
		}
		return dst, nil
	}
}

// ClearStale archives a response file left from an earlier dispatch of role
// so the next wait cannot mistake it for the new answer. No file is not an
// error; archived is "" then.
func ClearStale(path, role string, a *Archive) (archived string, err error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%w %s: %v", ErrResponseFile, path, err)
	}
	if fi.IsDir() {
		return "", fmt.Errorf("%w %s: a directory is in the response file's place", ErrResponseFile, path)
	}
	// A stale symlink is moved aside too (rename moves the link, not its
	// target), so the new answer can be written as a regular file.
	return a.Store(path, role, ArchiveStale)
}

// InstructionHeader opens the block that tells the agent where to write its
// answer.
const InstructionHeader = "RESPONSE FILE INSTRUCTION"

// Instruction returns the RESPONSE FILE INSTRUCTION block for the response
// file at path (absolute): write the complete final response there with a
// heredoc. The path is shell-quoted so spaces, quotes and $ survive.
func Instruction(path string) string {
	q := ShellQuote(path)
	return "\n\n" + InstructionHeader + "\n" +
		"When your work is complete, write your complete final response to this file:\n" +
		path + "\n" +
		"Use exactly this shell command, with your whole response between the two AGENT_EOF lines:\n\n" +
		"cat << 'AGENT_EOF' > " + q + "\n" +
		"<your complete final response>\n" +
		"AGENT_EOF\n\n" +
		"Write the file once, as your last action; the orchestrator reads it as soon as you are idle.\n"
}

// WithInstruction appends the instruction block for path to prompt, unless
// the prompt already carries it: a prompt holds the block exactly once.
func WithInstruction(prompt, path string) string {
	block := Instruction(path)
	if strings.Contains(prompt, strings.TrimSpace(block)) {
		return prompt
	}
	return strings.TrimRight(prompt, "\n") + block
}

// ShellQuote quotes s for a POSIX shell: single quotes, with each single
// quote written as '\”.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

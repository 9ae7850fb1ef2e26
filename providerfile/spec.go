// Package providerfile builds a screen classifier from a declarative file
// (TOML or YAML) that describes an agent CLI handoff-fsm does not ship: the
// signs of work at the bottom of the screen and in the pane title, the ready
// prompt, error lines, dialogs that wait for the user, where the last turn
// starts, and how the last assistant message looks. Rules are Go regular
// expressions (RE2: linear time, no catastrophic backtracking) matched
// against each line with escapes stripped and blanks trimmed.
//
// The classifier reads the capture from its end up, like the built-in
// providers: the bottom region first, then the last turn down to the user
// prompt that starts it, so the cost follows the last turn, not the
// scrollback.
package providerfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"
	"go.yaml.in/yaml/v3"
)

// ErrInvalid is wrapped by every error about a provider file's content.
var ErrInvalid = errors.New("invalid provider file")

// File is a provider file as written: see docs/providers.md, "Describing a
// CLI in a file".
type File struct {
	// Name, CLI and Version say what is described (Name is required).
	Name    string `toml:"name" yaml:"name"`
	CLI     string `toml:"cli" yaml:"cli"`
	Version string `toml:"version" yaml:"version"`
	// BottomLines is how many non-blank lines from the end make up the
	// bottom region, where the prompt, work signs and dialogs are looked
	// for (default 8).
	BottomLines int `toml:"bottom_lines" yaml:"bottom_lines"`

	Work    Work    `toml:"work" yaml:"work"`
	Ready   Ready   `toml:"ready" yaml:"ready"`
	Error   Lines   `toml:"error" yaml:"error"`
	Dialog  Dialog  `toml:"dialog" yaml:"dialog"`
	Turn    Turn    `toml:"turn" yaml:"turn"`
	Message Message `toml:"message" yaml:"message"`
	// Composer says what the CLI's message box does with a prompt, so
	// delivery stays inert (optional: see DefaultLeaders).
	Composer Composer `toml:"composer" yaml:"composer"`
}

// Composer is the CLI's message box: Leaders are the characters that open
// another mode when a message starts with one (a prompt starting with one
// is sent after the line "Message:"), Modes the lines of the bottom region
// that mean the composer is in another mode after a paste (then Clear's
// tmux keys are pressed and nothing is submitted).
type Composer struct {
	Leaders *string  `toml:"leaders" yaml:"leaders"`
	Modes   []string `toml:"modes" yaml:"modes"`
	Clear   []string `toml:"clear" yaml:"clear"`
}

// DefaultLeaders are the mode characters assumed when a file gives none:
// '!' (a shell in most agent CLIs) and '/' (a command). leaders = "" turns
// the lead line off.
const DefaultLeaders = "!/"

// Work lists the signs that a turn runs: lines of the bottom region, or
// the pane title.
type Work struct {
	Bottom []string `toml:"bottom" yaml:"bottom"`
	Title  string   `toml:"title" yaml:"title"`
}

// Ready is the prompt that waits for input, looked for in the bottom region.
type Ready struct {
	Prompt string `toml:"prompt" yaml:"prompt"`
}

// Lines is a list of line patterns.
type Lines struct {
	Lines []string `toml:"lines" yaml:"lines"`
}

// Dialog lists the signs of a question that waits for the user: lines of
// the bottom region, or the pane title.
type Dialog struct {
	Lines []string `toml:"lines" yaml:"lines"`
	Title string   `toml:"title" yaml:"title"`
}

// Turn says where the last turn starts: the line of the user's prompt.
type Turn struct {
	UserPrompt string `toml:"user_prompt" yaml:"user_prompt"`
}

// Message says how a reply looks in the last turn: Start begins a reply
// (any match counts as the agent having replied), Skip marks starts that
// are not the answer (tool cells), End lines close a message. The text of
// the first line is what follows Start's match; later lines lose up to that
// many leading blanks.
type Message struct {
	Start string   `toml:"start" yaml:"start"`
	Skip  []string `toml:"skip" yaml:"skip"`
	End   []string `toml:"end" yaml:"end"`
}

// DefaultBottomLines is the bottom region's height when the file gives none.
const DefaultBottomLines = 8

// Load reads and validates the provider file at path: TOML for .toml, YAML
// for .yaml or .yml.
func Load(path string) (*Classifier, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var format string
	switch strings.ToLower(filepath.Ext(path)) {
	case ".toml":
		format = "toml"
	case ".yaml", ".yml":
		format = "yaml"
	default:
		return nil, fmt.Errorf("%w %s: the name must end in .toml, .yaml or .yml", ErrInvalid, path)
	}
	c, err := Parse(data, format)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// Parse decodes a provider file in format ("toml" or "yaml"), strictly (an
// unknown key is an error naming it), and validates it.
func Parse(data []byte, format string) (*Classifier, error) {
	var f File
	switch format {
	case "toml":
		md, err := toml.Decode(string(data), &f)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			return nil, fmt.Errorf("%w: unknown key %s", ErrInvalid, und[0])
		}
	case "yaml":
		dec := yaml.NewDecoder(bytes.NewReader(data))
		dec.KnownFields(true)
		if err := dec.Decode(&f); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrInvalid, err)
		}
	default:
		return nil, fmt.Errorf("%w: unknown format %q (toml or yaml)", ErrInvalid, format)
	}
	return New(f)
}

// New validates f and compiles its rules. Every error names the field.
func New(f File) (*Classifier, error) {
	var errs []error
	bad := func(field, msg string) { errs = append(errs, fmt.Errorf("%s: %s", field, msg)) }
	one := func(field, expr string, required bool) *regexp.Regexp {
		if expr == "" {
			if required {
				bad(field, "required")
			}
			return nil
		}
		re, err := regexp.Compile(expr)
		if err != nil {
			bad(field, "invalid regexp: "+err.Error())
			return nil
		}
		if re.MatchString("") {
			bad(field, fmt.Sprintf("%q matches an empty line: it would match everywhere", expr))
			return nil
		}
		return re
	}
	list := func(field string, exprs []string) []*regexp.Regexp {
		var out []*regexp.Regexp
		for i, e := range exprs {
			name := fmt.Sprintf("%s[%d]", field, i)
			if e == "" {
				bad(name, "empty pattern")
				continue
			}
			if re := one(name, e, true); re != nil {
				out = append(out, re)
			}
		}
		return out
	}
	if strings.TrimSpace(f.Name) == "" {
		bad("name", "required")
	}
	if f.BottomLines < 0 || f.BottomLines > 200 {
		bad("bottom_lines", fmt.Sprintf("%d is out of range 1..200", f.BottomLines))
	}
	c := &Classifier{
		file:       f,
		bottom:     f.BottomLines,
		work:       list("work.bottom", f.Work.Bottom),
		workTitle:  one("work.title", f.Work.Title, false),
		ready:      one("ready.prompt", f.Ready.Prompt, true),
		errs:       list("error.lines", f.Error.Lines),
		dialog:     list("dialog.lines", f.Dialog.Lines),
		dialogTitl: one("dialog.title", f.Dialog.Title, false),
		user:       one("turn.user_prompt", f.Turn.UserPrompt, true),
		msgStart:   one("message.start", f.Message.Start, true),
		msgSkip:    list("message.skip", f.Message.Skip),
		msgEnd:     list("message.end", f.Message.End),
		modes:      list("composer.modes", f.Composer.Modes),
	}
	c.leaders = DefaultLeaders
	if f.Composer.Leaders != nil {
		c.leaders = *f.Composer.Leaders
	}
	if len(f.Composer.Modes) > 0 && len(f.Composer.Clear) == 0 {
		bad("composer.clear", "required with composer.modes: the keys that empty the composer and leave the mode")
	}
	if len(f.Work.Bottom) == 0 && f.Work.Title == "" {
		bad("work", "needs bottom or title: a provider with no sign of work would never be processing")
	}
	if c.bottom == 0 {
		c.bottom = DefaultBottomLines
	}
	if len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, errors.Join(errs...))
	}
	return c, nil
}

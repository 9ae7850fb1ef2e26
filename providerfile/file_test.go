package providerfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodTOML = `name = "mycli"
[work]
bottom = ['esc to interrupt']
[ready]
prompt = '^> '
[turn]
user_prompt = '^> '
[message]
start = '^● '
`

// Each kind of bad file is refused with an error that names the field.
func TestBadFilesNameTheField(t *testing.T) {
	cases := []struct {
		name, format, file, want string
	}{
		{"bad regexp", "toml", strings.Replace(goodTOML, "bottom = ['esc to interrupt']", "bottom = ['a', 'b', '(unclosed']", 1), "work.bottom[2]: invalid regexp"},
		{"missing prompt", "toml", strings.Replace(goodTOML, "prompt = '^> '", "", 1), "ready.prompt: required"},
		{"missing name", "toml", strings.Replace(goodTOML, `name = "mycli"`, "", 1), "name: required"},
		{"matches everything", "toml", strings.Replace(goodTOML, "'^● '", "'.*'", 1), "message.start"},
		{"no sign of work", "toml", strings.Replace(goodTOML, "bottom = ['esc to interrupt']", "", 1), "work: needs bottom or title"},
		{"empty pattern", "toml", goodTOML + "[error]\nlines = ['']\n", "error.lines[0]: empty pattern"},
		{"bottom_lines", "toml", "bottom_lines = -1\n" + goodTOML, "bottom_lines"},
		{"unknown key", "toml", goodTOML + "[dialog]\nline = ['x']\n", "unknown key dialog.line"},
		{"wrong type", "toml", "bottom_lines = 'ten'\n" + goodTOML, "bottom_lines"},
		{"toml syntax", "toml", "name = \n", "line 1"},
		{"yaml unknown key", "yaml", "name: x\nready:\n  promt: '^> '\n", "line 3: field promt not found"},
		{"yaml missing", "yaml", "name: x\nwork: {title: '^x'}\nturn: {user_prompt: '^> '}\nmessage: {start: '^● '}\n", "ready.prompt: required"},
		{"format", "json", "{}", "unknown format"},
		{"composer modes without clear", "toml", goodTOML + "[composer]\nmodes = ['^! ']\n", "composer.clear: required"},
		{"composer bad mode", "toml", goodTOML + "[composer]\nmodes = ['(']\nclear = ['Escape']\n", "composer.modes[0]: invalid regexp"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.file), tc.format)
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an ErrInvalid naming %q", err, tc.want)
			}
		})
	}
	if _, err := Parse([]byte(goodTOML), "toml"); err != nil {
		t.Fatalf("the good file: %v", err)
	}
}

func TestLoadPicksTheFormatByExtension(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mycli.txt")
	if err := os.WriteFile(p, []byte(goodTOML), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p); err == nil || !strings.Contains(err.Error(), ".toml, .yaml or .yml") {
		t.Fatalf("unknown extension: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.toml")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	if c := load(t, "testdata/simagent.yaml"); c.File().Name != "simagent" || c.File().BottomLines != 10 {
		t.Fatalf("yaml: %+v", c.File())
	}
}

// A described CLI gets the shared composer rules: '!' and '/' first are led
// by the "Message:" line unless the file says otherwise, and its mode lines
// are read after a paste.
func TestAFilesComposerKeepsAPromptAMessage(t *testing.T) {
	plain := parsed(t, goodTOML)
	shell := parsed(t, goodTOML+"[composer]\nleaders = '%'\nmodes = ['^SHELL MODE']\nclear = ['Escape']\n")
	for _, tc := range []struct {
		leaders    string
		c          *Classifier
		text, want string
	}{
		{"the default", plain, "!rm -rf x", "Message:\n!rm -rf x"},
		{"%", shell, "!not a leader here", "!not a leader here"},
		{"%", shell, " %x", "Message:\n %x"},
	} {
		if got := tc.c.Inert(tc.text); got != tc.want {
			t.Errorf("leaders %s: Inert(%q) = %q, want %q", tc.leaders, tc.text, got, tc.want)
		}
	}
	if got := plain.Mode("> !rm -rf x\n"); got != "" {
		t.Errorf("no modes described: Mode = %q", got)
	}
	if got := shell.Mode("> !x\nSHELL MODE on\n"); !strings.Contains(got, "SHELL MODE on") {
		t.Errorf("Mode = %q, want the mode line", got)
	}
	if k := shell.ClearKeys(""); len(k) != 1 || k[0] != "Escape" {
		t.Errorf("ClearKeys = %v", k)
	}
}

// parsed is the classifier of a TOML provider file.
func parsed(t *testing.T, file string) *Classifier {
	t.Helper()
	c, err := Parse([]byte(file), "toml")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

package handoff_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// mdLink is a Markdown link or image: [text](target) or ![alt](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The README and every page of docs/ link only to files that exist and to
// headings those files have: a page moved or a heading renamed fails here,
// not in a reader's browser.
func TestDocsLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{"README.md"}, pages...)
	checked := 0
	for _, page := range pages {
		for _, l := range linksOf(t, page) {
			target := l.target
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := page
			if path != "" {
				file = filepath.Join(filepath.Dir(page), filepath.FromSlash(path))
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: link %q: %v", page, l.line, target, err)
					continue
				}
			}
			checked++
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s:%d: link %q: an anchor into a file that is not Markdown", page, l.line, target)
				continue
			}
			if !headingAnchors(t, file)[anchor] {
				t.Errorf("%s:%d: link %q: %s has no heading #%s", page, l.line, target, file, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found in the README and docs/: the link pattern is broken")
	}
}

// A heading's anchor is GitHub's: lower case, punctuation but hyphens and
// underscores dropped, spaces as hyphens; a repeated one gets -1, -2, ….
func TestHeadingAnchors(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "p.md")
	text := "# One engine per host: `handoff-fsm serve`\n```sh\n# not a heading\n```\n## The wait's settings\n## Tracing\n## Tracing\n"
	if err := os.WriteFile(page, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := headingAnchors(t, page)
	for _, want := range []string{"one-engine-per-host-handoff-fsm-serve", "the-waits-settings", "tracing", "tracing-1"} {
		if !got[want] {
			t.Errorf("no anchor %q in %v", want, got)
		}
	}
	if got["not-a-heading"] {
		t.Errorf("a comment in a code block became a heading: %v", got)
	}
}

type link struct {
	target string
	line   int
}

// linksOf returns the links of a Markdown page outside its code blocks and
// code spans.
func linksOf(t *testing.T, page string) []link {
	t.Helper()
	var links []link
	for i, line := range proseLines(t, page) {
		if line == "" {
			continue
		}
		line = stripCodeSpans(line)
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			links = append(links, link{target: m[1], line: i + 1})
		}
	}
	return links
}

// headingAnchors returns the anchors of a Markdown page's headings.
func headingAnchors(t *testing.T, page string) map[string]bool {
	t.Helper()
	anchors := map[string]bool{}
	for _, line := range proseLines(t, page) {
		hashes := len(line) - len(strings.TrimLeft(line, "#"))
		if hashes == 0 || hashes > 6 || !strings.HasPrefix(line[hashes:], " ") {
			continue
		}
		base := slug(line[hashes+1:])
		a := base
		for n := 1; anchors[a]; n++ {
			a = base + "-" + strconv.Itoa(n)
		}
		anchors[a] = true
	}
	return anchors
}

// proseLines returns a page's lines, each line of a fenced code block
// replaced by an empty one (so line numbers stay right).
func proseLines(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	fenced := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			lines[i] = ""
			continue
		}
		if fenced {
			lines[i] = ""
		}
	}
	return lines
}

// stripCodeSpans removes `code spans` from a line: a link inside one is
// text, not a link.
func stripCodeSpans(line string) string {
	parts := strings.Split(line, "`")
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 0 {
			b.WriteString(p)
		}
	}
	return b.String()
}

func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r > 127 && isLetter(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isLetter(r rune) bool { return strings.ToUpper(string(r)) != strings.ToLower(string(r)) }

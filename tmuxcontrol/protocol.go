// Package tmuxcontrol speaks tmux's control-mode protocol (tmux -C): one
// persistent client per tmux server (attached to the session whose panes it
// watches) carries commands and captures on a pipe instead of a process per
// call, and delivers %output notifications, so a
// driver learns that a pane changed within milliseconds rather than at its
// next poll.
//
// The package has two layers. The protocol layer (Parser, Quote, the
// Message types, DecodeOutput) is pure: it turns control-mode lines into
// messages and arguments into command lines, with no I/O. The Client runs
// `tmux -C attach-session` and uses that layer.
//
// Control mode is an optimisation, never a requirement: when Start fails or
// the client dies, the errors wrap ErrUnavailable, and a caller goes on with
// one tmux process per call (see Runner, which does exactly that).
package tmuxcontrol

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Message is one complete unit of control-mode output: a *Reply, an
// *Output, an *Exit, or a *Notification (every other line, including
// notifications this package does not know). The set is closed.
type Message interface {
	message()
}

// Guard is the argument triple of a %begin, %end or %error line. The
// %begin and the %end or %error that closes its block carry the same one.
type Guard struct {
	// Time is the server's clock, in seconds since the epoch, when the
	// command was started.
	Time int64
	// Number is the server-wide command number: unique, increasing, and
	// shared by all clients, so not contiguous on one client's stream.
	Number uint64
	// Flags is 1 for a command this client sent and 0 for one the server
	// ran on its behalf (the attach command given on the command line,
	// hooks).
	Flags int
}

// String formats g as tmux writes it after the guard word.
func (g Guard) String() string {
	return strconv.FormatInt(g.Time, 10) + " " + strconv.FormatUint(g.Number, 10) + " " + strconv.Itoa(g.Flags)
}

// Reply is the output block of one command: the lines between %begin and
// %end (success) or %error (failure). Lines are raw: tmux does not escape
// command output, so a body line may look like anything, even a
// notification; only the guard that matches the %begin ends a block.
type Reply struct {
	Guard Guard
	// Failed is true when the block ended with %error; Lines then hold
	// tmux's error message.
	Failed bool
	// Lines are the output lines without their line breaks.
	Lines []string
}

// Text returns the reply as a tmux process would have printed it: each line
// followed by a line break, or "" for a reply with no lines.
func (r *Reply) Text() string {
	if len(r.Lines) == 0 {
		return ""
	}
	return strings.Join(r.Lines, "\n") + "\n"
}

// Output is a %output or %extended-output notification: a pane produced
// output. Data is what the program in the pane wrote, decoded, as tmux
// received it (escape sequences included, not necessarily UTF-8).
type Output struct {
	Pane string // the pane id, "%N"
	Data []byte
	// Extended is true for %extended-output (client flag pause-after).
	Extended bool
	// AgeMillis is how long tmux held the output before sending it; only
	// %extended-output carries it (0 otherwise).
	AgeMillis int64
}

// Exit is the %exit line the tmux client writes as it ends. Reason is why
// ("server exited", "detached", …), or "" when tmux gave none.
type Exit struct {
	Reason string
}

// Notification is any other line outside a block: a known notification
// such as %window-close or %session-changed, an unknown one (passed through
// so a newer tmux never breaks the parser), or a stray line.
type Notification struct {
	// Name is the word after '%' ("window-close"), or "" for a line that
	// does not start with '%' (a stray line, e.g. late output of a
	// command that waited).
	Name string
	// Args are the leading fixed fields of a known notification (ids such
	// as "@1", "%2", "$0", or a client name); nil for unknown ones.
	Args []string
	// Text is the rest of the line after Args: a name, a layout, a
	// message; for an unknown notification everything after the name.
	Text string
}

// ID returns the first argument that is an id of the given kind: '%' for a
// pane, '@' for a window, '$' for a session; "" if there is none.
func (n *Notification) ID(kind byte) string {
	for _, a := range n.Args {
		if len(a) > 1 && a[0] == kind {
			return a
		}
	}
	return ""
}

func (*Reply) message()        {}
func (*Output) message()       {}
func (*Exit) message()         {}
func (*Notification) message() {}

// fixedArgs is how many space-separated fields lead each known notification
// before its free text (see tmux(1), CONTROL MODE). Names not listed here
// are passed through with all of their text in Notification.Text.
var fixedArgs = map[string]int{
	"client-detached":         1,
	"client-session-changed":  2,
	"continue":                1,
	"layout-change":           1,
	"pane-mode-changed":       1,
	"paste-buffer-changed":    0,
	"paste-buffer-deleted":    0,
	"pause":                   1,
	"session-changed":         1,
	"session-renamed":         1,
	"session-window-changed":  2,
	"sessions-changed":        0,
	"subscription-changed":    5,
	"unlinked-window-add":     1,
	"unlinked-window-close":   1,
	"unlinked-window-renamed": 1,
	"window-add":              1,
	"window-close":            1,
	"window-pane-changed":     2,
	"window-renamed":          1,
	"config-error":            0,
	"message":                 0,
}

// Parser turns the lines of a control-mode client's standard output into
// Messages. It is pure (no I/O) and never fails: malformed lines become
// Notifications. The zero value is ready to use; a Parser is not safe for
// concurrent use.
type Parser struct {
	open  bool
	block Reply
}

// InBlock reports whether the parser is inside an output block, waiting
// for the guard that closes it.
func (p *Parser) InBlock() bool { return p.open }

// Parse consumes one line, without its line break, and returns the message
// it completes, or nil when the line only added to an open output block.
// The parser keeps no reference to line.
func (p *Parser) Parse(line []byte) Message {
	if p.open {
		if g, failed, ok := parseClose(line); ok && g == p.block.Guard {
			r := p.block
			r.Failed = failed
			p.open, p.block = false, Reply{}
			return &r
		}
		p.block.Lines = append(p.block.Lines, string(line))
		return nil
	}
	if rest, ok := bytes.CutPrefix(line, []byte("%begin ")); ok {
		if g, ok := parseGuard(rest); ok {
			p.open, p.block = true, Reply{Guard: g}
			return nil
		}
	}
	return parseNotification(line)
}

// parseClose recognises "%end GUARD" and "%error GUARD".
func parseClose(line []byte) (g Guard, failed bool, ok bool) {
	if rest, found := bytes.CutPrefix(line, []byte("%end ")); found {
		g, ok = parseGuard(rest)
		return g, false, ok
	}
	if rest, found := bytes.CutPrefix(line, []byte("%error ")); found {
		g, ok = parseGuard(rest)
		return g, true, ok
	}
	return Guard{}, false, false
}

// parseGuard reads exactly "TIME NUMBER FLAGS" in the canonical decimal
// form tmux writes, so that a guard formats back to the same text.
func parseGuard(b []byte) (Guard, bool) {
	f := strings.Split(string(b), " ")
	if len(f) != 3 {
		return Guard{}, false
	}
	t, err1 := strconv.ParseInt(f[0], 10, 64)
	n, err2 := strconv.ParseUint(f[1], 10, 64)
	fl, err3 := strconv.Atoi(f[2])
	g := Guard{Time: t, Number: n, Flags: fl}
	if err1 != nil || err2 != nil || err3 != nil || g.String() != string(b) {
		return Guard{}, false
	}
	return g, true
}

func parseNotification(line []byte) Message {
	if len(line) == 0 || line[0] != '%' {
		return &Notification{Text: string(line)}
	}
	name, rest, _ := strings.Cut(string(line[1:]), " ")
	switch name {
	case "output":
		pane, value, ok := strings.Cut(rest, " ")
		if ok && isID(pane, '%') {
			return &Output{Pane: pane, Data: DecodeOutput([]byte(value))}
		}
	case "extended-output":
		// %extended-output %PANE AGE ... : VALUE
		head, value, ok := strings.Cut(rest, " : ")
		f := strings.Fields(head)
		if ok && len(f) >= 2 && isID(f[0], '%') {
			if age, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return &Output{Pane: f[0], Data: DecodeOutput([]byte(value)), Extended: true, AgeMillis: age}
			}
		}
	case "exit":
		return &Exit{Reason: rest}
	}
	n := &Notification{Name: name, Text: rest}
	if k, known := fixedArgs[name]; known && k > 0 {
		f := strings.SplitN(rest, " ", k+1)
		if len(f) >= k {
			n.Args = f[:k]
			n.Text = ""
			if len(f) > k {
				n.Text = f[k]
			}
		}
	}
	return n
}

// isID reports whether s is kind followed by one or more decimal digits.
func isID(s string, kind byte) bool {
	if len(s) < 2 || s[0] != kind {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// DecodeOutput undoes tmux's escaping of a %output value: "\ooo" (a
// backslash and three octal digits) is the byte ooo; tmux writes it for
// every byte below 32 and for the backslash. Any other byte is itself, and
// a backslash not followed by three octal digits is kept as it is (tmux
// never writes one, but the decoder must not fail on it).
func DecodeOutput(v []byte) []byte {
	if bytes.IndexByte(v, '\\') < 0 {
		return bytes.Clone(v)
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+3 < len(v) && isOctal(v[i+1]) && isOctal(v[i+2]) && isOctal(v[i+3]) {
			n := int(v[i+1]-'0')<<6 | int(v[i+2]-'0')<<3 | int(v[i+3]-'0')
			if n <= 0xff {
				out = append(out, byte(n))
				i += 3
				continue
			}
		}
		out = append(out, v[i])
	}
	return out
}

func isOctal(b byte) bool { return b >= '0' && b <= '7' }

// EncodeOutput escapes data as tmux does in a %output value: bytes below
// 32 and the backslash become "\ooo". DecodeOutput(EncodeOutput(b)) == b
// for every b; tests and fakes use it to write protocol lines.
func EncodeOutput(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for _, b := range data {
		if b < ' ' || b == '\\' {
			out = append(out, '\\', '0'+b>>6, '0'+(b>>3)&7, '0'+b&7)
			continue
		}
		out = append(out, b)
	}
	return out
}

// ErrBadArgument is wrapped by the error Quote and CommandLine return for
// an argument a control-mode command line cannot carry.
var ErrBadArgument = errors.New("argument cannot be sent in control mode")

// Quote makes arg one word of a tmux command line, taken literally by
// tmux's parser: no ';' separators, no $VAR or ~ expansion, no comments.
// Plain UTF-8 text is single-quoted. Text with control characters (a
// newline would end the command line) or bytes that are not UTF-8 (tmux's
// parser would split the word there) is double-quoted, those bytes written
// as octal escapes. A NUL byte cannot be carried and is an error wrapping
// ErrBadArgument. Format expansion (#{…}) is the command's business,
// exactly as on a shell command line.
func Quote(arg string) (string, error) {
	if strings.IndexByte(arg, 0) >= 0 {
		return "", fmt.Errorf("%w: a NUL byte in %q", ErrBadArgument, arg)
	}
	plain := utf8.ValidString(arg)
	for i := 0; plain && i < len(arg); i++ {
		if c := arg[i]; c < ' ' || c == 0x7f {
			plain = false
		}
	}
	if plain {
		return "'" + strings.ReplaceAll(arg, "'", `'\''`) + "'", nil
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(arg); {
		c := arg[i]
		if c >= utf8.RuneSelf {
			if r, n := utf8.DecodeRuneInString(arg[i:]); r != utf8.RuneError || n > 1 {
				b.WriteString(arg[i : i+n])
				i += n
				continue
			}
		}
		switch {
		case c == '\\' || c == '"' || c == '$':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < ' ' || c >= 0x7f:
			b.WriteByte('\\')
			b.WriteByte('0' + c>>6)
			b.WriteByte('0' + (c>>3)&7)
			b.WriteByte('0' + c&7)
		default:
			b.WriteByte(c)
		}
		i++
	}
	b.WriteByte('"')
	return b.String(), nil
}

// CommandLine quotes args into one control-mode command line (without the
// line break). It sends exactly one command: a ";" argument is passed to
// the command literally instead of separating commands, because tmux
// answers each command of a list with its own block and drops the rest of
// a list after an error, which would leave replies unmatched. The first
// argument, the command name, must not be empty (an empty line detaches
// the client).
func CommandLine(args ...string) (string, error) {
	if len(args) == 0 || args[0] == "" {
		return "", fmt.Errorf("%w: a command name is required", ErrBadArgument)
	}
	var b strings.Builder
	for i, a := range args {
		q, err := Quote(a)
		if err != nil {
			return "", err
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(q)
	}
	return b.String(), nil
}

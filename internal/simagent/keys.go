package simagent

import (
	"bufio"
	"bytes"
	"io"
	"strings"
)

// KeyKind says what a keyboard Event is.
type KeyKind int

// The keyboard events the simulated agent understands.
const (
	// KeyText: typed characters (Text holds them).
	KeyText KeyKind = iota
	// KeyPaste: a bracketed paste (Text holds its content, line breaks as \n).
	KeyPaste
	// KeyEnter: Enter (CR or LF outside a paste).
	KeyEnter
	// KeyBackspace: DEL or BS.
	KeyBackspace
	// KeyEscape: a lone Esc, or an escape sequence the agent ignores.
	KeyEscape
	// KeyInterrupt: Ctrl-C.
	KeyInterrupt
	// KeyEOF: Ctrl-D.
	KeyEOF
)

// Key is one thing that arrived from the keyboard.
type Key struct {
	Kind KeyKind
	Text string
}

// Bracketed paste markers (xterm): a terminal wraps pasted text in them when
// the application enabled mode 2004, which is how tmux paste-buffer -p
// delivers a prompt as one message.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// KeyReader decodes raw terminal input into Keys. It expects the terminal
// in raw mode (no line editing, no echo), as a TUI sets it.
type KeyReader struct {
	r *bufio.Reader
}

// NewKeyReader returns a KeyReader over r.
func NewKeyReader(r io.Reader) *KeyReader {
	return &KeyReader{r: bufio.NewReaderSize(r, 64<<10)}
}

// Next blocks until the next key arrives. It returns io.EOF when the input
// ends.
func (k *KeyReader) Next() (Key, error) {
	b, err := k.r.ReadByte()
	if err != nil {
		return Key{}, err
	}
	switch b {
	case '\r', '\n':
		return Key{Kind: KeyEnter}, nil
	case 0x03:
		return Key{Kind: KeyInterrupt}, nil
	case 0x04:
		return Key{Kind: KeyEOF}, nil
	case 0x7f, 0x08:
		return Key{Kind: KeyBackspace}, nil
	case 0x1b:
		return k.escape()
	}
	if err := k.r.UnreadByte(); err != nil {
		return Key{}, err
	}
	r, _, err := k.r.ReadRune()
	if err != nil {
		return Key{}, err
	}
	return Key{Kind: KeyText, Text: string(r)}, nil
}

// escape reads what follows ESC: a bracketed paste, a CSI sequence (ignored,
// e.g. arrow keys or focus events) or a lone Esc. An ESC with nothing read
// after it is a lone Esc at once, as a TUI takes it: a sequence arrives in
// one write, and waiting for the next key would hold the Esc back until a
// person (or a driver) pressed another.
func (k *KeyReader) escape() (Key, error) {
	if k.r.Buffered() == 0 {
		return Key{Kind: KeyEscape}, nil
	}
	next, err := k.r.Peek(1)
	if err != nil || next[0] != '[' {
		return Key{Kind: KeyEscape}, nil
	}
	if p, err := k.r.Peek(len(pasteStart) - 1); err == nil && string(p) == pasteStart[1:] {
		if _, err := k.r.Discard(len(p)); err != nil {
			return Key{}, err
		}
		return k.paste()
	}
	// CSI: parameters and intermediates, then one final byte in 0x40–0x7e.
	if _, err := k.r.ReadByte(); err != nil {
		return Key{}, err
	}
	for {
		c, err := k.r.ReadByte()
		if err != nil {
			return Key{}, err
		}
		if c >= 0x40 && c <= 0x7e {
			return Key{Kind: KeyEscape}, nil
		}
	}
}

// paste reads up to the end marker. Terminals (and tmux) send line breaks
// in a paste as CR; they are given back as \n.
func (k *KeyReader) paste() (Key, error) {
	var buf bytes.Buffer
	end := []byte(pasteEnd)
	for {
		c, err := k.r.ReadByte()
		if err != nil {
			return Key{}, err
		}
		buf.WriteByte(c)
		if bytes.HasSuffix(buf.Bytes(), end) {
			text := buf.String()[:buf.Len()-len(end)]
			text = strings.ReplaceAll(text, "\r\n", "\n")
			text = strings.ReplaceAll(text, "\r", "\n")
			return Key{Kind: KeyPaste, Text: text}, nil
		}
	}
}

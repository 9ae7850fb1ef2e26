package serve

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Address is where the service listens and clients dial: a unix socket
// ("unix:PATH", or a bare path) or a TCP address ("tcp:127.0.0.1:PORT").
type Address struct {
	Network string // "unix" or "tcp"
	Addr    string
}

func (a Address) String() string { return a.Network + ":" + a.Addr }

// ParseAddress reads "unix:PATH", "tcp:HOST:PORT" or a bare path.
func ParseAddress(s string) (Address, error) {
	switch {
	case strings.HasPrefix(s, "unix:"):
		p := strings.TrimPrefix(s, "unix:")
		if p == "" {
			return Address{}, errors.New("unix: needs a socket path")
		}
		return Address{"unix", p}, nil
	case strings.HasPrefix(s, "tcp:"):
		hp := strings.TrimPrefix(s, "tcp:")
		if _, _, err := net.SplitHostPort(hp); err != nil {
			return Address{}, fmt.Errorf("tcp:%s: %v (want tcp:127.0.0.1:PORT)", hp, err)
		}
		return Address{"tcp", hp}, nil
	case strings.Contains(s, "/"):
		return Address{"unix", s}, nil
	}
	return Address{}, fmt.Errorf("%q: want unix:PATH or tcp:127.0.0.1:PORT", s)
}

// DefaultSocket is the socket the service listens on and clients dial when
// none is named: $XDG_RUNTIME_DIR/handoff-fsm/serve.sock, or, without a
// runtime folder, <temp>/handoff-fsm-<uid>/serve.sock.
func DefaultSocket() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "handoff-fsm", "serve.sock")
	}
	return filepath.Join(os.TempDir(), "handoff-fsm-"+strconv.Itoa(os.Getuid()), "serve.sock")
}

// DefaultStateDir is where the service keeps its dispatches when no folder
// is named: $XDG_STATE_HOME/handoff-fsm/serve, or
// ~/.local/state/handoff-fsm/serve.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "handoff-fsm", "serve"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no state folder: %w (give --state-dir)", err)
	}
	return filepath.Join(home, ".local", "state", "handoff-fsm", "serve"), nil
}

// Listen opens a's listener. A unix socket is made mode 0600 in a folder
// only the user can enter (created 0700 if missing; an existing folder
// others can enter is refused), and a stale socket of a dead service is
// replaced. A TCP address must be a loopback one unless allowRemote; the
// caller must require a token for it.
func Listen(a Address, allowRemote bool) (net.Listener, error) {
	switch a.Network {
	case "unix":
		return listenUnix(a.Addr)
	case "tcp":
		host, _, _ := net.SplitHostPort(a.Addr)
		ip := net.ParseIP(host)
		if !allowRemote && host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return nil, fmt.Errorf("tcp:%s is not a loopback address: the service listens on 127.0.0.1 or ::1 unless asked (--allow-remote)", a.Addr)
		}
		return net.Listen("tcp", a.Addr)
	}
	return nil, fmt.Errorf("unknown network %q", a.Network)
}

func listenUnix(path string) (net.Listener, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return nil, fmt.Errorf("%s is not a folder", dir)
	case ok && int(st.Uid) != os.Getuid():
		return nil, fmt.Errorf("the socket's folder %s belongs to uid %d, not to you: choose a folder of your own", dir, st.Uid)
	case fi.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("the socket's folder %s can be entered by others (mode %v): chmod 700 it, or choose a folder only you can enter", dir, fi.Mode().Perm())
	}
	if _, err := os.Lstat(path); err == nil {
		if c, err := net.Dial("unix", path); err == nil {
			c.Close()
			return nil, fmt.Errorf("a service already listens on %s", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
		}
	}
	l, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

package tmuxdriver

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// TmuxVersion is a tmux release, as `tmux -V` names it: 3.3a is {3, 3}.
type TmuxVersion struct {
	Major, Minor int
	// Raw is what tmux -V printed, without "tmux " ("3.3a", "next-3.6").
	Raw string
}

// The tmux releases that matter.
var (
	// MinVersion is the oldest tmux handoff-fsm supports: every command and
	// format it uses exists there (Ubuntu 20.04 ships 3.0a). The tests run
	// on 3.3.
	MinVersion = TmuxVersion{3, 0, "3.0"}
	// ControlVersion is the oldest tmux whose control mode can filter its
	// output (attach-session -f no-output, pause-after): below it,
	// StartControl falls back to a tmux process per look, saying why.
	ControlVersion = TmuxVersion{3, 2, "3.2"}
)

// ErrTmuxTooOld: the tmux binary is older than a feature (or handoff-fsm)
// needs.
var ErrTmuxTooOld = errors.New("tmux too old")

func (v TmuxVersion) String() string { return v.Raw }

// Less reports whether v is an older release than w.
func (v TmuxVersion) Less(w TmuxVersion) bool {
	return v.Major < w.Major || v.Major == w.Major && v.Minor < w.Minor
}

// ParseVersion reads the output of `tmux -V`: "tmux 3.3a", "tmux next-3.6",
// "tmux 3.2-rc3". A build that names no number ("tmux master",
// "tmux openbsd-7.5": OpenBSD's own, always recent) counts as newer than
// any release.
func ParseVersion(out string) (TmuxVersion, error) {
	raw := strings.TrimSpace(out)
	rest, ok := strings.CutPrefix(raw, "tmux ")
	if !ok {
		return TmuxVersion{}, fmt.Errorf("tmux -V printed %q, not a tmux version", raw)
	}
	v := TmuxVersion{Raw: rest}
	num := strings.TrimPrefix(rest, "next-")
	major, minor, _ := strings.Cut(num, ".")
	maj, err := strconv.Atoi(major)
	if err != nil {
		// No number: a development or OS build.
		v.Major = 1 << 30
		return v, nil
	}
	end := 0
	for end < len(minor) && minor[end] >= '0' && minor[end] <= '9' {
		end++
	}
	v.Major, v.Minor = maj, 0
	if end > 0 {
		v.Minor, _ = strconv.Atoi(minor[:end])
	}
	return v, nil
}

// Version runs `tmux -V` (it needs no server) and parses what it prints.
func (s Server) Version(ctx context.Context) (TmuxVersion, error) {
	bin := s.Binary
	if bin == "" {
		bin = "tmux"
	}
	timeout := s.Timeout
	if timeout <= 0 {
		timeout = DefaultCallTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := exec.CommandContext(cctx, bin, "-V").Output()
	if err != nil {
		return TmuxVersion{}, s.explain(ctx, cctx, []string{"-V"}, err, "")
	}
	return ParseVersion(string(out))
}

// CheckVersion makes sure the tmux binary is at least MinVersion: an
// older one is an error wrapping ErrTmuxTooOld that says what to do. Call it
// once, before the first dispatch (the command does).
func (s Server) CheckVersion(ctx context.Context) (TmuxVersion, error) {
	v, err := s.Version(ctx)
	if err != nil {
		return v, err
	}
	if v.Less(MinVersion) {
		return v, fmt.Errorf("%w: this is tmux %s; handoff-fsm needs tmux %s or newer (brew install tmux, apt install tmux, pkg install tmux)", ErrTmuxTooOld, v, MinVersion)
	}
	return v, nil
}

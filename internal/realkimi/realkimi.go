// Package realkimi describes Kimi Code (@moonshot-ai/kimi-code) to the
// real-CLI harness (internal/realcli): a fresh HOME whose
// ~/.kimi-code/config.toml names one provider of type openai (the fake
// Chat Completions API) and one model, and the hooks asked for; --auto
// (its Never Ask mode) unless it is to ask before each command; the
// folder-trust question answered; and the screens that say it is ready
// and took a prompt.
package realkimi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/handoff-fsm/handoff-fsm/internal/realcli"
	"github.com/handoff-fsm/handoff-fsm/kimi"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// APIKey and Model are what Kimi Code sends the fake server; ShellTool is
// the name of its shell tool.
const (
	APIKey    = "handoff-fake-openai-key"
	Model     = "fake-model"
	ShellTool = "Bash"
)

// Options configure one Kimi Code session: Common (BaseURL is the fake
// Chat Completions API, ending in /v1) and what only Kimi Code has.
type Options struct {
	realcli.Common
	// Ask starts Kimi Code in its default mode, which asks before each
	// command; otherwise it runs with --auto (Never Ask).
	Ask bool
	// Hooks are config.toml hooks (event → shell command).
	Hooks map[string]string
	// Args replace the default arguments (--auto, or none with Ask).
	Args []string
}

// Env is Kimi Code's whole environment: nothing of the developer's own
// settings leaks in, and it does not update itself. The binary is
// scripts/install-cli.sh's launcher, which runs Kimi Code with the Node
// installed beside it.
func Env(opts Options) []string {
	return CLI.Env(opts.Common, "KIMI_CODE_NO_AUTO_UPDATE=1")
}

// ConfigPath is config.toml's path relative to HOME.
var ConfigPath = filepath.Join(".kimi-code", "config.toml")

// Config is ~/.kimi-code/config.toml: one openai provider at the fake
// server, one model, and the hooks.
func Config(opts Options) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "default_model = %q\n\n[providers.fake]\ntype = \"openai\"\napi_key = %q\nbase_url = %q\n\n", "fake", APIKey, opts.BaseURL)
	fmt.Fprintf(&b, "[models.fake]\nprovider = \"fake\"\nmodel = %q\nmax_context_size = 128000\n", Model)
	events := make([]string, 0, len(opts.Hooks))
	for e := range opts.Hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	for _, e := range events {
		fmt.Fprintf(&b, "\n[[hooks]]\nevent = %q\ncommand = %s\n", e, strconv.Quote(opts.Hooks[e]))
	}
	return []byte(b.String())
}

// TrustRecord is the record by which Kimi Code 2.1.0 remembers that the
// user trusted workdir (an absolute, clean path), as its "Trust this
// folder?" answer writes it: a file of ~/.kimi-code/workspace-trust/
// (path relative to HOME) named wd_<the folder's base name as a slug>_<the
// first 12 hex digits of the path's SHA-256>, holding its root and when.
// A home holding it starts at the composer, as a user's who answered once.
func TrustRecord(workdir string) (path string, data []byte) {
	slug := strings.Trim(nonSlug.ReplaceAllString(strings.ToLower(filepath.Base(workdir)), "-"), "-")
	if len(slug) > 40 {
		slug = strings.Trim(slug[:40], "-")
	}
	if slug == "" || slug == "." || slug == ".." {
		slug = "workspace"
	}
	sum := sha256.Sum256([]byte(workdir))
	name := "wd_" + slug + "_" + hex.EncodeToString(sum[:])[:12]
	data, _ = json.Marshal(map[string]any{"root": workdir, "trustedAt": 1795810726137})
	return filepath.Join(".kimi-code", kimi.TrustDir, name), data
}

// nonSlug is what Kimi Code's slug of a folder name replaces by "-".
var nonSlug = regexp.MustCompile(`[^a-z0-9._-]+`)

// Args are Kimi Code's arguments: --auto unless it is to ask.
func Args(opts Options) []string {
	if opts.Args != nil {
		return opts.Args
	}
	if opts.Ask {
		return nil
	}
	return []string{"--auto"}
}

// CLI describes Kimi Code to the harness.
var CLI = realcli.CLI{
	Pin:   realcli.Pin{Name: "kimi", Package: kimi.Provider().CLI, Version: kimi.Version},
	Ready: Ready, Submitted: Submitted,
	ReadyTimeout: 90 * time.Second, Settle: time.Second,
}

// Start writes the home, starts a private tmux server whose pane execs
// Kimi Code, and waits until its composer shows (plus Settle). Kimi Code
// asks first whether to trust the work folder ("Trust this folder?",
// remembered in a store of its own, not in a file the harness could
// write): Enter trusts it.
func Start(ctx context.Context, opts Options) (*realcli.Session, error) {
	l := Launch(opts)
	l.Ready = func(text, title string) bool { return Ready(text, title) || Trust(text) }
	s, err := realcli.Start(ctx, CLI, l)
	if err != nil {
		return nil, err
	}
	text, _, err := s.CapturePlain(ctx)
	if err == nil && Trust(text) {
		err = s.Keys(ctx, "Enter")
		if err == nil {
			wctx, cancel := context.WithTimeout(ctx, time.Minute)
			err = s.WaitFor(wctx, 250*time.Millisecond, Ready)
			cancel()
		}
		if err == nil {
			err = realcli.Pause(ctx, time.Second)
		}
	}
	if err != nil {
		_ = s.Close()
		return nil, fmt.Errorf("kimi: past the trust dialog: %w", err)
	}
	return s, nil
}

// Launch is the harness's Launch of opts.
func Launch(opts Options) realcli.Launch {
	return realcli.Launch{Common: opts.Common, Env: Env(opts), Files: map[string][]byte{ConfigPath: Config(opts)}, Args: Args(opts)}
}

// Trust reports the folder-trust dialog.
func Trust(text string) bool {
	return signals(text).Chrome == screen.ChromeDialog && strings.Contains(text, "Trust this folder?")
}

// signals reads a screen with Kimi Code's classifier.
func signals(text string) kimi.Signals {
	s, _ := kimi.Provider().Classify(text, "").Signals.(kimi.Signals)
	return s
}

// Ready reports the first screen: an empty composer, no turn running.
func Ready(text, _ string) bool {
	s := signals(text)
	return s.Chrome == screen.ChromeComposer && s.Composer == "" && s.BusyLine == 0
}

// Submitted reports a screen on which the prompt was taken: a turn runs,
// or the composer is empty again (a fast turn already ended).
func Submitted(text, _ string) bool {
	s := signals(text)
	return s.BusyLine != 0 || (s.Chrome == screen.ChromeComposer && s.Composer == "")
}

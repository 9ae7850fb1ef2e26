package gemini

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version: the Gemini CLI build every screen in testdata comes from (and
// the one the e2e suite installs).
const Version = "0.61.0"

// enterDelay is the pause Gemini CLI is given between a paste and Enter: an
// Enter within about half a second of a paste, as its event loop sees it,
// is taken as a new line in the composer, and on a loaded machine its loop
// runs late. A paste of more than a few lines shows only as "[Pasted Text:
// N lines]", so the driver cannot see such a new line and press Enter again
// in time (a delivery row on a machine at load 19 kept its prompt in the
// composer after four Enters at the driver's default quarter second).
const enterDelay = time.Second

// Provider is Google's Gemini CLI (@google/gemini-cli): its AfterAgent hook
// fires when a turn ends, and it gets a longer pause before Enter.
func Provider() screen.Provider {
	return screen.Provider{Name: "gemini", CLI: "@google/gemini-cli", Version: Version,
		// The releases proven to read right (docs/versions.md, scripts/versions.sh).
		Window: screen.Window{Oldest: "0.57.0", Newest: "0.61.0"},
		Hook:   "AfterAgent", EnterDelay: enterDelay, Read: screen.Reader(read), Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		// Gemini CLI 0.61.0's composer, tried on the real CLI:
		//   - A pasted '!' stays text; a typed '!' on the empty composer switches
		//     it to shell mode ("shell mode enabled (esc to disable)" above it,
		//     the prompt "!"), where Enter runs the message in a shell. A composer
		//     left in shell mode takes a paste as a command too.
		//   - '/' and '?' first make the message a command when it is submitted;
		//     the CLI trims the message before it looks, so leading blanks are no
		//     guard.
		//   - '@path' anywhere includes that file's content in what the model
		//     reads (the text itself is kept).
		//   - Esc leaves shell mode; two more empty the composer.
		Composer: screen.Composer{Leaders: "!/?", Clear: []string{"Escape", "Escape", "Escape"}, Read: screen.HintMode(12, "shell mode enabled", screen.ShellMode), ReadDraft: pasteForm().Draft, ReadPaste: pasteForm().Read},
		Launch: screen.Launch{Hook: screen.SystemDefaults("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", "AfterAgent"),
			Via: "$GEMINI_CLI_SYSTEM_DEFAULTS_PATH (an AfterAgent hook)", Resume: []string{"--resume", "latest"}, Secure: rootOwned}}
}

// rootOwned is Gemini CLI's rule for a system settings file: it and every
// folder above it owned by root and writable by no group or other user;
// Gemini CLI skips any other (with a warning on its screen).
func rootOwned(path string) error {
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			return fmt.Errorf("Gemini CLI reads a per-run settings file only when root owns it and the folders above it; %s is not root's", p)
		}
		if fi.Mode().Perm()&0o022 != 0 {
			return fmt.Errorf("Gemini CLI reads a per-run settings file only from folders no group or other user may write; %s may be", p)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

package copilot

import (
	"encoding/json"
	"path/filepath"
	"strings"

	handoff "github.com/handoff-fsm/handoff-fsm"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// Version of Copilot CLI behind testdata/real-* and the end-to-end runs;
// pinned by internal/realcopilot.
const Version = "1.0.102"

// Hook is Copilot CLI's event at the end of each turn.
const Hook = "agentStop"

// Provider is GitHub Copilot CLI (@github/copilot): its agentStop hook,
// given to it for the run in a plug-in folder (--plugin-dir), ends a turn.
func Provider() screen.Provider {
	return screen.Provider{Name: "copilot", CLI: "@github/copilot", Version: Version, Window: screen.Window{Oldest: "1.0.89", Newest: Version}, Hook: Hook, Read: screen.Reader(read), Last: lastMessage, Recognize: recognize, Transcript: transcript(),
		// Copilot CLI 1.0.102's composer, tried on the real CLI:
		//   - '!' first, typed or pasted, switches to shell mode at once (the
		//     composer's "❯" becomes "!", the footer "Shell · …"): Enter runs
		//     the text in a shell.
		//   - '/' first opens the command menu; '?' is the help; '&' first
		//     delegates the prompt to the cloud agent ("& send to github,
		//     copilot creates a pr"); a pasted "$ …" is taken by its
		//     interactive-shell shortcut and the composer is left empty.
		//   - '@' (files) and '#' (issues) are mentions, not modes.
		//   - Ctrl-U empties a line and Backspace joins it to the one above or,
		//     on an empty composer in shell mode, leaves shell mode. (Ctrl-C
		//     empties it too but arms "ctrl+c again to exit"; Escape leaves
		//     shell mode only once it is empty; two Escapes on an empty
		//     composer open the rewind.)
		//   - A paste of more than 10 lines is folded: "[Paste #1 - 40 lines]";
		//     one over about 20 KB is saved to a file of the session ("[Saved
		//     pasted content to workspace (64.2 KB) id=1]") and the model gets
		//     "<pasted_content file=… />", a reference, not the text.
		Composer: screen.Composer{Leaders: "!/?&$", ClearFor: clearKeys, Read: composerMode, ReadDraft: readDraft, ReadPaste: readPaste},
		Launch:   screen.Launch{Hook: pluginHook, Via: "--plugin-dir DIR (a plug-in with an agentStop hook)", Resume: []string{"--continue"}}}
}

// pluginHook gives Copilot CLI a plug-in folder for the run
// (--plugin-dir): its manifest and a hooks file whose agentStop runs cmd.
// The user's ~/.copilot is left alone.
func pluginHook(files string, cmd []string) screen.Wiring {
	dir := filepath.Join(files, "copilot-plugin")
	return screen.Wiring{Args: []string{"--plugin-dir", dir}, Files: map[string][]byte{
		filepath.Join(dir, ".plugin", "plugin.json"): []byte(`{"name": "handoff-fsm-hook", "description": "handoff-fsm: the end of each turn, for the run", "version": "1.0.0"}` + "\n"),
		filepath.Join(dir, "hooks", "hooks.json"):    hooksJSON(cmd),
	}}
}

// hooksJSON is a Copilot CLI hooks file (its own form, version 1) whose
// agentStop runs cmd in bash.
func hooksJSON(cmd []string) []byte {
	quoted := make([]string, len(cmd))
	for i, a := range cmd {
		quoted[i] = handoff.ShellQuote(a)
	}
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "hooks": map[string]any{Hook: []any{map[string]any{
		"type": "command", "bash": strings.Join(quoted, " "), "timeoutSec": 30,
	}}}}, "", "  ")
	return append(b, '\n')
}

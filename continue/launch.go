package cont

import (
	"os"
	"path/filepath"

	"github.com/handoff-fsm/handoff-fsm/screen"
)

// GlobalDirEnv names Continue's global folder (~/.continue by default):
// its config.yaml, .env, permissions.yaml, rules, logs, and sessions/, one
// file per session.
const GlobalDirEnv = "CONTINUE_GLOBAL_DIR"

// sessionsDir is the folder of the global one that holds the sessions:
// `cn --resume` takes the newest file there, whatever folder it was
// started in (read from 1.5.47's bundle).
const sessionsDir = "sessions"

// OwnGlobalDir is the global folder own gives the agent whose per-run
// files folder (team.Team.FilesDir) is files; its sessions are in
// sessionsDir under it.
func OwnGlobalDir(files string) string { return filepath.Join(files, "continue") }

// SessionsDir is where Continue keeps the sessions of a global folder.
func SessionsDir(global string) string { return filepath.Join(global, sessionsDir) }

// own gives one agent of a team a global folder of its own,
// files/continue, so that `cn --resume` takes that agent's newest session
// and not another agent's of the same user. Everything else stays the
// user's: each entry of the user's global folder but sessions/ is linked
// there (config.yaml, .env, permissions.yaml, rules/, …), so Continue reads
// the user's configuration as it is, relative paths in it included, and
// what it writes back (a tool allowed for good, say) goes to the user's.
// The user's folder is the team file's CONTINUE_GLOBAL_DIR for the agent,
// else up's, else .continue in the agent's HOME (the team file's, else
// up's).
func own(files string, env map[string]string) screen.Wiring {
	dir := OwnGlobalDir(files)
	w := screen.Wiring{Env: map[string]string{GlobalDirEnv: dir}, Links: map[string]string{}}
	user := userDir(env)
	if user == "" {
		return w
	}
	entries, _ := os.ReadDir(user)
	for _, e := range entries {
		if e.Name() != sessionsDir {
			w.Links[filepath.Join(dir, e.Name())] = filepath.Join(user, e.Name())
		}
	}
	return w
}

// userDir is the user's global folder as the agent would have it without
// up (see own), "" when there is no home folder.
func userDir(env map[string]string) string {
	for _, d := range []string{env[GlobalDirEnv], os.Getenv(GlobalDirEnv)} {
		if d != "" {
			return d
		}
	}
	home := env["HOME"]
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		home = h
	}
	return filepath.Join(home, ".continue")
}

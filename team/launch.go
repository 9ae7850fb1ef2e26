package team

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/handoff-fsm/handoff-fsm/provider"
	"github.com/handoff-fsm/handoff-fsm/screen"
)

// HookDir is the folder an agent's turn-end hook writes its markers to
// (`handoff-fsm hook --dir`), one per agent: hooks do not know the role.
func (a Agent) HookDir() string {
	return filepath.Join(a.Workdir, ".tmp", "agent-events", a.Role)
}

// FilesDir is where up writes the per-run settings files of the agent
// with the given role: in the user's cache folder (Gemini CLI reads a
// settings file only from folders no other user may write), one folder
// per team (its tmux socket and session). Down removes it.
func (t *Team) FilesDir(role string) string {
	base, err := os.UserCacheDir()
	if err != nil {
		base = filepath.Join(t.Workdir, ".tmp")
	}
	return filepath.Join(base, "handoff-fsm", "team", t.Socket+"."+t.Session, role)
}

// HookVia says how an agent's turn-end hook is wired: by which of its
// CLI's means ("" when its CLI has none).
func HookVia(name string) string { return provider.Launch(name).Via }

// Resume is the arguments that make a's CLI go on with its last session,
// nil when it has none.
func Resume(a Agent) []string {
	return slices.Clone(provider.Launch(a.Provider).Resume)
}

// wired is an agent's command line for one start.
type wired struct {
	args []string
	env  map[string]string
	// hookDir is the hook's marker folder, "" when no hook is wired;
	// hook says how it is wired, or why not.
	hookDir, hook string
}

// wire returns a's arguments and environment for this run with its
// turn-end hook wired to `exe hook --dir a.HookDir()` (when a's CLI has
// one and exe is set), having written the files it needs into files; with
// its CLI's place of its own for this agent (Launch.Own) made there too;
// and with its CLI's resume arguments first when resume is set.
func wire(a Agent, exe, files string, resume bool) (wired, error) {
	// What each CLI supports is its provider's (provider.Launch); one from
	// a provider file has neither hook nor resume.
	l := provider.Launch(a.Provider)
	w := wired{env: map[string]string{}}
	if resume {
		w.args = append(w.args, l.Resume...)
	}
	w.args = append(w.args, a.Args...)
	for k, v := range a.Env {
		w.env[k] = v
	}
	if l.Own != nil {
		// Its own place overrides the team file's variables: it is made
		// from them (the user's settings it links to are looked up there).
		o := l.Own(files, a.Env)
		if _, err := write(o, nil); err != nil {
			return w, fmt.Errorf("the agent's own folder: %w", err)
		}
		for k, v := range o.Env {
			w.env[k] = v
		}
		w.args = append(w.args, o.Args...)
	}
	switch {
	case l.Hook == nil:
		w.hook = "none (" + a.Provider + " has no command hook)"
		return w, nil
	case exe == "":
		w.hook = "not wired (no handoff-fsm executable to run)"
		return w, nil
	}
	h := l.Hook(files, []string{exe, "hook", "--dir", a.HookDir()})
	for k := range h.Env {
		if _, set := a.Env[k]; set {
			// The user's own value wins; the screen and the response file
			// still decide.
			w.hook = "not wired (the team file sets " + k + ")"
			return w, nil
		}
	}
	if err := os.MkdirAll(files, 0o755); err != nil {
		return w, fmt.Errorf("the hook's settings: %w", err)
	}
	insecure, err := write(h, l.Secure)
	if err != nil {
		return w, fmt.Errorf("the hook's settings: %w", err)
	}
	if insecure != nil {
		w.hook = "not wired (" + insecure.Error() + ")"
		return w, nil
	}
	if err := os.MkdirAll(a.HookDir(), 0o755); err != nil {
		return w, fmt.Errorf("the hook's folder: %w", err)
	}
	for k, v := range h.Env {
		w.env[k] = v
	}
	w.args = append(w.args, h.Args...)
	w.hookDir, w.hook = a.HookDir(), l.Via
	return w, nil
}

// write makes w's files and links. secure, when set, checks each file
// written: the first that fails it stops the writing and is returned as
// insecure (the CLI would ignore it), err being nil.
func write(w screen.Wiring, secure func(path string) error) (insecure, err error) {
	for path, data := range w.Files {
		// A hook may need a folder of files (Copilot CLI's plug-in).
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return nil, err
		}
		if secure != nil {
			if err := secure(path); err != nil {
				return err, nil
			}
		}
	}
	for path, target := range w.Links {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		// A link of an earlier start is made again (its target may have
		// moved); anything else there is the CLI's own and stays.
		if fi, err := os.Lstat(path); err == nil {
			if fi.Mode()&os.ModeSymlink == 0 {
				continue
			}
			if err := os.Remove(path); err != nil {
				return nil, err
			}
		}
		if err := os.Symlink(target, path); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

package kimi

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// up's Kimi Code gets a home of the run's own: its config.toml is the
// user's with the Stop hook appended, and the folders the user trusted are
// trusted there too (their records copied), so the run's first start does
// not stop at the trust question the user already answered. The user's
// home is left as it was.
func TestHookHomeKeepsTheUsersConfigAndTrust(t *testing.T) {
	config := []byte("default_model = \"fake\"\n")
	record := []byte(`{"root":"/work/project","trustedAt":1795810726137}`)
	usersHome(t, map[string][]byte{"config.toml": config, filepath.Join(TrustDir, "wd_project_0123456789ab"): record})
	files := t.TempDir()
	w := Provider().Launch.Hook(files, []string{"/bin/handoff-fsm", "hook", "--dir", "/tmp/events"})
	home := filepath.Join(files, "kimi-code")
	if w.Env["KIMI_CODE_HOME"] != home {
		t.Fatalf("KIMI_CODE_HOME = %q, want the run's own %q", w.Env["KIMI_CODE_HOME"], home)
	}
	if got := w.Files[filepath.Join(home, "config.toml")]; !bytes.HasPrefix(got, config) || !bytes.Contains(got, []byte("event = \"Stop\"")) {
		t.Errorf("config.toml:\n%s\nwant the user's, then a Stop hook", got)
	}
	if got := w.Files[filepath.Join(home, TrustDir, "wd_project_0123456789ab")]; !bytes.Equal(got, record) {
		t.Errorf("the user's trust record in the run's home: %q, want %q", got, record)
	}
	if len(w.Files) != 2 {
		t.Errorf("files %v, want config.toml and the one trust record", w.Files)
	}
}

// A user who never ran Kimi Code (no home) gets a home with the hook only:
// Kimi Code then asks whether to trust the folder, and up reports it.
func TestHookHomeWithoutAUserHome(t *testing.T) {
	usersHome(t, nil)
	files := t.TempDir()
	w := Provider().Launch.Hook(files, []string{"handoff-fsm", "hook"})
	if len(w.Files) != 1 || !bytes.HasPrefix(w.Files[filepath.Join(files, "kimi-code", "config.toml")], []byte("\n[[hooks]]")) {
		t.Errorf("files %q, want config.toml holding only the hook", w.Files)
	}
}

// usersHome makes the user's Kimi Code home (KIMI_CODE_HOME, for the
// test) hold files (paths relative to it); with none it does not exist.
func usersHome(t *testing.T, files map[string][]byte) {
	home := filepath.Join(t.TempDir(), "kimi-code")
	t.Setenv("KIMI_CODE_HOME", home)
	for rel, b := range files {
		path := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

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
	user := t.TempDir()
	t.Setenv("KIMI_CODE_HOME", user)
	config := []byte("default_model = \"fake\"\n")
	record := []byte(`{"root":"/work/project","trustedAt":1795810726137}`)
	for path, b := range map[string][]byte{"config.toml": config, filepath.Join(TrustDir, "wd_project_0123456789ab"): record} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(user, path)), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(user, path), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
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
	t.Setenv("KIMI_CODE_HOME", filepath.Join(t.TempDir(), "none"))
	files := t.TempDir()
	w := Provider().Launch.Hook(files, []string{"handoff-fsm", "hook"})
	if len(w.Files) != 1 || !bytes.HasPrefix(w.Files[filepath.Join(files, "kimi-code", "config.toml")], []byte("\n[[hooks]]")) {
		t.Errorf("files %q, want config.toml holding only the hook", w.Files)
	}
}

package serve_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/serve"
)

// The unix socket is mode 0600 in a folder only the user can enter; a
// folder others can enter is refused; a stale socket is replaced, a live
// one is not.
func TestUnixSocketIsTheUsersOnly(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	sock := filepath.Join(base, "run", "serve.sock")
	a, _ := serve.ParseAddress("unix:" + sock)
	l, err := serve.Listen(a, false)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(sock)
	di, _ := os.Stat(filepath.Dir(sock))
	if fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("socket %v, folder %v; want 0600 in 0700", fi.Mode().Perm(), di.Mode().Perm())
	}
	if _, err := serve.Listen(a, false); err == nil || !strings.Contains(err.Error(), "already listens") {
		t.Fatalf("a second listener on a live socket: %v", err)
	}
	l.Close()
	os.WriteFile(sock, nil, 0o600) // a stale file where the socket was
	l, err = serve.Listen(a, false)
	if err != nil {
		t.Fatalf("a stale socket was not replaced: %v", err)
	}
	l.Close()

	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o755)
	if _, err := serve.Listen(serve.Address{Network: "unix", Addr: filepath.Join(open, "s.sock")}, false); err == nil ||
		!strings.Contains(err.Error(), "can be entered by others") {
		t.Fatalf("a folder others can enter: %v", err)
	}
}

// TCP: loopback only unless asked; with a token every request must carry
// it.
func TestTCPNeedsLoopbackAndTheToken(t *testing.T) {
	t.Parallel()
	if _, err := serve.Listen(serve.Address{Network: "tcp", Addr: "0.0.0.0:0"}, false); err == nil {
		t.Fatal("listened on every address without being asked")
	}
	a, _ := serve.ParseAddress("tcp:127.0.0.1:0")
	l, err := serve.Listen(a, false)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := serve.New(serve.Options{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv := &http.Server{Handler: svc.Handler("s3cret")}
	go srv.Serve(l)
	defer srv.Close()
	addr := serve.Address{Network: "tcp", Addr: l.Addr().String()}
	for _, tok := range []string{"", "wrong", "s3cre", "s3cret!"} {
		_, err := serve.NewClient(addr, tok).List(context.Background(), nil)
		var se *serve.StatusError
		if !errors.As(err, &se) || se.Code != http.StatusUnauthorized {
			t.Errorf("token %q: %v", tok, err)
		}
	}
	if _, err := serve.NewClient(addr, "s3cret").List(context.Background(), nil); err != nil {
		t.Fatalf("the right token: %v", err)
	}
}

package serve

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// A dispatch answered at once writes its state seven times, in this order
// (docs/reliability.md, "The service: durable dispatches"): accepted, before
// the 201; sending, before the paste; the wait's start; its progress (a
// look or more that changed a fact); the checkpoint before the consume;
// the ending. Each is durable, the spare it went through is gone with the
// ending, and no write is lost or added (a counting hook).
func TestADispatchsStateIsWrittenAtEachStepThroughItsSpare(t *testing.T) {
	t.Parallel()
	svc, dir, newState := simService(t, "hfsync")
	var mu sync.Mutex
	var saves []save
	svc.onSave = func(w save) {
		mu.Lock()
		saves = append(saves, w)
		mu.Unlock()
	}
	st := newState("answer me")
	v, err := svc.Accept(Request{State: st})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if !slices.Equal(saves, []save{saveAccepted}) {
		t.Errorf("before the submission was answered: %v, want the accepted state alone", saves)
	}
	mu.Unlock()
	if v, _ = svc.Get(context.Background(), v.ID, 2*time.Minute); v.Outcome != "done" {
		t.Fatalf("the dispatch ended %+v", v)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "dispatches")); len(entries) != 1 || entries[0].Name() != v.ID+".json" {
		t.Errorf("the state folder holds %v, want the state file alone (no spare)", entries)
	}
	mu.Lock()
	defer mu.Unlock()
	n := len(saves)
	if n < 5 || !slices.Equal(saves[:3], []save{saveAccepted, saveSending, saveWaitStart}) ||
		!slices.Equal(saves[n-2:], []save{saveConsume, saveFinish}) {
		t.Fatalf("writes %v", saves)
	}
	for _, w := range saves[3 : n-2] {
		if w != saveProgress {
			t.Fatalf("writes %v", saves)
		}
	}
	t.Logf("writes %v", saves)
}

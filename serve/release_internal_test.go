package serve

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

// A fleet's service keeps its history for the lists, but not every answer:
// past the newest finished dispatches (keepWhole), a finished one keeps in
// memory only what the lists show, and a whole view (GET, wait_any,
// DELETE) reads the answer and the transitions back from its state file,
// the same as before.
func TestOlderFinishedDispatchesAreReadBackWholeFromTheirStateFiles(t *testing.T) {
	t.Parallel()
	svc, _, newState := simService(t, "hfrel")
	svc.mu.Lock()
	svc.keepWhole = 2
	svc.mu.Unlock()
	ctx := context.Background()
	var ids []string
	whole := map[string]View{}
	for i := range 4 {
		v, err := svc.Accept(Request{State: newState(fmt.Sprintf("answer %d", i))})
		if err != nil {
			t.Fatal(err)
		}
		if v, _ = svc.Get(ctx, v.ID, 2*time.Minute); v.Outcome != "done" || !v.Whole || len(v.Transitions) == 0 {
			t.Fatalf("dispatch %d ended %+v", i, v)
		}
		ids = append(ids, v.ID)
		whole[v.ID] = v
	}
	// The fourth's ending released the first once its run had returned;
	// the fourth's own run may still be ending, so wait for it, then
	// settle once more as the next ending would.
	d4, _ := svc.lookup(ids[3])
	<-d4.done
	svc.settle(&dispatch{done: d4.done}) // a stand-in for a fifth ending
	for i, id := range ids {
		d, _ := svc.lookup(id)
		d.mu.Lock()
		released, content, journal := d.released, d.st.Finished.Report.Content, len(d.journal)
		d.mu.Unlock()
		if want := i < 3; released != want {
			t.Errorf("dispatch %d: released %v, want %v", i, released, want)
		}
		if released && (content != "" || journal != 0) {
			t.Errorf("dispatch %d was released but holds its answer %q and %d transitions", i, content, journal)
		}
		got, err := svc.Get(ctx, id, 0)
		want := whole[id]
		if err != nil || !got.Whole || got.Content != want.Content || got.Outcome != want.Outcome ||
			got.Polls != want.Polls || len(got.Transitions) != len(want.Transitions) || got.ArchivedPath != want.ArchivedPath {
			t.Errorf("dispatch %d read back %+v, want %+v", i, got, want)
		}
		for k := range min(len(got.Transitions), len(want.Transitions)) {
			g, w := got.Transitions[k], want.Transitions[k]
			if g.From != w.From || g.To != w.To || g.Event != w.Event || (g.Evidence == nil) != (w.Evidence == nil) {
				t.Errorf("dispatch %d, transition %d: read back %+v, want %+v", i, k, g, w)
			}
		}
	}
	var listed []string
	for _, v := range svc.Dispatches(Filter{}) {
		listed = append(listed, v.ID)
		if v.Prompt == "" || !v.Final || v.Outcome != "done" {
			t.Errorf("listed %+v", v)
		}
	}
	if !slices.Equal(listed, ids) {
		t.Errorf("the list holds %v, want %v", listed, ids)
	}
}

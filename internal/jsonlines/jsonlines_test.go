package jsonlines_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/handoff-fsm/handoff-fsm/internal/jsonlines"
)

type entry struct {
	N int `json:"n"`
}

// Appended values come back in order; a file that is not there holds none;
// a torn line is an error naming the file and the line, with the values
// before it.
func TestAppendedLinesReadBackInOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.jsonl")
	if got, err := jsonlines.Read[entry](path, 1<<10); got != nil || err != nil {
		t.Fatalf("no file: %v, %v; want none and no error", got, err)
	}
	for i, sync := range []bool{false, true, false} {
		if err := jsonlines.Append(path, entry{i + 1}, sync); err != nil {
			t.Fatal(err)
		}
	}
	got, err := jsonlines.Read[entry](path, 1<<10)
	if want := []entry{{1}, {2}, {3}}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("read %v, %v; want %v", got, err, want)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"n":`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, err = jsonlines.Read[entry](path, 1<<10)
	if err == nil || !strings.Contains(err.Error(), path+" line 4:") || len(got) != 3 {
		t.Fatalf("torn last line: %v, %v; want the three before it and an error naming line 4", got, err)
	}
}

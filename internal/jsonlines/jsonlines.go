// Package jsonlines keeps a log of JSON values, one a line: appended one
// whole line at a time, read back in order. The hook's markers
// (hookmark's events.jsonl) and the loop's journal of finished steps are
// kept this way.
package jsonlines

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// Append writes v's JSON and a newline at the end of the file at path,
// created (0o644) when there is none. With sync the line is synced before
// the file is closed, for a log that must survive a crash of the machine.
func Append(path string, v any, sync bool) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(append(b, '\n'))
	var serr error
	if sync {
		serr = f.Sync()
	}
	return errors.Join(werr, serr, f.Close())
}

// Read returns every line of the file at path, decoded in order; none when
// there is no file. A line may be up to maxLine bytes long. A line that
// does not decode ends the read with an error naming the file and the
// line, and the values before it.
func Read[T any](path string, maxLine int) ([]T, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, maxLine)
	for sc.Scan() {
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			return out, fmt.Errorf("%s line %d: %w", path, len(out)+1, err)
		}
		out = append(out, v)
	}
	return out, sc.Err()
}

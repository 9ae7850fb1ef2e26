// Package atomicfile replaces a file so that a reader sees the old content
// or the new, never a mix or an empty file: the content goes to a temporary
// file beside it (a name of its own, so writers do not trample each
// other), which is then renamed over it. Write does not sync: a crash of
// the machine may lose the new content, not mix it. WriteSynced syncs the
// content before the rename, for a file that must survive such a crash
// (its caller syncs the folder: dispatchstate's state files).
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces the file at path with data, with permissions perm (as
// given: the umask does not apply). The temporary file, .NAME.*.tmp in the
// same folder, is removed when anything fails.
func Write(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, false)
}

// WriteSynced is Write with the temporary file synced before it is
// renamed: once the caller has synced the folder too, the new content
// survives a crash of the machine.
func WriteSynced(path string, data []byte, perm os.FileMode) error {
	return write(path, data, perm, true)
}

func write(path string, data []byte, perm os.FileMode, sync bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

//go:build unix && !linux && !darwin

package responsefile

// osRename is linkRename where the system has no no-replace rename in
// golang.org/x/sys (FreeBSD, the other BSDs): a hard link, which never
// replaces, then an unlink.
func osRename(fromDir int, from string, toDir int, to string) error {
	return linkRename(fromDir, from, toDir, to)
}

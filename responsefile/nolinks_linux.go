package responsefile

import "golang.org/x/sys/unix"

// openNoLinks opens the folder rel below dirFd in one system call, the
// kernel refusing any symlink on the way and any escape from dirFd
// (openat2 with RESOLVE_NO_SYMLINKS and RESOLVE_BENEATH, Linux 5.6+). Any
// error sends the caller to walkFolder: a kernel or a seccomp filter
// without openat2 (ENOSYS, EPERM), a missing folder to create, or a link to
// name.
func openNoLinks(dirFd int, rel string) (int, error) {
	return unix.Openat2(dirFd, rel, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
}

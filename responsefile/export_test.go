package responsefile

import "golang.org/x/sys/unix"

// SetFailpoint installs f to be called at each step of the consume path
// (nil removes it); only the tests are built with a way to set it.
func SetFailpoint(f func(step string)) { failpointHook = f }

// Renamers are the no-replace moves that can run on this system: the
// system's own (osRename) and the fallbacks other systems or file systems
// use, so each one's guarantees are tested here.
var Renamers = []string{"os", "link", "check"}

func renamerNamed(name string) renamer {
	switch name {
	case "link":
		return linkRename
	case "check":
		return checkRename
	}
	return osRename
}

// UseRenamer makes a move files in with the renamer named (one of Renamers).
func UseRenamer(a *Archive, name string) *Archive {
	a.move = renamerNamed(name)
	return a
}

// Rename moves from to to (paths) with the renamer named.
func Rename(name, from, to string) error {
	return renamerNamed(name)(unix.AT_FDCWD, from, unix.AT_FDCWD, to)
}

// WalkFolder opens root/rel… as systems without openat2 do, component by
// component, and closes it again.
func WalkFolder(root string, rel []string, create bool) error {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	fd, err = walkFolder(fd, root, rel, create)
	if err == nil {
		unix.Close(fd)
	}
	return err
}

// OpenNoLinks opens root/rel in one call where the system can (openat2 on
// Linux); it is an error elsewhere.
func OpenNoLinks(root, rel string) error {
	fd, err := unix.Open(root, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	nfd, err := openNoLinks(fd, rel)
	if err == nil {
		unix.Close(nfd)
	}
	return err
}

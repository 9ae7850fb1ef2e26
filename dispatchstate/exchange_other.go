//go:build !linux && !darwin

package dispatchstate

// exchange is errNoExchange where golang.org/x/sys has no call that swaps
// two names (FreeBSD, the other BSDs): Rewrite writes through a temporary
// file there.
func exchange(a, b string) error { return errNoExchange }

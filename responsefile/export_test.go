package responsefile

// SetFailpoint installs f to be called at each step of the consume path
// (nil removes it); only the tests are built with a way to set it.
func SetFailpoint(f func(step string)) { failpointHook = f }

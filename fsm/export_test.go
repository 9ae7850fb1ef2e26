package fsm

// ResetTo puts c back to snapshot s without building a new machine, as
// Resume would but without its checks: the exhaustive check clones cores
// millions of times, and a Resume costs a machine built from the table.
func (c *Core) ResetTo(s Snapshot) {
	c.snap = s
	c.consuming = nil
	c.m.SetState(string(s.State))
}

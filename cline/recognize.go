package cline

import "github.com/handoff-fsm/handoff-fsm/screen"

// recognize reports a pane of Cline (the registry matches the pane's
// command by name: the binary is cline): its title is "Cline" until the
// first prompt (then "> " and the prompt, which says nothing of the CLI),
// so its chrome decides: the composer between two rules with Cline's
// footer under it ("○ Plan ● Act (Tab)", "Auto-approve all …"), or its
// permission dialog above that footer.
func recognize(title, capture string) bool {
	if title == "Cline" {
		return true
	}
	r := read(capture)
	return r.sig.Chrome != screen.ChromeNone && r.sig.Footer
}

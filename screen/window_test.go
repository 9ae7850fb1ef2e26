package screen

import "testing"

func TestWindowContainsReleasesNumerically(t *testing.T) {
	w := Window{Oldest: "2.1.300", Newest: "2.1.332"}
	for v, want := range map[string]bool{
		"2.1.300": true, "2.1.330": true, "2.1.332": true,
		"2.1.30":  false, // older: 30 < 300, not a string comparison
		"2.1.299": false, "2.1.333": false, "2.2.0": false,
		"2.1.331-nightly.1": true, "2.1.300-rc.1": false,
		"": false, "unknown": false,
	} {
		if got := w.Contains(v); got != want {
			t.Errorf("%s in %s: %v, want %v", v, w, got, want)
		}
	}
	if (Window{}).Contains("1.0.0") {
		t.Error("an empty window contains nothing")
	}
}

func TestWindowWarnsOnlyOutside(t *testing.T) {
	w := Window{Oldest: "0.150.0", Newest: "0.171.0"}
	if msg := w.Warning("codex", "0.169.0"); msg != "" {
		t.Errorf("warned inside the window: %s", msg)
	}
	if msg := w.Warning("codex", "0.172.0"); msg == "" {
		t.Error("no warning for a newer release")
	}
	if msg := w.Warning("codex", ""); msg == "" {
		t.Error("no warning for an unknown version")
	}
}

func TestParseVersionFindsTheRelease(t *testing.T) {
	for out, want := range map[string]string{
		"2.1.330 (Claude Code)\n":            "2.1.330",
		"codex-cli 0.169.0":                  "0.169.0",
		"0.61.0\n":                           "0.61.0",
		"0.60.0-nightly.20260908.g85aca163f": "0.60.0-nightly.20260908.g85aca163f",
		"no version here":                    "",
	} {
		if got := ParseVersion(out); got != want {
			t.Errorf("ParseVersion(%q) = %q, want %q", out, got, want)
		}
	}
}

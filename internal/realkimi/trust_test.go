package realkimi

import (
	"path/filepath"
	"testing"
)

// The record's name is the one Kimi Code 2.1.0 wrote when it was told to
// trust /tmp/prov40/w on this machine (workspace-trust/wd_w_cd6c32396a09).
func TestTrustRecordIsNamedAsKimiCodeNamesIt(t *testing.T) {
	path, data := TrustRecord("/tmp/prov40/w")
	if want := filepath.Join(".kimi-code", "workspace-trust", "wd_w_cd6c32396a09"); path != want {
		t.Errorf("path %q, want %q", path, want)
	}
	if want := `{"root":"/tmp/prov40/w","trustedAt":1795810726137}`; string(data) != want {
		t.Errorf("data %s, want %s", data, want)
	}
}

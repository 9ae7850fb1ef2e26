package realqwen

import (
	"slices"
	"testing"
)

func TestArgsApprovalMode(t *testing.T) {
	tests := []struct {
		opts Options
		args []string
	}{
		{Options{}, []string{"--yolo"}},
		// Its own default is "auto" (a model judges each call): named.
		{Options{Ask: true}, []string{"--approval-mode", "default"}},
		{Options{Approval: "auto-edit"}, []string{"--approval-mode", "auto-edit"}},
	}
	for _, tc := range tests {
		if got := Args(tc.opts); !slices.Equal(got, tc.args) {
			t.Errorf("%+v: %q, want %q", tc.opts, got, tc.args)
		}
	}
}

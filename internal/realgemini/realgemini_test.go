package realgemini

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
		{Options{Ask: true}, nil},
		{Options{Approval: "auto_edit"}, []string{"--approval-mode", "auto_edit"}},
		{Options{Ask: true, Approval: "auto_edit"}, []string{"--approval-mode", "auto_edit"}},
		{Options{Approval: "default", Model: "m"}, []string{"--model", "m"}},
	}
	for _, tc := range tests {
		if got := Args(tc.opts); !slices.Equal(got, tc.args) {
			t.Errorf("%+v: %q, want %q", tc.opts, got, tc.args)
		}
	}
}

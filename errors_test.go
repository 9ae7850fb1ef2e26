package handoff_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	handoff "github.com/handoff-fsm/handoff-fsm"
)

// A failed wait must be testable with errors.Is (also when wrapped again by
// a caller) and must tell a person what happened to which agent.
func TestWaitErrorIsTestableAndSaysWhatHappened(t *testing.T) {
	for _, tc := range []struct {
		kind error
		name string
	}{
		{handoff.ErrTerminalError, "terminal_error"},
		{handoff.ErrNoResponseFile, "no_response_file"},
		{handoff.ErrTimeout, "timeout"},
	} {
		err := &handoff.WaitError{
			Kind: tc.kind, Role: "tester", State: handoff.IdleGrace,
			LastStatus: handoff.StatusIdle, Elapsed: 9506338086 * time.Nanosecond,
			Detail: "■ stream disconnected",
		}
		wrapped := fmt.Errorf("dispatch 3: %w", err)
		assert.ErrorIs(t, wrapped, tc.kind)
		assert.Equal(t, tc.name, handoff.ErrorKind(wrapped))
		var we *handoff.WaitError
		assert.True(t, errors.As(wrapped, &we))
		assert.Equal(t,
			fmt.Sprintf(`tester: %v after 9.506s (state IdleGrace, last status "idle"): ■ stream disconnected`, tc.kind),
			err.Error())
	}
	assert.Equal(t, "", handoff.ErrorKind(errors.New("something else")))
}

package serve

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/handoff-fsm/handoff-fsm/dispatchstate"
)

// ErrNoDispatch is returned by Load for an id with no state file.
var ErrNoDispatch = errors.New("no such dispatch")

// Load reads one dispatch of the service's state folder, in full (its
// content and its transitions with their evidence), without a running
// service: what explain shows of a finished dispatch.
func Load(stateDir, id string) (View, error) {
	if id == "" || strings.ContainsAny(id, `/\`) || strings.HasPrefix(id, ".") {
		return View{}, fmt.Errorf("%q is not a dispatch id", id)
	}
	st, err := dispatchstate.Read(filepath.Join(stateDir, "dispatches", id+".json"))
	if errors.Is(err, os.ErrNotExist) {
		return View{}, fmt.Errorf("%w: %s in %s", ErrNoDispatch, id, stateDir)
	}
	if err != nil {
		return View{}, err
	}
	return newDispatch(st, "").view(true), nil
}

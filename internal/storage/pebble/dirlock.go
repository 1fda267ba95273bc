package pebble

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
)

// ErrLocked is matched (errors.Is) by the error of an Open whose data
// directory is already open, in another process or this one. The error's
// own message names the directory and, when the system reports it, the
// process: "data directory DIR is in use by another dynago (pid N)".
var ErrLocked = errors.New("data directory is in use")

// lockedError is an error that matches ErrLocked.
type lockedError string

func (e lockedError) Error() string        { return string(e) }
func (e lockedError) Is(target error) bool { return target == ErrLocked }

// locked holds the data directories this process has open, by absolute
// path.
var locked struct {
	sync.Mutex
	dirs map[string]bool
}

// lockInProcess registers dir as open in this process, or fails if it
// already is; the returned function unregisters it.
func lockInProcess(dir string) (release func(), err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	locked.Lock()
	defer locked.Unlock()
	if locked.dirs[abs] {
		return nil, lockedError(fmt.Sprintf("data directory %s is already open in this process", dir))
	}
	if locked.dirs == nil {
		locked.dirs = map[string]bool{}
	}
	locked.dirs[abs] = true
	return func() {
		locked.Lock()
		defer locked.Unlock()
		delete(locked.dirs, abs)
	}, nil
}

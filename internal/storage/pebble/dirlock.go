package pebble

import (
	"fmt"
	"path/filepath"
	"sync"
)

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
		return nil, fmt.Errorf("%w: data directory %s is already open in this process", ErrLocked, dir)
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

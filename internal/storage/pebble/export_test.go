package pebble

import "time"

// SetOpenGiveUp sets openGiveUp for a test and returns the function that
// restores it.
func SetOpenGiveUp(d time.Duration) (restore func()) {
	old := openGiveUp
	openGiveUp = d
	return func() { openGiveUp = old }
}

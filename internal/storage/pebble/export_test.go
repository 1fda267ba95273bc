package pebble

import "time"

// SetOpenGiveUp sets openGiveUp for a test and returns the function that
// restores it.
func SetOpenGiveUp(d time.Duration) (restore func()) {
	old := openGiveUp
	openGiveUp = d
	return func() { openGiveUp = old }
}

// Flushes returns how many memtable flushes the current instance has run
// (Pebble's Metrics().Flush.Count).
func (s *Store) Flushes() int64 { return s.cur.Load().db.Metrics().Flush.Count }

// MemTables returns how many memtables are allocated, the one Pebble keeps
// for reuse included (Metrics().MemTable.Count).
func (s *Store) MemTables() int64 { return s.cur.Load().db.Metrics().MemTable.Count }

// MemTableBytes returns the bytes allocated to memtables (Metrics().MemTable.Size).
func (s *Store) MemTableBytes() uint64 { return s.cur.Load().db.Metrics().MemTable.Size }

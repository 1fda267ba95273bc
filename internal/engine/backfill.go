package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// Online index creation.
//
// A GSI added by UpdateTable is in the catalog from the start, so every
// write after that commit maintains it. The backfill adds entries for the
// items that were already there: it walks the table in batches, each one
// transaction that re-reads its items with Get (joining the read set), so
// a batch that races a write to one of its items conflicts and is redone,
// at half the size, rather than indexing a stale version: on a busy table
// batches shrink until they slip between writes, so the backfill always
// progresses. Batches also read the
// catalog, so a batch cannot outlive its index being deleted. Items whose
// index key attributes have the wrong type or an empty value are skipped,
// as DynamoDB skips them. When the walk ends, the index's Backfilling
// flag is cleared and it becomes ACTIVE (after the engine's CreateDelay).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.OnlineOps.html

// backfillBatch is how many items one backfill transaction indexes at
// most; a batch that meets a conflicting write is redone at half the
// size (down to one item), and sizes grow back after successes.
const backfillBatch = 256

var errIndexGone = errors.New("engine: index no longer exists")

// backfillLease is the lease a node holds on an index while it
// backfills it; other nodes look for backfills to resume twice as often.
const backfillLease = 30 * time.Second

// backfillDuty names the lease of one index's backfill.
func backfillDuty(table uint64, ixNum uint16) string {
	return fmt.Sprintf("backfill/%d/%d", table, ixNum)
}

// startBackfill fills index number ixNum of table name in the
// background, if this node can take its lease and does not run it
// already; Close stops it.
func (e *Engine) startBackfill(name string, table uint64, ixNum uint16) {
	duty := backfillDuty(table, ixNum)
	running := func() bool {
		e.backfillsMu.Lock()
		defer e.backfillsMu.Unlock()
		if e.backfills == nil {
			e.backfills = map[string]bool{}
		}
		running := e.backfills[duty]
		e.backfills[duty] = true
		return running
	}()
	if running {
		return
	}
	e.bg.Add(1)
	go func() {
		defer e.bg.Done()
		defer func() {
			e.backfillsMu.Lock()
			defer e.backfillsMu.Unlock()
			delete(e.backfills, duty)
		}()
		held, err := e.holdLease(e.bgCtx, duty, backfillLease)
		if err == nil && held {
			err = e.backfill(e.bgCtx, name, table, ixNum)
			if e.bgCtx.Err() == nil {
				e.releaseLease(e.bgCtx, duty)
			}
		}
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, errIndexGone) && !errors.Is(err, errLeaseLost) {
			e.opts.Logger.Error("index backfill failed", "table", name, "index", ixNum, "err", err)
		}
	}()
}

// errLeaseLost ends a backfill whose lease another node took.
var errLeaseLost = errors.New("engine: backfill lease taken by another node")

// resumeBackfills starts the backfills no node is running: those a
// previous process left unfinished, or another node stopped running.
func (e *Engine) resumeBackfills(ctx context.Context) {
	tables, err := e.allTables(ctx)
	var pending []*catalog.Table
	for _, t := range tables {
		if indexChanging(t) {
			pending = append(pending, t)
		}
	}
	if err != nil {
		if !errors.Is(err, context.Canceled) {
			e.opts.Logger.Error("resume index backfills", "err", err)
		}
		return
	}
	for _, t := range pending {
		for _, ix := range t.GSIs {
			if ix.Backfilling {
				e.startBackfill(t.Name, t.Number, ix.Number)
			}
		}
	}
}

// backfill runs one index's backfill to the end.
func (e *Engine) backfill(ctx context.Context, name string, table uint64, ixNum uint16) error {
	lo, hi := keycodec.SpaceBounds(keycodec.Space{Table: table})
	start := lo
	batch := backfillBatch
	renewed := time.Now() // wallclock: the lease expires by the wall clock (holdLease), so it is renewed by it
	for start != nil {
		if time.Since(renewed) > backfillLease/3 { // wallclock: renewal falls due by the lease's clock, the wall clock
			held, err := e.holdLease(ctx, backfillDuty(table, ixNum), backfillLease)
			if err != nil {
				return err
			}
			if !held {
				return errLeaseLost
			}
			renewed = time.Now() // wallclock: when the lease was renewed, by the lease's clock
		}
		var next []byte
		err := e.attempt(ctx, func(tx storage.Txn) error {
			t, ix, err := e.backfillTarget(tx, name, table, ixNum)
			if err != nil {
				return err
			}
			it, err := tx.Scan(start, hi, false)
			if err != nil {
				return fmt.Errorf("backfill of %s: scan: %w", name, err)
			}
			var keys [][]byte
			for len(keys) < batch && it.Next() {
				keys = append(keys, append([]byte(nil), it.Key()...))
			}
			if err := it.Close(); err != nil {
				return err
			}
			next = nil
			if len(keys) == batch {
				next = successor(keys[len(keys)-1])
			}
			for _, k := range keys {
				v, err := readVersion(tx, k, true)
				if err != nil {
					return err
				}
				if !v.exists {
					continue
				}
				entry, ok, err := entryFor(t, ix, v.item, v.stored, v.size)
				if err != nil || !ok {
					continue // not indexable: skipped, as DynamoDB does
				}
				if err := tx.Set(entry.key, entry.value); err != nil {
					return err
				}
			}
			return nil
		})
		switch {
		case errors.Is(err, storage.ErrConflict):
			// A write hit an item of the batch: redo it smaller, so that
			// the backfill progresses however busy the table is.
			batch = max(batch/2, 1)
			continue
		case err != nil:
			return err
		}
		batch = min(batch*2, backfillBatch)
		start = next
	}
	var ixName string
	err := e.update(ctx, func(tx storage.Txn) error {
		t, _, err := catalog.Get(tx, name)
		if err != nil {
			return err
		}
		for _, ix := range t.GSIs {
			if t.Number == table && ix.Number == ixNum {
				ix.Backfilling, ixName = false, ix.Name
				return catalog.Put(tx, t)
			}
		}
		return errIndexGone
	})
	if err == nil {
		e.forgetStats(table)
		e.opts.Logger.Info("index backfilled", "table", name, "index", ixName)
	}
	return err
}

// backfillTarget returns the table and the index being filled, or
// errIndexGone.
func (e *Engine) backfillTarget(tx storage.Txn, name string, table uint64, ixNum uint16) (*catalog.Table, *catalog.Index, error) {
	t, err := e.lookup(tx, name)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, nil, errIndexGone
	}
	if err != nil {
		return nil, nil, err
	}
	if t.Number != table {
		return nil, nil, errIndexGone
	}
	for _, ix := range t.GSIs {
		if ix.Number == ixNum {
			return t, ix, nil
		}
	}
	return nil, nil, errIndexGone
}

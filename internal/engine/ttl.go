package engine

import (
	"context"
	"fmt"
	"math/big"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// Time to Live.
//
// UpdateTimeToLive records the setting in the table's catalog entry;
// DescribeTimeToLive reports it. A background sweeper (Options.TTLSweep,
// every few seconds by default in dynago serve instead of DynamoDB's
// hours, because this runs on developers' machines) deletes items whose
// TTL attribute is a Number of epoch seconds in the past, ignoring other
// types and values more than five years old, as DynamoDB does. Each
// deletion goes through the normal delete path in its own transaction,
// which re-checks the item is still expired, so indexes stay exact and a
// concurrent rewrite of the item wins. Until it is swept an expired item
// is still returned by reads, as in DynamoDB.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/TTL.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/time-to-live-ttl-how-to.html

// ttlIgnoreAge: TTL values further in the past than this are not expired
// by DynamoDB (they are taken for mistakes, e.g. milliseconds).
const ttlIgnoreAge = 5 * 365 * 24 * time.Hour

// UpdateTimeToLive enables or disables TTL on a table.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateTimeToLive.html
func (e *Engine) UpdateTimeToLive(ctx context.Context, in *api.UpdateTimeToLiveInput) (*api.UpdateTimeToLiveOutput, error) {
	name, attrName, enable := *in.TableName, *in.Spec.AttributeName, *in.Spec.Enabled
	err := e.update(ctx, func(tx storage.Txn) error {
		t, err := tableToChange(tx, name)
		if err != nil {
			return err
		}
		now := e.opts.Now()
		if t.Status(now) == catalog.StatusCreating {
			return ddberr.New(ddberr.ResourceInUseException, "Attempt to change a resource which is still in use: Table "+name+" is being created")
		}
		if err := checkTTLChange(t.TTL, attrName, enable, now); err != nil {
			return err
		}
		t.TTL = &catalog.TTL{AttributeName: attrName, Toggle: catalog.NewToggle(enable, now, e.opts.CreateDelay)}
		return catalog.Put(tx, t)
	})
	if err != nil {
		return nil, err
	}
	return &api.UpdateTimeToLiveOutput{AttributeName: attrName, Enabled: enable}, nil
}

// checkTTLChange applies DynamoDB's rules for changing TTL: enabling
// twice or disabling when disabled is an error, and so is a change while
// the previous one is still settling.
//
// Messages: docs/research-ttl.md.
func checkTTLChange(cur *catalog.TTL, attrName string, enable bool, now time.Time) error {
	on := cur != nil && cur.Enabled
	switch {
	case on && cur.AttributeName != attrName:
		return ddberr.Validation("TimeToLive is active on a different AttributeName: current AttributeName is " + cur.AttributeName)
	case on && enable:
		return ddberr.Validation("TimeToLive is already enabled")
	case !on && !enable:
		return ddberr.Validation("TimeToLive is already disabled")
	}
	// The cooldown after a change: dynago's lasts the engine's
	// CreateDelay (none by default), DynamoDB's up to an hour.
	if s := cur.Status(now); s == catalog.TTLEnabling || s == catalog.TTLDisabling {
		return ddberr.Validation("Time to live has been modified multiple times within a fixed interval")
	}
	return nil
}

// DescribeTimeToLive reports a table's TTL status and attribute.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_DescribeTimeToLive.html
func (e *Engine) DescribeTimeToLive(ctx context.Context, in *api.DescribeTimeToLiveInput) (*api.DescribeTimeToLiveOutput, error) {
	t, err := e.namedTable(ctx, *in.TableName)
	if err != nil {
		return nil, err
	}
	if s := t.Status(e.opts.Now()); s != catalog.StatusActive {
		return nil, ddberr.Validation("Cannot describe time to live while table is in " + s + " state: Current table state is " + s)
	}
	out := &api.DescribeTimeToLiveOutput{Status: t.TTL.Status(e.opts.Now())}
	if out.Status != catalog.TTLDisabled {
		out.AttributeName = t.TTL.AttributeName
	}
	return out, nil
}

// expired reports whether item has expired under TTL attribute name at
// now: a Number of epoch seconds in the past, but not more than five
// years in the past.
func expired(item attr.Item, name string, now time.Time) bool {
	v, ok := item[name]
	if !ok || v.Kind() != attr.N {
		return false
	}
	f, _, err := big.ParseFloat(v.Text(), 10, 64, big.ToNearestEven)
	if err != nil {
		return false
	}
	secs, _ := f.Float64()
	age := float64(now.UnixNano())/1e9 - secs
	return age > 0 && age <= ttlIgnoreAge.Seconds()
}

// sweepTTL deletes the expired items of every table with TTL enabled,
// and returns how many it deleted.
func (e *Engine) sweepTTL(ctx context.Context) (int, error) {
	tables, err := e.allTables(ctx)
	if err != nil {
		return 0, err
	}
	deleted := 0
	for _, t := range tables {
		if t.TTL == nil || !t.TTL.Enabled || t.Status(e.opts.Now()) != catalog.StatusActive {
			continue
		}
		n, err := e.sweepTable(ctx, t)
		deleted += n
		if err != nil {
			return deleted, err
		}
	}
	return deleted, nil
}

// sweepTable deletes one table's expired items: each a change on the
// write path (write.go) by the TTL service, in its own transaction.
func (e *Engine) sweepTable(ctx context.Context, t *catalog.Table) (int, error) {
	now := e.opts.Now()
	var keys []tableKey
	err := e.read(ctx, func(tx storage.Txn) error {
		lo, hi := keycodec.SpaceBounds(space(t))
		it, err := tx.Scan(lo, hi, false)
		if err != nil {
			return fmt.Errorf("TTL sweep of %s: scan: %w", t.Name, err)
		}
		defer it.Close()
		for it.Next() {
			item, _, err := decodeStored(it.Value())
			if err != nil {
				return err
			}
			if expired(item, t.TTL.AttributeName, now) {
				keys = append(keys, itemTableKey(t, item))
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	deleted := 0
	for _, k := range keys {
		gone := false
		err := e.update(ctx, func(tx storage.Txn) error {
			gone = false
			cur, err := e.activeTable(tx, t.Name)
			if err != nil || cur.Number != t.Number || cur.TTL == nil || !cur.TTL.Enabled {
				return err
			}
			c := change{t: cur, tk: k, key: storageKey(cur, k), by: byTTL}
			if err := c.readOld(tx, true); err != nil || !c.old.exists || !expired(c.old.item, cur.TTL.AttributeName, e.opts.Now()) {
				return err // rewritten or deleted since the scan
			}
			if _, err := e.apply(tx, &c, false); err != nil {
				return err
			}
			gone = true
			return nil
		})
		if err != nil {
			return deleted, err
		}
		if gone {
			deleted++
		}
	}
	return deleted, nil
}

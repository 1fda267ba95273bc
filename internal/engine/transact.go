package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
	"github.com/dynago/dynago/internal/wire"
)

// Transactions.
//
// A TransactWriteItems is one storage transaction: every action's item is
// read with Get (joining the read set), every condition is evaluated, and
// either all writes (with their index entries) commit together or none
// is made. Commit fails with a conflict if any item read was changed by a
// commit after the transaction began; the whole transaction is then
// retried from the start, so committed transactions are serializable with
// each other and with single-item writes, which run the same way. There
// are no locks, hence no lock order and no deadlock: conflicts are
// detected at commit, and a transaction that keeps losing is cancelled
// with TransactionConflict after the engine's retry budget.
//
// DynamoDB answers a single-item write that collides with an in-flight
// transaction with TransactionConflictException, and cancels a
// transaction that collides with another one (reason TransactionConflict
// on the contended items). dynago records, for each item a transaction
// writes or checks, the time of that commit (the table's reserved key
// space keycodec.Space{Index: 0xFFFD}, see txnMarkSpace); a write whose
// commit conflicts, and whose item a transaction committed since the
// write began, fails that way instead of retrying. A transaction that
// loses to single-item writes is retried.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html

// Capacity: transactional reads and writes cost twice the plain ones.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-capacity-handling
const transactionalFactor = 2

// clientTokenTTL is how long a ClientRequestToken makes a
// TransactWriteItems idempotent.
const clientTokenTTL = 10 * time.Minute

// txnAction is one resolved action of a TransactWriteItems.
type txnAction struct {
	kind   string // ConditionCheck, Put, Delete, Update
	w      *api.CommonWrite
	t      *catalog.Table
	tk     tableKey
	key    []byte
	old    oldItem
	oldSz  int
	item   attr.Item // the new item (Put, Update)
	stored []byte
	size   int
	update *api.UpdateItemInput
	// charged is what the write cost the table's indexes.
	charged indexChange
	// fatal is an error of the action that rejects the whole request
	// rather than cancelling it (an update that empties an index key).
	fatal error
}

// TransactWriteItems applies up to 100 actions atomically, or none when an
// action cannot apply (TransactionCanceledException with a reason per
// action, in order).
//
// DynamoDB's order of checks (docs/research-transactions.md §2): the
// request's static checks (api), then every table, the 4 MB payload and
// duplicate targets, then per action in order: a key of the wrong shape
// or an update that cannot apply is a ValidationError reason and ends
// the evaluation (later actions report None); failed conditions are all
// reported.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html
func (e *Engine) TransactWriteItems(ctx context.Context, in *api.TransactWriteItemsInput) (*api.TransactWriteItemsOutput, error) {
	var out *api.TransactWriteItemsOutput
	var attempt []txnAction // the last attempt's actions, for the conflict hook
	var demands []throttle.Demand
	conflict := func(began time.Time) error {
		// Lost to another transaction on one of the items: DynamoDB
		// cancels, naming those items TransactionConflict. Lost to a
		// single-item write: try again.
		reasons := make([]cancelReason, len(in.TransactItems))
		lost := false
		for i := range attempt {
			if a := &attempt[i]; a.key != nil && e.transactionSince(ctx, a.t, a.key, began) {
				reasons[i] = cancelReason{code: "TransactionConflict", message: "Transaction is ongoing for the item"}
				lost = true
			}
		}
		if lost {
			return cancelled(reasons)
		}
		return nil
	}
	err := e.updateChecked(ctx, func(tx storage.Txn) error {
		out = &api.TransactWriteItemsOutput{}
		attempt = nil
		now := e.opts.Now()
		var tokenKey []byte
		replay := false
		if in.ClientRequestToken != nil {
			tokenKey = clientTokenKey(*in.ClientRequestToken)
			prev, ok, err := readToken(tx, tokenKey)
			if err != nil {
				return err
			}
			if ok && now.Sub(prev.at) < clientTokenTTL {
				if prev.fingerprint != in.Fingerprint {
					return ddberr.New(ddberr.IdempotentParameterMismatchException,
						"DynamoDB rejected the request because you retried a request with a different payload but with an idempotent token that was already used.")
				}
				replay = true
			}
		}
		actions, reasons, err := e.resolveActions(tx, in)
		if err != nil {
			return err
		}
		attempt = actions
		if replay {
			// The transaction already committed: nothing is written again,
			// and the capacity reported is that of reading the items.
			out.ConsumedCapacity = transactCapacity(in.ReturnConsumedCapacity, actions, func(a *txnAction) (float64, float64, []indexUnits) {
				return transactionalFactor * readUnits(a.oldSz, true), 0, nil
			})
			return nil
		}
		failed := false
		demands = demands[:0]
		for i := range actions {
			a := &actions[i]
			if reasons[i].code == "" && e.limiter != nil {
				// A throttled action cancels the transaction.
				if err := e.admit(ctx, a.t, tableDemand(a.t, a.tk, true, 0)); err != nil {
					reasons[i] = throttleReason(err)
				}
			}
			if reasons[i].code == "" {
				if r, ok := a.evaluate(); !ok {
					if a.fatal != nil {
						return a.fatal
					}
					reasons[i] = r
				}
			}
			if reasons[i].code != "" {
				failed = true
				if reasons[i].code == "ValidationError" {
					// The first ValidationError ends the evaluation.
					for k := i + 1; k < len(reasons); k++ {
						reasons[k] = cancelReason{}
					}
					break
				}
			}
		}
		if failed {
			return cancelled(reasons)
		}
		metrics := map[string][][]byte{}
		for i := range actions {
			a := &actions[i]
			var m []byte
			switch a.kind {
			case "Put", "Update":
				if a.item == nil {
					break // an Update that only removes, on no item
				}
				if err = tx.Set(a.key, a.stored); err == nil {
					m, a.charged, err = e.maintain(tx, a.t, a.tk, a.old, a.oldSz, a.item, a.stored, a.size, wantsMetrics(in))
				}
			case "Delete":
				if a.old.exists {
					if err = tx.Delete(a.key); err == nil {
						m, a.charged, err = e.maintain(tx, a.t, a.tk, a.old, a.oldSz, nil, nil, 0, wantsMetrics(in))
					}
				}
			}
			if err != nil {
				if de, ok := ddberr.As(err); ok && de.Code == ddberr.ItemCollectionSizeLimitExceededException {
					reasons[i] = cancelReason{code: "ItemCollectionSizeLimitExceeded", message: "Collection size exceeded"}
					return cancelled(reasons)
				}
				return err
			}
			if m != nil {
				metrics[a.t.Name] = append(metrics[a.t.Name], m)
			}
		}
		// Marks carry the time just before commit, so that a single-item
		// write that began before it and then conflicts can tell.
		marked := e.opts.Now()
		for i := range actions {
			if err := markTransactional(tx, actions[i].t, actions[i].key, marked); err != nil {
				return err
			}
		}
		out.ConsumedCapacity = transactCapacity(in.ReturnConsumedCapacity, actions, func(a *txnAction) (float64, float64, []indexUnits) {
			return 0, transactionalFactor * writeUnits(max(a.size, a.oldSz)), a.charged.units
		})
		for i := range actions {
			a := &actions[i]
			gsi, lsiUnits := indexDemands(a.t, a.charged)
			demands = append(append(demands, tableDemand(a.t, a.tk, true, transactionalFactor*writeUnits(max(a.size, a.oldSz))+lsiUnits)), gsi...)
		}
		if len(metrics) > 0 {
			out.ItemCollectionMetrics = metrics
		}
		if tokenKey != nil {
			return writeToken(tx, tokenKey, token{fingerprint: in.Fingerprint, at: now})
		}
		return nil
	}, conflict)
	if err == nil {
		e.charge(demands)
	}
	var de *ddberr.Error
	if errors.As(err, &de) && de.Code == ddberr.TransactionConflictException {
		// The retry budget ran out: other writers kept changing these
		// items. DynamoDB cancels such a transaction.
		reasons := make([]cancelReason, len(in.TransactItems))
		for i := range reasons {
			reasons[i] = cancelReason{code: "TransactionConflict", message: "Transaction is ongoing for the item"}
		}
		return nil, cancelled(reasons)
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// transactCapacity sums the capacity of actions per table, in order of
// first appearance; units returns an action's read and write units and
// its index writes (already doubled where due).
func transactCapacity(mode *string, actions []txnAction, units func(*txnAction) (read, write float64, idx []indexUnits)) []*api.ConsumedCapacity {
	if !wantsCapacity(mode) {
		return nil
	}
	var list []*api.ConsumedCapacity
	byTable := map[string]*api.ConsumedCapacity{}
	for i := range actions {
		a := &actions[i]
		c, ok := byTable[a.t.Name]
		if !ok {
			c = consumed(mode, a.t.Name, 0, 0)
			c.Split = true
			byTable[a.t.Name] = c
			list = append(list, c)
		}
		r, w, idx := units(a)
		c.ReadUnits += r
		c.WriteUnits += w
		c.TableUnits += r + w
		c.CapacityUnits += r + w
		// Index writes in a transaction are not doubled
		// (docs/research-capacity.md §3.5).
		for _, u := range idx {
			c.AddIndex(u.name, u.local, u.units)
		}
	}
	return list
}

func wantsMetrics(in *api.TransactWriteItemsInput) bool {
	return in.ReturnItemCollectionMetrics != nil && *in.ReturnItemCollectionMetrics == "SIZE"
}

// resolveActions resolves each action's table and key and reads its item.
// Errors that reject the whole request are returned as err; a key that
// does not fit its table's schema is that action's ValidationError
// reason.
func (e *Engine) resolveActions(tx storage.Txn, in *api.TransactWriteItemsInput) ([]txnAction, []cancelReason, error) {
	actions := make([]txnAction, len(in.TransactItems))
	reasons := make([]cancelReason, len(in.TransactItems))
	for i := range in.TransactItems {
		a := &actions[i]
		a.w = in.TransactItems[i].Common()
		t, err := e.activeTable(tx, *a.w.TableName)
		if err != nil {
			return nil, nil, err
		}
		a.t = t
	}
	seen := map[string]bool{}
	for i := range in.TransactItems {
		it := &in.TransactItems[i]
		a := &actions[i]
		var keyItem attr.Item
		style := keyOfKey
		switch {
		case it.ConditionCheck != nil:
			a.kind, keyItem = "ConditionCheck", it.ConditionCheck.Key
		case it.Put != nil:
			a.kind, keyItem, style = "Put", it.Put.Item, keyOfItem
			a.item = it.Put.Item
			a.size = a.item.Size()
			if err := checkItemSize(a.size); err != nil {
				return nil, nil, err
			}
		case it.Delete != nil:
			a.kind, keyItem = "Delete", it.Delete.Key
		case it.Update != nil:
			a.kind, keyItem, a.update = "Update", it.Update.Key, it.Update
			if err := checkKeyUnchanged(a.t, it.Update); err != nil {
				return nil, nil, err
			}
		}
		tk, err := extractKey(a.t, keyItem, style)
		if err != nil {
			if isEmptyKeyError(err) {
				return nil, nil, err
			}
			reasons[i] = validationReason(err)
			continue
		}
		if a.kind == "Put" && hasIndexes(a.t) {
			if err := checkIndexKeys(a.t, a.item, false); err != nil {
				if isEmptyKeyError(err) {
					return nil, nil, err
				}
				reasons[i] = validationReason(err)
			}
		}
		a.tk, a.key = tk, storageKey(a.t, tk)
		if seen[string(a.key)] {
			return nil, nil, ddberr.Validation("Transaction request cannot include multiple operations on one item")
		}
		seen[string(a.key)] = true
	}
	for i := range actions {
		a := &actions[i]
		if a.key == nil {
			continue
		}
		var err error
		if a.old, a.oldSz, err = readOld(tx, a.key, true); err != nil {
			return nil, nil, err
		}
	}
	return actions, reasons, nil
}

// validationReason turns a validation error into a ValidationError
// cancellation reason.
func validationReason(err error) cancelReason {
	msg := err.Error()
	if de, ok := ddberr.As(err); ok {
		msg = de.Message
	}
	return cancelReason{code: "ValidationError", message: msg}
}

// cancelReason is one entry of CancellationReasons.
type cancelReason struct {
	code    string // "" means None
	message string
	item    []byte // the item's JSON (ReturnValuesOnConditionCheckFailure=ALL_OLD)
}

// evaluate checks the action's condition and computes its new item. A
// failed condition, or an update that cannot apply to this item, is the
// action's cancellation reason.
func (a *txnAction) evaluate() (cancelReason, bool) {
	if cond := a.w.Condition; cond != nil {
		var item attr.Item
		if a.old.exists {
			item = a.old.item
		}
		if !eval.Condition(cond, item) {
			r := cancelReason{code: "ConditionalCheckFailed", message: "The conditional request failed"}
			if a.w.ReturnOldOnConditionFailure() && a.old.exists {
				r.item = a.old.json
			}
			return r, false
		}
	}
	switch a.kind {
	case "Put":
		a.stored = encodeItem(a.item, a.size)
	case "Update":
		item, _, size, err := applyUpdate(a.t, a.update, a.old)
		if err != nil {
			if isEmptyKeyError(err) {
				// Source: docs/research-transactions.md §2 ("Update: SET
				// index key to an empty string": whole request).
				a.fatal = err
			}
			return validationReason(err), false
		}
		if item != nil {
			a.item, a.size, a.stored = item, size, encodeItem(item, size)
		}
	default: // ConditionCheck, Delete
		a.size = 0
	}
	return cancelReason{}, true
}

// cancelled returns DynamoDB's TransactionCanceledException for reasons.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
func cancelled(reasons []cancelReason) error {
	codes := make([]string, len(reasons))
	list := []byte{'['}
	for i, r := range reasons {
		code := r.code
		if code == "" {
			code = "None"
		}
		codes[i] = code
		if i > 0 {
			list = append(list, ',')
		}
		list = append(list, `{"Code":`...)
		list = wire.AppendString(list, code)
		if r.message != "" {
			list = append(list, `,"Message":`...)
			list = wire.AppendString(list, r.message)
		}
		if r.item != nil {
			list = append(list, `,"Item":`...)
			list = append(list, r.item...)
		}
		list = append(list, '}')
	}
	list = append(list, ']')
	err := ddberr.New(ddberr.TransactionCanceledException,
		"Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]")
	err.Fields = map[string][]byte{"CancellationReasons": list}
	return err
}

// Client request tokens live at "x/<token>": the request's fingerprint
// (32 bytes) and the commit time (Unix ns, 8 bytes BE).
// They are written in the transaction they record, so a token exists if
// and only if its transaction committed.
type token struct {
	fingerprint [32]byte
	at          time.Time
}

func clientTokenKey(t string) []byte { return append([]byte("x/"), t...) }

func readToken(tx storage.Txn, key []byte) (token, bool, error) {
	raw, err := tx.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return token{}, false, nil
	}
	if err != nil {
		return token{}, false, err
	}
	if len(raw) < 40 {
		return token{}, false, errors.New("engine: corrupt client request token")
	}
	var t token
	copy(t.fingerprint[:], raw)
	t.at = time.Unix(0, int64(binary.BigEndian.Uint64(raw[32:])))
	return t, true, nil
}

func writeToken(tx storage.Txn, key []byte, t token) error {
	v := append([]byte(nil), t.fingerprint[:]...)
	return tx.Set(key, binary.BigEndian.AppendUint64(v, uint64(t.at.UnixNano())))
}

// txnMarkSpace is the table's reserved key space of transaction marks:
// per item a transaction wrote or checked, the time of its commit.
func txnMarkSpace(t *catalog.Table) keycodec.Space {
	return keycodec.Space{Table: t.Number, Index: catalog.MaxIndexNumber + 1}
}

// markKey returns the transaction-mark key of the item at key.
func markKey(t *catalog.Table, key []byte) []byte {
	n := len(keycodec.AppendSpace(nil, space(t)))
	return append(keycodec.AppendSpace(nil, txnMarkSpace(t)), key[n:]...)
}

func markTransactional(tx storage.Txn, t *catalog.Table, key []byte, now time.Time) error {
	return tx.Set(markKey(t, key), binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano())))
}

// transactionSince reports whether a transaction committed a change to
// (or a check of) the item at key at or after since.
func (e *Engine) transactionSince(ctx context.Context, t *catalog.Table, key []byte, since time.Time) bool {
	found := false
	e.read(ctx, func(tx storage.Txn) error {
		raw, err := tx.Get(markKey(t, key))
		if err == nil && len(raw) == 8 && int64(binary.BigEndian.Uint64(raw)) >= since.UnixNano() {
			found = true
		}
		return nil
	})
	return found
}

// errTransactionConflict is a single-item write's answer when it collides
// with a transaction on the same item.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling
func errTransactionConflict() error {
	return ddberr.New(ddberr.TransactionConflictException, "Transaction is ongoing for the item")
}

// TransactGetItems reads up to 100 items from one snapshot of the store:
// the items are returned as they all were at one instant.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactGetItems.html
func (e *Engine) TransactGetItems(ctx context.Context, in *api.TransactGetItemsInput) (*api.TransactGetItemsOutput, error) {
	tx, err := e.store.Begin(ctx, storage.Snapshot)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	out := &api.TransactGetItemsOutput{Responses: make([][]byte, len(in.Gets))}
	tables := make([]*catalog.Table, len(in.Gets))
	sizes := make([]int, len(in.Gets)) // for throttling's charge
	for i, g := range in.Gets {
		if tables[i], err = e.activeTable(tx, *g.TableName); err != nil {
			return nil, err
		}
	}
	keys := make([][]byte, len(in.Gets))
	reasons := make([]cancelReason, len(in.Gets))
	failed := false
	seen := map[string]bool{}
	for i, g := range in.Gets {
		k, err := extractKey(tables[i], g.Key, keyOfKey)
		if err != nil {
			if isEmptyKeyError(err) {
				return nil, err
			}
			if !failed {
				reasons[i], failed = validationReason(err), true
			}
			continue
		}
		keys[i] = storageKey(tables[i], k)
		if seen[string(keys[i])] {
			return nil, ddberr.Validation("Transaction request cannot include multiple operations on one item")
		}
		seen[string(keys[i])] = true
	}
	// A throttled Get cancels the transaction.
	tks := make([]tableKey, len(in.Gets))
	for i, g := range in.Gets {
		tks[i], _ = extractKey(tables[i], g.Key, keyOfKey) // checked above
		if err := e.admitIf(ctx, tables[i], func() throttle.Demand { return tableDemand(tables[i], tks[i], false, 0) }); err != nil {
			reasons[i], failed = throttleReason(err), true
		}
	}
	if !failed {
		defer func() {
			var ds []throttle.Demand
			for i := range in.Gets {
				ds = append(ds, tableDemand(tables[i], tks[i], false, transactionalFactor*readUnits(sizes[i], true)))
			}
			e.charge(ds)
		}()
	}
	if failed {
		return nil, cancelled(reasons)
	}
	capacity := map[string]*api.ConsumedCapacity{}
	total := 0
	for i, g := range in.Gets {
		t, key := tables[i], keys[i]
		raw, err := tx.Get(key)
		size := 0
		switch {
		case errors.Is(err, storage.ErrNotFound):
		case err != nil:
			return nil, err
		default:
			var js []byte
			if size, js, err = splitItem(raw); err != nil {
				return nil, err
			}
			sizes[i] = size
			if total += size; total > api.MaxTransactBytes {
				// Source: API_TransactGetItems ("The aggregate size of the
				// items in the transaction exceeded 4 MB"); the exact
				// message is not known.
				return nil, ddberr.Validation("The aggregate size of the items in the transaction exceeded 4 MB")
			}
			if out.Responses[i], err = projectJSON(js, g.Projection); err != nil {
				return nil, err
			}
		}
		c, ok := capacity[t.Name]
		if !ok {
			if c = consumed(in.ReturnConsumedCapacity, t.Name, 0, 0); c != nil {
				c.Split = true
				capacity[t.Name] = c
				out.ConsumedCapacity = append(out.ConsumedCapacity, c)
			}
		}
		if c != nil {
			units := transactionalFactor * readUnits(size, true)
			c.ReadUnits += units
			c.TableUnits += units
			c.CapacityUnits += units
		}
	}
	return out, nil
}

// itemTarget is the item a single-item write works on: its table and
// storage key, recorded by the write for its conflict check.
type itemTarget struct {
	t   *catalog.Table
	key []byte
}

// updateItem runs a single-item write (PutItem, UpdateItem, DeleteItem)
// like update; fn records the item it writes in *target. A collision
// with a transaction that committed on that item since the attempt began
// is TransactionConflictException, as in DynamoDB, instead of a retry.
func (e *Engine) updateItem(ctx context.Context, target *itemTarget, fn func(tx storage.Txn) error) error {
	return e.updateChecked(ctx, fn, func(began time.Time) error {
		if target.t != nil && e.transactionSince(ctx, target.t, target.key, began) {
			return errTransactionConflict()
		}
		return nil
	})
}

package engine

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/storage"
	"github.com/dynago/dynago/internal/throttle"
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

// txnAction is one action of a TransactWriteItems: its kind, its
// request's parameters and the change it makes (for a ConditionCheck,
// none: the change's versions are the item as read).
type txnAction struct {
	kind   string // ConditionCheck, Put, Delete, Update
	w      *api.CommonWrite
	update *api.UpdateItemInput // an Update's request
	c      change
	// applied is what the write did to its table's indexes.
	applied applied
	// fatal is an error of the action that rejects the whole request
	// rather than cancelling it (an update that empties an index key).
	fatal error
}

// txnAttempt is one attempt at a TransactWriteItems: the actions it
// resolved (the conflict check after a failed commit looks at their
// items), and what it answers and charges if it commits.
type txnAttempt struct {
	actions []txnAction
	out     *api.TransactWriteItemsOutput
	demands []throttle.Demand
}

// TransactWriteItems applies up to 100 actions atomically, or none when an
// action cannot apply (TransactionCanceledException with a reason per
// action, in order). Each action is a change on the write path
// (write.go); all of them, their index entries and stream records, and
// the client request token commit in one storage transaction.
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
	var attempt *txnAttempt // the attempt under way, or the one whose commit just conflicted
	err := e.updateChecked(ctx, func(tx storage.Txn) error {
		attempt = &txnAttempt{}
		return e.transactAttempt(ctx, tx, in, attempt)
	}, func(began time.Time) error {
		return e.lostToTransaction(ctx, attempt.actions, began)
	})
	if ddberr.Is(err, ddberr.TransactionConflictException) {
		// The retry budget ran out: other writers kept changing these
		// items. DynamoDB cancels such a transaction.
		reasons := make([]ddberr.CancellationReason, len(in.TransactItems))
		for i := range reasons {
			reasons[i] = conflictReason
		}
		return nil, cancelled(reasons)
	}
	if err != nil {
		return nil, err
	}
	e.charge(attempt.demands)
	return attempt.out, nil
}

// conflictReason is the cancellation reason of an item another
// transaction is changing.
var conflictReason = ddberr.CancellationReason{Code: "TransactionConflict", Message: "Transaction is ongoing for the item"}

// lostToTransaction is the conflict check of a transaction whose commit
// conflicted: lost to another transaction on one of its items (one that
// committed on it since the attempt began), DynamoDB cancels it, naming
// those items TransactionConflict; lost to single-item writes, it is
// tried again (nil).
func (e *Engine) lostToTransaction(ctx context.Context, actions []txnAction, began time.Time) error {
	reasons := make([]ddberr.CancellationReason, len(actions))
	lost := false
	for i := range actions {
		if c := &actions[i].c; c.key != nil && e.transactionSince(ctx, c.t, c.key, began) {
			reasons[i], lost = conflictReason, true
		}
	}
	if lost {
		return cancelled(reasons)
	}
	return nil
}

// transactAttempt is one attempt at a TransactWriteItems in tx: the
// client request token, then every action prepared and read, evaluated
// (throttling, condition, update), applied, and reported into a.
func (e *Engine) transactAttempt(ctx context.Context, tx storage.Txn, in *api.TransactWriteItemsInput, a *txnAttempt) error {
	now := e.opts.Now()
	tokenKey, replay, err := checkToken(tx, in, now)
	if err != nil {
		return err
	}
	actions, reasons, err := e.resolveActions(tx, in)
	if err != nil {
		return err
	}
	a.actions = actions
	if replay {
		// The transaction already committed: nothing is written again,
		// and the capacity reported is that of reading the items.
		a.out = &api.TransactWriteItemsOutput{ConsumedCapacity: transactCapacity(in.ReturnConsumedCapacity, actions, func(x *txnAction) (float64, float64, []indexUnits) {
			return transactionalFactor * readUnits(x.c.old.size, true), 0, nil
		})}
		return nil
	}
	if err := e.evaluateActions(ctx, actions, reasons); err != nil {
		return err
	}
	metrics, err := e.applyActions(tx, actions, wantsMetrics(in))
	if err != nil {
		return err
	}
	// Marks carry the time just before commit, so that a single-item
	// write that began before it and then conflicts can tell.
	marked := e.opts.Now()
	for i := range actions {
		if err := markTransactional(tx, actions[i].c.t, actions[i].c.key, marked); err != nil {
			return err
		}
	}
	a.out = &api.TransactWriteItemsOutput{ConsumedCapacity: transactCapacity(in.ReturnConsumedCapacity, actions, func(x *txnAction) (float64, float64, []indexUnits) {
		return 0, transactionalFactor * x.c.units(), x.applied.index.units
	})}
	if len(metrics) > 0 {
		a.out.ItemCollectionMetrics = metrics
	}
	for i := range actions {
		a.demands = append(a.demands, actions[i].applied.demands(&actions[i].c, transactionalFactor)...)
	}
	if tokenKey != nil {
		return writeToken(tx, tokenKey, token{fingerprint: in.Fingerprint, at: now})
	}
	return nil
}

// checkToken looks up the request's ClientRequestToken: it returns the
// token's key (nil without a token) and whether the request replays a
// transaction that committed less than clientTokenTTL ago. The same token
// with another payload is IdempotentParameterMismatchException.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#DDB-TransactWriteItems-request-ClientRequestToken
func checkToken(tx storage.Txn, in *api.TransactWriteItemsInput, now time.Time) (key []byte, replay bool, err error) {
	if in.ClientRequestToken == nil {
		return nil, false, nil
	}
	key = clientTokenKey(*in.ClientRequestToken)
	prev, ok, err := readToken(tx, key)
	if err != nil || !ok || now.Sub(prev.at) >= clientTokenTTL {
		return key, false, err
	}
	if prev.fingerprint != in.Fingerprint {
		return nil, false, ddberr.New(ddberr.IdempotentParameterMismatchException,
			"DynamoDB rejected the request because you retried a request with a different payload but with an idempotent token that was already used.")
	}
	return key, true, nil
}

// evaluateActions admits each action to its partition (throttling) and
// evaluates it (condition, update) in order, filling reasons; any reason
// cancels the transaction (the first ValidationError ends the evaluation).
// An action's fatal error rejects the request.
func (e *Engine) evaluateActions(ctx context.Context, actions []txnAction, reasons []ddberr.CancellationReason) error {
	failed := false
	for i := range actions {
		a := &actions[i]
		if reasons[i].Code == "" && e.limiter != nil {
			// A throttled action cancels the transaction.
			if err := e.admit(ctx, a.c.t, tableDemand(a.c.t, a.c.tk, true, 0)); err != nil {
				reasons[i] = throttleReason(err)
			}
		}
		if reasons[i].Code == "" {
			if r, ok := a.evaluate(); !ok {
				if a.fatal != nil {
					return a.fatal
				}
				reasons[i] = r
			}
		}
		if reasons[i].Code != "" {
			failed = true
			if reasons[i].Code == "ValidationError" {
				clear(reasons[i+1:])
				break
			}
		}
	}
	if failed {
		return cancelled(reasons)
	}
	return nil
}

// applyActions applies every action's change in tx and returns the
// ItemCollectionMetrics by table when metrics is set. An item collection
// that would grow past its limit cancels the transaction
// (ItemCollectionSizeLimitExceeded on that action).
func (e *Engine) applyActions(tx storage.Txn, actions []txnAction, metrics bool) (map[string][][]byte, error) {
	byTable := map[string][][]byte{}
	for i := range actions {
		a := &actions[i]
		if a.kind == "ConditionCheck" {
			continue
		}
		var err error
		if a.applied, err = e.apply(tx, &a.c, metrics); err != nil {
			if ddberr.Is(err, ddberr.ItemCollectionSizeLimitExceededException) {
				reasons := make([]ddberr.CancellationReason, len(actions))
				reasons[i] = ddberr.CancellationReason{Code: "ItemCollectionSizeLimitExceeded", Message: "Collection size exceeded"}
				return nil, cancelled(reasons)
			}
			return nil, err
		}
		if m := a.applied.metrics; m != nil {
			byTable[a.c.t.Name] = append(byTable[a.c.t.Name], m)
		}
	}
	return byTable, nil
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
		c, ok := byTable[a.c.t.Name]
		if !ok {
			c = consumed(mode, a.c.t.Name, 0, 0)
			c.Split = true
			byTable[a.c.t.Name] = c
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

// resolveActions prepares each action's change (table, key, a Put's new
// item) and reads its item. Errors that reject the whole request are
// returned as err; a key or a Put's index key that does not fit its
// table's schema is that action's ValidationError reason.
func (e *Engine) resolveActions(tx storage.Txn, in *api.TransactWriteItemsInput) ([]txnAction, []ddberr.CancellationReason, error) {
	actions := make([]txnAction, len(in.TransactItems))
	reasons := make([]ddberr.CancellationReason, len(in.TransactItems))
	tables := make([]*catalog.Table, len(in.TransactItems))
	for i := range in.TransactItems {
		actions[i].w = in.TransactItems[i].Common()
		t, err := e.activeTable(tx, *actions[i].w.TableName)
		if err != nil {
			return nil, nil, err
		}
		tables[i] = t
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
			if err := checkItemSize(it.Put.Item.Size()); err != nil {
				return nil, nil, err
			}
		case it.Delete != nil:
			a.kind, keyItem = "Delete", it.Delete.Key
		case it.Update != nil:
			a.kind, keyItem, a.update = "Update", it.Update.Key, it.Update
			if err := checkKeyUnchanged(tables[i], it.Update); err != nil {
				return nil, nil, err
			}
		}
		c, err := newChange(tables[i], keyItem, style)
		if err == nil && a.kind == "Put" {
			err = c.put(it.Put.Item, nil, it.Put.Item.Size())
		}
		if err != nil {
			if isEmptyKeyError(err) {
				return nil, nil, err
			}
			reasons[i] = validationReason(err)
			if c.key == nil {
				a.c.t = tables[i]
				continue
			}
		}
		a.c = c
		if seen[string(c.key)] {
			return nil, nil, ddberr.Validation("Transaction request cannot include multiple operations on one item")
		}
		seen[string(c.key)] = true
	}
	for i := range actions {
		if c := &actions[i].c; c.key != nil {
			if err := c.readOld(tx, true); err != nil {
				return nil, nil, err
			}
		}
	}
	return actions, reasons, nil
}

// validationReason turns a validation error into a ValidationError
// cancellation reason.
func validationReason(err error) ddberr.CancellationReason {
	msg := err.Error()
	if de, ok := ddberr.As(err); ok {
		msg = de.Message
	}
	return ddberr.CancellationReason{Code: "ValidationError", Message: msg}
}

// evaluate checks the action's condition and computes its new item. A
// failed condition, or an update that cannot apply to this item, is the
// action's cancellation reason.
func (a *txnAction) evaluate() (ddberr.CancellationReason, bool) {
	if err := a.c.check(a.w.Condition, a.w); err != nil {
		de, _ := ddberr.As(err)
		return ddberr.CancellationReason{Code: "ConditionalCheckFailed", Message: "The conditional request failed", Item: de.Item}, false
	}
	if a.kind == "Update" {
		item, _, size, err := applyUpdate(a.c.t, a.update, a.c.old)
		if err != nil {
			if isEmptyKeyError(err) {
				// Source: docs/research-transactions.md §2 ("Update: SET
				// index key to an empty string": whole request).
				a.fatal = err
			}
			return validationReason(err), false
		}
		a.c.become(item, nil, size)
	}
	return ddberr.CancellationReason{}, true
}

// cancelled returns DynamoDB's TransactionCanceledException for reasons
// (one per action; an empty Code is None).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html#API_TransactWriteItems_Errors
func cancelled(reasons []ddberr.CancellationReason) error {
	codes := make([]string, len(reasons))
	for i, r := range reasons {
		codes[i] = cmp.Or(r.Code, "None")
	}
	err := ddberr.New(ddberr.TransactionCanceledException,
		"Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]")
	err.CancellationReasons = reasons
	return err
}

// errTransactionConflict is a single-item write's answer when it collides
// with a transaction on the same item.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling
func errTransactionConflict() error {
	return ddberr.New(ddberr.TransactionConflictException, "Transaction is ongoing for the item")
}

package engine

import (
	"cmp"
	"context"
	"strings"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/partiql"
)

// ExecuteTransaction runs up to 100 statements all or nothing: writes and
// EXISTS(SELECT ...) condition checks as one TransactWriteItems (so
// conflicts, idempotency tokens and cancellation reasons are its), or
// SELECTs of single items as one TransactGetItems.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteTransaction.html
func (e *Engine) ExecuteTransaction(ctx context.Context, in *api.ExecuteTransactionInput) (*api.ExecuteTransactionOutput, error) {
	reads := 0
	for _, s := range in.TransactStatements {
		if _, ok := s.Parsed.(*partiql.Select); ok {
			reads++
		}
	}
	switch {
	case reads == len(in.TransactStatements):
		return e.transactReads(ctx, in)
	case reads > 0:
		// DynamoDB runs a transaction of reads or one of writes (API
		// reference, ExecuteTransaction: "The entire transaction must
		// consist of either read statements or write statements"); the
		// wording is DynamoDB Local's, as a public driver's documentation
		// recorded it ("a transaction of a read and a write").
		return nil, ddberr.Validation("ExecuteTransaction API does not support both read and write operations in the same request.")
	}
	return e.transactWrites(ctx, in)
}

// transactReads runs a transaction of SELECTs as TransactGetItems.
func (e *Engine) transactReads(ctx context.Context, in *api.ExecuteTransactionInput) (*api.ExecuteTransactionOutput, error) {
	gets := make([]*api.GetItemInput, len(in.TransactStatements))
	projs := make([][]*partiql.Path, len(in.TransactStatements))
	for i, s := range in.TransactStatements {
		get, proj, err := e.planKeyRead(ctx, s.Parsed.(*partiql.Select), s.Params, nil, "ExecuteTransaction")
		if err != nil {
			return nil, api.Prefixed(api.TransactPrefix(i), err)
		}
		get.ConsistentRead = nil
		gets[i], projs[i] = get, proj
	}
	tg := api.NewTransactGet(gets, in.ReturnConsumedCapacity)
	if err := tg.Prepare(); err != nil {
		return nil, err
	}
	res, err := e.TransactGetItems(ctx, tg)
	if err != nil {
		return nil, err
	}
	out := &api.ExecuteTransactionOutput{Reads: true, ConsumedCapacity: res.ConsumedCapacity, Responses: res.Responses}
	for i, item := range out.Responses {
		if item != nil && projs[i] != nil {
			decoded, err := attr.DecodeItem(item)
			if err != nil {
				return nil, err
			}
			out.Responses[i] = attr.AppendItem(nil, project(decoded, projs[i]))
		}
	}
	return out, nil
}

// msgExistsNeedsCondition: EXISTS(SELECT ...) without a condition beyond
// the key (partiqlFunctions.test.ts).
const msgExistsNeedsCondition = "EXISTS() must contain a single item read with additional condition"

// transactWrites runs a transaction of writes as TransactWriteItems.
func (e *Engine) transactWrites(ctx context.Context, in *api.ExecuteTransactionInput) (*api.ExecuteTransactionOutput, error) {
	items := make([]api.TransactWriteItem, len(in.TransactStatements))
	inserts := make([]bool, len(in.TransactStatements))
	for i, s := range in.TransactStatements {
		w := writeOptions{params: s.Params, capacity: in.ReturnConsumedCapacity, onFailure: s.ReturnValuesOnConditionCheckFailure, transaction: true}
		if returning(s.Parsed) {
			// A transaction returns no items: DynamoDB Local refuses
			// RETURNING there, as a public driver's documentation
			// recorded it ("a transaction with RETURNING"); the wording
			// is dynago's.
			return nil, ddberr.Validation(api.TransactPrefix(i) + "RETURNING is not supported in ExecuteTransaction")
		}
		var plan *writePlan
		var err error
		if ex, ok := s.Parsed.(*partiql.Exists); ok {
			plan, err = e.planExists(ctx, ex, w)
		} else {
			plan, err = e.planWrite(ctx, s.Parsed, w)
		}
		if err != nil {
			return nil, api.Prefixed(api.TransactPrefix(i), err)
		}
		items[i] = api.TransactWriteItem{ConditionCheck: plan.check, Put: plan.put, Update: plan.update, Delete: plan.del}
		inserts[i] = plan.insert
	}
	tw := api.NewTransactWrite(items, in)
	if err := tw.Prepare(); err != nil {
		return nil, stripKinds(err)
	}
	res, err := e.TransactWriteItems(ctx, tw)
	if err != nil {
		return nil, duplicateReasons(err, inserts)
	}
	return &api.ExecuteTransactionOutput{Responses: [][]byte{}, ConsumedCapacity: res.ConsumedCapacity}, nil
}

// planExists makes EXISTS(SELECT * FROM t WHERE key AND condition) a
// condition check on that item.
func (e *Engine) planExists(ctx context.Context, ex *partiql.Exists, w writeOptions) (*writePlan, error) {
	t, err := e.writeTable(ctx, ex.Select.From)
	if err != nil {
		return nil, err
	}
	key, rest, ok, err := partiql.KeyOf(ex.Select.Where, keyNames(t), w.params)
	if err != nil {
		return nil, err
	}
	if !ok || len(rest) == 0 {
		return nil, ddberr.Validation(msgExistsNeedsCondition)
	}
	b := partiql.NewBuilder(w.params)
	cond, err := condition(b, "", rest)
	if err != nil {
		return nil, err
	}
	in := &api.DeleteItemInput{Key: key}
	in.TableName, in.ConditionExpression = &t.Name, cond
	in.ReturnValuesOnConditionCheckFailure = w.onFailure
	in.ExpressionParams.Names, in.ExpressionParams.Values = nilIfEmpty(b)
	return &writePlan{table: t.Name, check: in}, nil
}

// duplicateReasons reports an INSERT whose item exists as DuplicateItem
// in a TransactionCanceledException's reasons, as ExecuteTransaction does
// (API reference, ExecuteTransaction errors: TransactionCanceledException;
// CancellationReason codes include DuplicateItem:
// https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CancellationReason.html).
func duplicateReasons(err error, inserts []bool) error {
	e, ok := ddberr.As(err)
	if !ok || e.Code != ddberr.TransactionCanceledException || len(e.CancellationReasons) != len(inserts) {
		return err
	}
	reasons := append([]ddberr.CancellationReason(nil), e.CancellationReasons...)
	codes := make([]string, len(reasons))
	for i := range reasons {
		if inserts[i] && reasons[i].Code == "ConditionalCheckFailed" {
			reasons[i] = ddberr.CancellationReason{Code: "DuplicateItem", Message: msgDuplicateItem, Item: reasons[i].Item}
		}
		codes[i] = cmp.Or(reasons[i].Code, "None")
	}
	out := ddberr.New(ddberr.TransactionCanceledException,
		"Transaction cancelled, please refer cancellation reasons for specific reasons ["+strings.Join(codes, ", ")+"]")
	out.CancellationReasons = reasons
	return out
}

// returning reports whether a write has a RETURNING clause.
func returning(st partiql.Statement) bool {
	switch s := st.(type) {
	case *partiql.Update:
		return s.Returning != ""
	case *partiql.Delete:
		return s.Returning != ""
	}
	return false
}

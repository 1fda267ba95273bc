package engine

import (
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/partiql"
)

// DuplicateItemException is DynamoDB's answer to an INSERT of an item
// that exists (developer guide, "PartiQL insert statements": "If the
// item already exists, the INSERT fails";
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.insert.html;
// executeStatement.test.ts for the code).
const msgDuplicateItem = "Duplicate primary key exists in table"

// writeOptions are the request members a PartiQL write carries into the
// operation it runs as.
type writeOptions struct {
	params    []attr.Value
	capacity  *string
	onFailure *string
	// transaction prepares the operations as TransactWriteItems entries.
	transaction bool
}

// writePlan is a PartiQL write made into one single-item operation's
// prepared input (exactly one of put, update, del and check is set).
type writePlan struct {
	table  string
	put    *api.PutItemInput
	update *api.UpdateItemInput
	del    *api.DeleteItemInput
	// check is an EXISTS(SELECT ...) condition check (ExecuteTransaction).
	check *api.DeleteItemInput
	// insert marks an INSERT, whose failed condition is DuplicateItem.
	insert bool
}

// returnValues maps a RETURNING clause onto ReturnValues.
var returnValues = map[partiql.Returning]string{
	"ALL OLD": "ALL_OLD", "MODIFIED OLD": "UPDATED_OLD", "ALL NEW": "ALL_NEW", "MODIFIED NEW": "UPDATED_NEW",
}

// nilIfEmpty returns nil for empty names and values: an expression
// request must not send empty maps.
func nilIfEmpty(b *partiql.Builder) (map[string]string, attr.Item) {
	var names map[string]string
	var values attr.Item
	if len(b.Names) > 0 {
		names = b.Names
	}
	if len(b.Values) > 0 {
		values = b.Values
	}
	return names, values
}

// planWrite makes an INSERT, UPDATE or DELETE into its operation.
func (e *Engine) planWrite(ctx context.Context, st partiql.Statement, w writeOptions) (*writePlan, error) {
	switch s := st.(type) {
	case *partiql.Insert:
		return e.planInsert(ctx, s, w)
	case *partiql.Update:
		return e.planUpdate(ctx, s, w)
	case *partiql.Delete:
		return e.planDelete(ctx, s, w)
	}
	return nil, ddberr.Validation("Unsupported operation: only INSERT, UPDATE and DELETE statements write")
}

func (e *Engine) writeTable(ctx context.Context, target partiql.Target) (*catalog.Table, error) {
	t, err := e.tableFor(ctx, target.Table)
	if err != nil {
		return nil, err
	}
	if target.Indexed {
		return nil, ddberr.Validation("Writes to an index are not supported; operation targets index " + target.Index)
	}
	return t, nil
}

// writeKey finds an UPDATE's or DELETE's table and the whole primary
// key its WHERE names (of the key attributes' types), and the WHERE's
// other conditions.
func (e *Engine) writeKey(ctx context.Context, target partiql.Target, where partiql.Expr, w writeOptions) (*catalog.Table, attr.Item, []partiql.Expr, error) {
	t, err := e.writeTable(ctx, target)
	if err != nil {
		return nil, nil, nil, err
	}
	key, rest, ok, err := partiql.KeyOf(where, keyNames(t), w.params)
	if err != nil {
		return nil, nil, nil, err
	}
	if !ok {
		return nil, nil, nil, ddberr.Validation(partiql.MsgNeedsKey)
	}
	if err := checkKeyTypes(t, key); err != nil {
		return nil, nil, nil, err
	}
	return t, key, rest, nil
}

// keyNames lists a table's key attribute names, partition key first.
func keyNames(t *catalog.Table) []string {
	hash, _ := t.HashKey()
	names := []string{hash}
	if rng, _, ok := t.RangeKey(); ok {
		names = append(names, rng)
	}
	return names
}

// planInsert: INSERT is a PutItem conditioned on the item not existing.
func (e *Engine) planInsert(ctx context.Context, s *partiql.Insert, w writeOptions) (*writePlan, error) {
	item, err := partiql.Item(s.Value, w.params)
	if err != nil {
		return nil, err
	}
	t, err := e.writeTable(ctx, s.Into)
	if err != nil {
		return nil, err
	}
	b := partiql.NewBuilder(w.params)
	cond := "attribute_not_exists(" + b.Name(keyNames(t)[0]) + ")"
	in := &api.PutItemInput{Item: item}
	in.TableName, in.ConditionExpression = &t.Name, &cond
	in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure = w.capacity, w.onFailure
	in.ExpressionParams.Names, in.ExpressionParams.Values = nilIfEmpty(b)
	if !w.transaction {
		if err := in.Prepare(); err != nil {
			return nil, err
		}
	}
	return &writePlan{table: t.Name, put: in, insert: true}, nil
}

// condition renders the conditions of a write beyond its key, with
// extra (such as the item's existence) first.
func condition(b *partiql.Builder, extra string, rest []partiql.Expr) (*string, error) {
	text := extra
	if c := partiql.And(rest); c != nil {
		s, err := b.Condition(c)
		if err != nil {
			return nil, err
		}
		if isOr(c) {
			s = "(" + s + ")"
		}
		if text != "" {
			text += " AND "
		}
		text += s
	}
	if text == "" {
		return nil, nil
	}
	return &text, nil
}

func isOr(e partiql.Expr) bool {
	bin, ok := e.(*partiql.Binary)
	return ok && bin.Op == "OR"
}

// planUpdate: UPDATE is an UpdateItem of the item the WHERE clause's key
// names, conditioned on the item existing (UPDATE is not an upsert:
// developer guide, "PartiQL update statements";
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.update.html)
// and on the WHERE clause's other conditions.
func (e *Engine) planUpdate(ctx context.Context, s *partiql.Update, w writeOptions) (*writePlan, error) {
	t, key, rest, err := e.writeKey(ctx, s.Table, s.Where, w)
	if err != nil {
		return nil, err
	}
	keys := keyNames(t)
	b := partiql.NewBuilder(w.params)
	update, err := b.UpdateExpression(s.Actions)
	if err != nil {
		return nil, err
	}
	cond, err := condition(b, "attribute_exists("+b.Name(keys[0])+")", rest)
	if err != nil {
		return nil, err
	}
	in := &api.UpdateItemInput{Key: key, UpdateExpression: &update}
	in.TableName, in.ConditionExpression = &t.Name, cond
	in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure = w.capacity, w.onFailure
	if rv, ok := returnValues[s.Returning]; ok {
		in.ReturnValues = &rv
	}
	in.ExpressionParams.Names, in.ExpressionParams.Values = nilIfEmpty(b)
	if !w.transaction {
		if err := in.Prepare(); err != nil {
			return nil, restore(err, b.Names)
		}
	}
	return &writePlan{table: t.Name, update: in}, nil
}

// planDelete: DELETE is a DeleteItem of the item the WHERE clause's key
// names, conditioned on the WHERE clause's other conditions (a DELETE
// that finds no item succeeds: writeResponses.test.ts).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.delete.html
func (e *Engine) planDelete(ctx context.Context, s *partiql.Delete, w writeOptions) (*writePlan, error) {
	t, key, rest, err := e.writeKey(ctx, s.From, s.Where, w)
	if err != nil {
		return nil, err
	}
	b := partiql.NewBuilder(w.params)
	cond, err := condition(b, "", rest)
	if err != nil {
		return nil, err
	}
	in := &api.DeleteItemInput{Key: key}
	in.TableName, in.ConditionExpression = &t.Name, cond
	in.ReturnConsumedCapacity, in.ReturnValuesOnConditionCheckFailure = w.capacity, w.onFailure
	switch s.Returning {
	case "":
	case "ALL OLD":
		rv := "ALL_OLD"
		in.ReturnValues = &rv
	default:
		return nil, ddberr.Validation("RETURNING " + string(s.Returning) + " * is not supported for DELETE; only RETURNING ALL OLD *")
	}
	in.ExpressionParams.Names, in.ExpressionParams.Values = nilIfEmpty(b)
	if !w.transaction {
		if err := in.Prepare(); err != nil {
			return nil, restore(err, b.Names)
		}
	}
	return &writePlan{table: t.Name, del: in}, nil
}

// msgKeyType answers a key value of another type than the key
// attribute's: DynamoDB Local's words, as a public driver's documentation
// recorded them ("a parameter of the wrong type for the key"); real
// DynamoDB refuses such a key too (partiqlMultiAttributeIndex.test.ts
// orders its refusal after the multi-attribute one).
const msgKeyType = "Key attribute's data type should match its data type in table's schema"

// checkKeyTypes refuses key values whose type is not their attribute's.
func checkKeyTypes(t *catalog.Table, key attr.Item) error {
	for name, v := range key {
		if want := t.AttributeType(name); want != attr.Invalid && v.Kind() != want {
			return ddberr.Validation(msgKeyType)
		}
	}
	return nil
}

// stripKinds removes package expr's "Invalid <kind>: " prefix from a
// condition or update expression error: PartiQL reports the problem
// alone.
func stripKinds(err error) error {
	return restore(err, nil)
}

// restore is stripKinds, and the statement's attribute names (the
// Builder's) written back for their placeholders (partiql.Restore).
func restore(err error, names map[string]string) error {
	for _, k := range []expr.Kind{expr.ConditionExpression, expr.UpdateExpression} {
		err = partiql.StripKind(err, k)
	}
	return partiql.Restore(err, names)
}

// runWrite runs a prepared write and returns the item its RETURNING
// clause asks for (nil for none) and its ConsumedCapacity.
func (e *Engine) runWrite(ctx context.Context, p *writePlan) ([]byte, *api.ConsumedCapacity, error) {
	var out *api.ItemOutput
	var err error
	switch {
	case p.put != nil:
		out, err = e.PutItem(ctx, p.put)
		if ddberr.Is(err, ddberr.ConditionalCheckFailedException) {
			return nil, nil, ddberr.New(ddberr.DuplicateItemException, msgDuplicateItem)
		}
	case p.update != nil:
		out, err = e.UpdateItem(ctx, p.update)
	case p.del != nil:
		out, err = e.DeleteItem(ctx, p.del)
	}
	if err != nil {
		return nil, nil, stripKinds(err)
	}
	return out.Item, out.ConsumedCapacity, nil
}

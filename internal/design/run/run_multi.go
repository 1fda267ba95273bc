package run

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/sample"
)

// A multi-item pattern runs after the reads, on the generated items: a
// put writes a fresh item (a generated one whose table key's text
// variables are made new), an update, delete, check or get takes a
// generated item that is still there. A TransactWriteItems must commit,
// and its counters must have moved by what they add, its versions by one,
// its puts be there and its deletes gone; when it guards a put with
// attribute_not_exists or locks with a version, it runs a second time and
// must be refused with ConditionalCheckFailed on those actions, the
// counters not moving. A BatchWriteItem must write its puts and deletes,
// a BatchGetItem return every item it asks for.

// multiItem is one item of a multi-item request: its action, the
// generated item, and its table key.
type multiItem struct {
	action *design.Action
	index  int // the action's place in the pattern
	item   sample.Item
	key    map[string]types.AttributeValue
}

// runMulti runs a multi-item pattern and checks what it did.
func (r *runner) runMulti(ctx context.Context, p *design.Pattern) Result {
	res := Result{ID: p.ID, Operation: p.Operation, Types: []string{}}
	items, problem := r.pickItems(p)
	if problem != "" {
		res.Problems = append(res.Problems, problem)
		return res
	}
	res.Items = len(items)
	for _, it := range items {
		res.Types = append(res.Types, it.item.Entity.Name)
	}
	var err error
	switch p.Operation {
	case design.TransactWriteItems:
		err = r.runTransaction(ctx, p, items, &res)
	case design.BatchWriteItem:
		err = r.runBatchWrite(ctx, items, &res)
	case design.BatchGetItem:
		err = r.runBatchGet(ctx, p, items, &res)
	}
	if err != nil {
		res.Problems = append(res.Problems, p.Operation+": "+err.Error())
	}
	return res
}

// pickItems chooses the items of one request: fresh ones for puts,
// generated ones still in the table for the rest, each once, up to each
// action's count.
func (r *runner) pickItems(p *design.Pattern) ([]multiItem, string) {
	var out []multiItem
	used := map[string]bool{}
	for i, a := range p.Actions {
		n := 0
		for _, it := range r.items {
			if n == a.Count {
				break
			}
			if it.Entity.Name != a.Entity {
				continue
			}
			if a.Kind == design.ActionPut {
				it = r.fresh(it)
			}
			k := sample.TableKey(r.d, it.Attrs)
			if used[k] || r.gone[k] || (a.Kind == design.ActionPut && r.owner[k] != nil) {
				continue
			}
			used[k] = true
			out = append(out, multiItem{action: a, index: i, item: it, key: r.tableKey(it)})
			n++
		}
		switch {
		case n == 0 && a.Kind == design.ActionPut:
			return nil, fmt.Sprintf("no fresh %s item to put for action %d: its table key has no text or number variable to give a new value", a.Entity, i+1)
		case n == 0:
			return nil, fmt.Sprintf("no generated %s item left for action %d (%s %s)", a.Entity, i+1, a.Kind, a.Entity)
		}
	}
	return out, ""
}

// fresh returns a copy of it with a table key no generated item has: its
// table key's text variables get a suffix, and every key built from them
// is built again.
func (r *runner) fresh(it sample.Item) sample.Item {
	r.fresher++
	e := it.Entity
	out := sample.Item{Entity: e, Vals: maps.Clone(it.Vals), Attrs: maps.Clone(it.Attrs)}
	for _, ka := range slices.Concat(r.d.Table.PartitionKey, r.d.Table.SortKey) {
		t, _, _, _ := e.ValueOf(ka.Name)
		for _, v := range t.Vars() {
			a := e.Attribute(v)
			if a == nil || len(a.Values) > 0 {
				continue
			}
			switch {
			case a.Type == "S" && !strings.HasSuffix(out.Vals[v], fmt.Sprintf("-new%d", r.fresher)):
				out.Vals[v] += fmt.Sprintf("-new%d", r.fresher)
				out.Attrs[v] = sample.Value{Type: "S", Text: out.Vals[v]}
			case a.Type == "N":
				// A number no generated item has: they count up from 10.
				out.Vals[v] = fmt.Sprint(900_000_000 + r.fresher)
				out.Attrs[v] = sample.Value{Type: "N", Text: out.Vals[v]}
			}
		}
	}
	for _, k := range e.Keys {
		t, _, _, _ := e.ValueOf(k.Attr)
		if s, err := t.Render(out.Vals); err == nil {
			out.Attrs[k.Attr] = sample.Value{Type: r.d.KeyType(k.Attr), Text: s}
		}
	}
	return out
}

// tableKey is a generated item's table key.
func (r *runner) tableKey(it sample.Item) map[string]types.AttributeValue {
	key := map[string]types.AttributeValue{}
	for _, ka := range slices.Concat(r.d.Table.PartitionKey, r.d.Table.SortKey) {
		key[ka.Name] = sample.AttributeValue(it.Attrs[ka.Name])
	}
	return key
}

// transactItem is one item's TransactWriteItem, with the names and values
// its expressions use only (DynamoDB refuses unused ones).
func (r *runner) transactItem(m multiItem) types.TransactWriteItem {
	a, e := m.action, m.item.Entity
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	var conds []string
	switch a.Condition {
	case design.NotExists:
		names["#pk"] = r.d.Table.PartitionKey[0].Name
		conds = append(conds, "attribute_not_exists(#pk)")
	case design.Exists:
		names["#pk"] = r.d.Table.PartitionKey[0].Name
		conds = append(conds, "attribute_exists(#pk)")
	}
	if a.Version != "" {
		names["#ver"] = a.Version
		v, ok := m.item.Attrs[a.Version]
		if now, moved := r.versions[sample.TableKey(r.d, m.item.Attrs)]; moved {
			v, ok = sample.Value{Type: "N", Text: now}, true // an earlier pattern's update moved it
		}
		if ok {
			values[":ver"] = sample.AttributeValue(v)
			conds = append(conds, "#ver = :ver")
		} else {
			conds = append(conds, "attribute_not_exists(#ver)")
		}
	}
	var cond *string
	if len(conds) > 0 {
		cond = aws.String(strings.Join(conds, " AND "))
	}
	nilIfEmpty := func() {
		if len(names) == 0 {
			names = nil
		}
		if len(values) == 0 {
			values = nil
		}
	}
	table := aws.String(r.table)
	switch a.Kind {
	case design.ActionPut:
		nilIfEmpty()
		return types.TransactWriteItem{Put: &types.Put{TableName: table, Item: attributeValues(m.item), ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values}}
	case design.ActionDelete:
		nilIfEmpty()
		return types.TransactWriteItem{Delete: &types.Delete{TableName: table, Key: m.key, ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values}}
	case design.ActionCheck:
		nilIfEmpty()
		return types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{TableName: table, Key: m.key, ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values}}
	}
	// An update SETs its attributes (to the item's own values) and every
	// key built from them, and ADDs its counters and one to its version.
	var sets, adds []string
	for i, name := range a.Set {
		if v, ok := m.item.Attrs[name]; ok {
			names[fmt.Sprintf("#s%d", i)], values[fmt.Sprintf(":s%d", i)] = name, sample.AttributeValue(v)
			sets = append(sets, fmt.Sprintf("#s%d = :s%d", i, i))
		}
	}
	for i, k := range e.Keys {
		if !r.d.IsTableKey(k.Attr) && !slices.Contains(a.Set, k.Attr) && slices.ContainsFunc(k.Template.Vars(), func(v string) bool { return slices.Contains(a.Set, v) }) {
			if v, ok := m.item.Attrs[k.Attr]; ok {
				names[fmt.Sprintf("#k%d", i)], values[fmt.Sprintf(":k%d", i)] = k.Attr, sample.AttributeValue(v)
				sets = append(sets, fmt.Sprintf("#k%d = :k%d", i, i))
			}
		}
	}
	for i, c := range a.Add {
		names[fmt.Sprintf("#c%d", i)], values[fmt.Sprintf(":c%d", i)] = c.Attr, &types.AttributeValueMemberN{Value: c.By}
		adds = append(adds, fmt.Sprintf("#c%d :c%d", i, i))
	}
	if a.Version != "" {
		values[":one"] = &types.AttributeValueMemberN{Value: "1"}
		adds = append(adds, "#ver :one")
	}
	var update []string
	if len(sets) > 0 {
		update = append(update, "SET "+strings.Join(sets, ", "))
	}
	if len(adds) > 0 {
		update = append(update, "ADD "+strings.Join(adds, ", "))
	}
	nilIfEmpty()
	return types.TransactWriteItem{Update: &types.Update{TableName: table, Key: m.key, UpdateExpression: aws.String(strings.Join(update, " ")),
		ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values}}
}

// runTransaction runs the transaction, checks its effects, and, when a
// condition guards it, runs it again to see it refused.
func (r *runner) runTransaction(ctx context.Context, p *design.Pattern, items []multiItem, res *Result) error {
	var actions []types.TransactWriteItem
	for _, m := range items {
		actions = append(actions, r.transactItem(m))
	}
	before := map[int]map[string]types.AttributeValue{}
	for i, m := range items {
		if m.action.Kind == design.ActionUpdate {
			got, err := r.get(ctx, m.key)
			if err != nil {
				return err
			}
			before[i] = got
		}
	}
	in := &dynamodb.TransactWriteItemsInput{TransactItems: actions, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal}
	out, err := r.c.TransactWriteItems(ctx, in)
	if err != nil {
		return err
	}
	for _, cc := range out.ConsumedCapacity {
		res.ConsumedCapacity += aws.ToFloat64(cc.CapacityUnits)
	}
	after, err := r.checkEffects(ctx, items, before, res)
	if err != nil {
		return err
	}
	// Run it again: each guarded put and each version must refuse it, and
	// nothing may move.
	var guarded []int
	for i, m := range items {
		if (m.action.Kind == design.ActionPut && m.action.Condition == design.NotExists) || (m.action.Version != "" && m.action.Kind != design.ActionPut) {
			guarded = append(guarded, i)
		}
	}
	if len(guarded) == 0 {
		return nil
	}
	_, err = r.c.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: actions})
	var tce *types.TransactionCanceledException
	if !errors.As(err, &tce) {
		res.Problems = append(res.Problems, fmt.Sprintf("ran a second time, it was not refused (%v): its guards let a duplicate through", err))
		return nil
	}
	for _, i := range guarded {
		if i >= len(tce.CancellationReasons) || aws.ToString(tce.CancellationReasons[i].Code) != "ConditionalCheckFailed" {
			res.Problems = append(res.Problems, fmt.Sprintf("ran a second time, action %d (%s %s) did not fail its condition", items[i].index+1, items[i].action.Kind, items[i].action.Entity))
		}
	}
	for i, m := range items {
		if m.action.Kind != design.ActionUpdate {
			continue
		}
		got, err := r.get(ctx, m.key)
		if err != nil {
			return err
		}
		for _, c := range m.action.Add {
			if textOf(got[c.Attr]) != textOf(after[i][c.Attr]) {
				res.Problems = append(res.Problems, fmt.Sprintf("the refused transaction moved %s's %s from %s to %s", m.action.Entity, c.Attr, textOf(after[i][c.Attr]), textOf(got[c.Attr])))
			}
		}
	}
	return nil
}

// checkEffects checks a committed transaction's items: puts there,
// deletes gone, counters moved by what they add, versions by one. It
// returns the updated items as read after.
func (r *runner) checkEffects(ctx context.Context, items []multiItem, before map[int]map[string]types.AttributeValue, res *Result) (map[int]map[string]types.AttributeValue, error) {
	after := map[int]map[string]types.AttributeValue{}
	for i, m := range items {
		got, err := r.get(ctx, m.key)
		if err != nil {
			return nil, err
		}
		k := sample.TableKey(r.d, m.item.Attrs)
		a := m.action
		switch a.Kind {
		case design.ActionPut:
			if got == nil {
				res.Problems = append(res.Problems, fmt.Sprintf("action %d put a %s that is not there", m.index+1, a.Entity))
			}
			r.owner[k] = m.item.Entity
		case design.ActionDelete:
			if got != nil {
				res.Problems = append(res.Problems, fmt.Sprintf("action %d deleted a %s that is still there", m.index+1, a.Entity))
			}
			r.gone[k] = true
		case design.ActionUpdate:
			after[i] = got
			if a.Version != "" {
				r.versions[k] = textOf(got[a.Version])
			}
			moves := slices.Clone(a.Add)
			if a.Version != "" {
				moves = append(moves, design.Counter{Attr: a.Version, By: "1"})
			}
			for _, c := range moves {
				if want := addText(textOf(before[i][c.Attr]), c.By); textOf(got[c.Attr]) != want {
					res.Problems = append(res.Problems, fmt.Sprintf("%s's %s went from %q to %q, not %s (ADD %s)", a.Entity, c.Attr, textOf(before[i][c.Attr]), textOf(got[c.Attr]), want, c.By))
				}
			}
		}
	}
	return after, nil
}

// addText is the decimal sum of a (a missing number is 0) and b.
func addText(a, b string) string {
	x, ok := new(big.Rat).SetString(a)
	if !ok {
		x = new(big.Rat)
	}
	y, _ := new(big.Rat).SetString(b)
	if y == nil {
		return "?"
	}
	return x.Add(x, y).RatString()
}

// get reads an item by key, strongly consistent (nil when absent).
func (r *runner) get(ctx context.Context, key map[string]types.AttributeValue) (map[string]types.AttributeValue, error) {
	out, err := r.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: key, ConsistentRead: aws.Bool(true)})
	if err != nil {
		return nil, err
	}
	return out.Item, nil
}

// runBatchWrite writes the batch, sends its unprocessed items again (up
// to ten times), and checks that its puts are there and its deletes gone.
func (r *runner) runBatchWrite(ctx context.Context, items []multiItem, res *Result) error {
	var reqs []types.WriteRequest
	for _, m := range items {
		if m.action.Kind == design.ActionPut {
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: attributeValues(m.item)}})
		} else {
			reqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: m.key}})
		}
	}
	for try := 0; len(reqs) > 0 && try < 10; try++ {
		out, err := r.c.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{r.table: reqs}, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			return err
		}
		for _, cc := range out.ConsumedCapacity {
			res.ConsumedCapacity += aws.ToFloat64(cc.CapacityUnits)
		}
		reqs = out.UnprocessedItems[r.table]
	}
	if len(reqs) > 0 {
		res.Problems = append(res.Problems, fmt.Sprintf("%d items stayed unprocessed after ten tries", len(reqs)))
	}
	_, err := r.checkEffects(ctx, items, nil, res)
	return err
}

// runBatchGet gets the batch's items (asking again for unprocessed keys,
// up to ten times) and checks that each came back, of its entity.
func (r *runner) runBatchGet(ctx context.Context, p *design.Pattern, items []multiItem, res *Result) error {
	var keys []map[string]types.AttributeValue
	want := map[string]*design.Entity{}
	for _, m := range items {
		keys = append(keys, m.key)
		want[sample.TableKey(r.d, m.item.Attrs)] = m.item.Entity
	}
	var got []map[string]types.AttributeValue
	for try := 0; len(keys) > 0 && try < 10; try++ {
		out, err := r.c.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{r.table: {Keys: keys, ConsistentRead: aws.Bool(p.Consistent)}},
			ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			return err
		}
		for _, cc := range out.ConsumedCapacity {
			res.ConsumedCapacity += aws.ToFloat64(cc.CapacityUnits)
		}
		got = append(got, out.Responses[r.table]...)
		keys = out.UnprocessedKeys[r.table].Keys
	}
	found := 0
	for _, it := range got {
		e := r.itemEntity(it)
		if e == nil || !slices.Contains(p.Returns, e.Name) {
			res.Problems = append(res.Problems, "returned an item of no entity it gets")
			continue
		}
		found++
	}
	if found != len(want) {
		res.Problems = append(res.Problems, fmt.Sprintf("returned %d of the %d items it asked for", found, len(want)))
	}
	return nil
}

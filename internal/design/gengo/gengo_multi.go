package gengo

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// actionParams names the parameters of a multi-item pattern's method:
// one per action, the entity's name (a slice, plural, when the action
// holds several items or the operation is a batch), numbered when two
// actions share an entity.
func actionParams(p *design.Pattern) (names, types []string) {
	seen := map[string]int{}
	for _, a := range p.Actions {
		seen[a.Entity]++
	}
	n := map[string]int{}
	for _, a := range p.Actions {
		name := localName(a.Entity)
		typ := goName(a.Entity)
		if manyItems(p, a) {
			name, typ = localName(a.Entity+"s"), "[]"+typ
		}
		if seen[a.Entity] > 1 {
			n[a.Entity]++
			name = fmt.Sprintf("%s%d", strings.TrimSuffix(name, "_"), n[a.Entity])
		}
		if slices.Contains(methodLocals, name) {
			name += "_"
		}
		names, types = append(names, name), append(types, typ)
	}
	return names, types
}

// methodLocals are the local names of the methods genMulti writes,
// which a parameter must not take.
var methodLocals = []string{"actions", "reqs", "keys", "found", "names", "values", "conds", "sets", "update", "cond", "n", "rest", "attempt", "u", "i", "name", "v", "ok", "val"}

// manyItems reports whether action a's parameter is a slice.
func manyItems(p *design.Pattern, a *design.Action) bool {
	return a.Count > 1 || p.Operation != design.TransactWriteItems
}

// genMulti writes a multi-item pattern's method: a TransactWriteItems as
// one call, a BatchWriteItem or BatchGetItem in requests of at most
// DynamoDB's limit, sending again what comes back unprocessed.
func genMulti(b *strings.Builder, d *design.Design, p *design.Pattern, method, doc string) error {
	for _, a := range p.Actions {
		if d.Entity(a.Entity) == nil {
			return fmt.Errorf("no entity %q", a.Entity)
		}
	}
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	names, types := actionParams(p)
	var params []string
	for i := range names {
		params = append(params, names[i]+" "+types[i])
	}
	w("// %s: %s (%s).\n", method, doc, p.Summary())
	switch p.Operation {
	case design.TransactWriteItems:
		w("//\n// It is one TransactWriteItems: every action is applied or none is. A failed\n")
		w("// condition cancels it with a *types.TransactionCanceledException whose\n// CancellationReasons say, action by action, which failed.\n")
		w("func (c *Client) %s(ctx context.Context, %s) error {\n\tvar actions []types.TransactWriteItem\n", method, strings.Join(params, ", "))
		for i, a := range p.Actions {
			genTransactAction(b, d, a, names[i], manyItems(p, a))
		}
		w("\t_, err := c.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: actions})\n\treturn err\n}\n\n")
	case design.BatchWriteItem:
		w("//\n// It writes in BatchWriteItem requests of at most %d items, each item on its own\n", design.MaxBatchWrites)
		w("// (a batch is not atomic), and sends again what DynamoDB leaves unprocessed.\n")
		w("func (c *Client) %s(ctx context.Context, %s) error {\n\tvar reqs []types.WriteRequest\n", method, strings.Join(params, ", "))
		for i, a := range p.Actions {
			if a.Kind == design.ActionPut {
				w("\tfor _, x := range %s {\n\t\treqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: x.Item()}})\n\t}\n", names[i])
			} else {
				w("\tfor _, x := range %s {\n\t\treqs = append(reqs, types.WriteRequest{DeleteRequest: &types.DeleteRequest{Key: tableKey(x.Item())}})\n\t}\n", names[i])
			}
		}
		w("\tfor attempt := 0; len(reqs) > 0; attempt++ {\n\t\tif err := backoff(ctx, attempt); err != nil {\n\t\t\treturn err\n\t\t}\n")
		w("\t\tn := min(len(reqs), %d)\n", design.MaxBatchWrites)
		w("\t\tout, err := c.DB.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: map[string][]types.WriteRequest{c.Table: reqs[:n]}})\n")
		w("\t\tif err != nil {\n\t\t\treturn err\n\t\t}\n\t\treqs = append(out.UnprocessedItems[c.Table], reqs[n:]...)\n\t}\n\treturn nil\n}\n\n")
	case design.BatchGetItem:
		w("//\n// It reads in BatchGetItem requests of at most %d keys (a key may be asked for\n", design.MaxBatchGets)
		w("// once), sends again the keys DynamoDB leaves unprocessed, and returns the items\n// found, in no particular order: a missing item is left out.\n")
		w("func (c *Client) %s(ctx context.Context, %s) ([]Item, error) {\n\tvar keys []map[string]types.AttributeValue\n", method, strings.Join(params, ", "))
		for i := range p.Actions {
			w("\tfor _, x := range %s {\n\t\tkeys = append(keys, tableKey(x.Item()))\n\t}\n", names[i])
		}
		w("\tvar found []Item\n\tfor attempt := 0; len(keys) > 0; attempt++ {\n\t\tif err := backoff(ctx, attempt); err != nil {\n\t\t\treturn found, err\n\t\t}\n")
		w("\t\tn := min(len(keys), %d)\n", design.MaxBatchGets)
		w("\t\tout, err := c.DB.BatchGetItem(ctx, &dynamodb.BatchGetItemInput{RequestItems: map[string]types.KeysAndAttributes{c.Table: {Keys: keys[:n], ConsistentRead: aws.Bool(%v)}}})\n", p.Consistent)
		w("\t\tif err != nil {\n\t\t\treturn found, err\n\t\t}\n")
		w("\t\tfor _, item := range out.Responses[c.Table] {\n\t\t\tx, err := Decode(item)\n\t\t\tif err != nil {\n\t\t\t\treturn found, err\n\t\t\t}\n\t\t\tfound = append(found, x)\n\t\t}\n")
		w("\t\trest := keys[n:]\n\t\tif u, ok := out.UnprocessedKeys[c.Table]; ok {\n\t\t\trest = append(u.Keys, rest...)\n\t\t}\n\t\tkeys = rest\n\t}\n\treturn found, nil\n}\n\n")
	}
	return nil
}

// genTransactAction appends one action's TransactWriteItem (one per item
// of param, a slice when many) to actions. Names and values are added
// only as the expressions use them: DynamoDB refuses unused ones.
func genTransactAction(b *strings.Builder, d *design.Design, a *design.Action, param string, many bool) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := d.Entity(a.Entity)
	list := param
	if !many {
		list = "[]" + goName(e.Name) + "{" + param + "}"
	}
	w("\tfor _, x := range %s {\n", list)
	expr := genItemExprs(b, d, a, param)
	common := "TableName: aws.String(c.Table), ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values"
	switch a.Kind {
	case design.ActionPut:
		w("\t\tactions = append(actions, types.TransactWriteItem{Put: &types.Put{%s, Item: item}})\n", common)
	case design.ActionUpdate:
		w("\t\tactions = append(actions, types.TransactWriteItem{Update: &types.Update{%s, Key: tableKey(item)%s}})\n", common, expr)
	case design.ActionDelete:
		w("\t\tactions = append(actions, types.TransactWriteItem{Delete: &types.Delete{%s, Key: tableKey(item)}})\n", common)
	case design.ActionCheck:
		w("\t\tactions = append(actions, types.TransactWriteItem{ConditionCheck: &types.ConditionCheck{%s, Key: tableKey(item)}})\n", common)
	}
	w("\t}\n")
}

// genItemExprs writes the code that builds item x's item (item),
// expression names and values (names, values: nil when empty), condition
// (cond) and, for an update, its update expression (update); it returns
// the field naming the update (", UpdateExpression: ...", "" for another
// kind). param names x in errors. (gofmt indents it.)
func genItemExprs(b *strings.Builder, d *design.Design, a *design.Action, param string) string {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	e := d.Entity(a.Entity)
	pk := d.Table.PartitionKey[0].Name
	w("\t\titem := x.Item()\n\t\tnames := map[string]string{}\n\t\tvalues := map[string]types.AttributeValue{}\n\t\tvar conds []string\n")
	switch a.Condition {
	case design.NotExists:
		w("\t\tnames[\"#pk\"] = %q\n\t\tconds = append(conds, \"attribute_not_exists(#pk)\")\n", pk)
	case design.Exists:
		w("\t\tnames[\"#pk\"] = %q\n\t\tconds = append(conds, \"attribute_exists(#pk)\")\n", pk)
	}
	if a.Version != "" {
		// The item must still hold the version the caller read (or none,
		// when the caller read none).
		w("\t\tnames[\"#ver\"] = %q\n\t\tif v, ok := item[%q]; ok {\n\t\t\tvalues[\":ver\"] = v\n\t\t\tconds = append(conds, \"#ver = :ver\")\n\t\t} else {\n\t\t\tconds = append(conds, \"attribute_not_exists(#ver)\")\n\t\t}\n", a.Version, a.Version)
	}
	expr := ""
	if a.Kind == design.ActionUpdate {
		// SET the set attributes and every key (not the table's) built
		// from one of them; ADD the counters and one to the version.
		sets := slices.Clone(a.Set)
		for _, k := range e.Keys {
			t, _, _, _ := e.ValueOf(k.Attr)
			if !d.IsTableKey(k.Attr) && !slices.Contains(sets, k.Attr) && slices.ContainsFunc(t.Vars(), func(v string) bool { return slices.Contains(a.Set, v) }) {
				sets = append(sets, k.Attr)
			}
		}
		var adds []string
		for i, c := range a.Add {
			w("\t\tnames[\"#c%d\"], values[\":c%d\"] = %q, &types.AttributeValueMemberN{Value: %q}\n", i, i, c.Attr, c.By)
			adds = append(adds, fmt.Sprintf("#c%d :c%d", i, i))
		}
		if a.Version != "" {
			w("\t\tvalues[\":one\"] = &types.AttributeValueMemberN{Value: \"1\"}\n")
			adds = append(adds, "#ver :one")
		}
		switch {
		case len(sets) == 0:
			w("\t\tupdate := %q\n", "ADD "+strings.Join(adds, ", "))
		case len(adds) > 0:
			genSets(b, sets)
			w("\t\tupdate := %q\n\t\tif len(sets) > 0 {\n\t\t\tupdate = \"SET \" + strings.Join(sets, \", \") + \" \" + update\n\t\t}\n", "ADD "+strings.Join(adds, ", "))
		default:
			genSets(b, sets)
			w("\t\tif len(sets) == 0 {\n\t\t\treturn fmt.Errorf(\"%s: %s sets none of %s\")\n\t\t}\n\t\tupdate := \"SET \" + strings.Join(sets, \", \")\n", param, e.Name, strings.Join(sets, ", "))
		}
		expr = ", UpdateExpression: aws.String(update)"
	}
	w("\t\tvar cond *string\n\t\tif len(conds) > 0 {\n\t\t\tcond = aws.String(strings.Join(conds, \" AND \"))\n\t\t}\n")
	w("\t\tif len(names) == 0 {\n\t\t\tnames = nil\n\t\t}\n\t\tif len(values) == 0 {\n\t\t\tvalues = nil\n\t\t}\n")
	return expr
}

// hasBatch reports whether d has a batch pattern, whose method needs
// backoff (and the time package).
func hasBatch(d *design.Design) bool {
	return slices.ContainsFunc(d.Patterns, func(p *design.Pattern) bool {
		return p.Operation == design.BatchWriteItem || p.Operation == design.BatchGetItem
	})
}

// timeImport is the time package's import line when backoff is written.
func timeImport(d *design.Design) string {
	if hasBatch(d) {
		return "\t\"time\"\n"
	}
	return ""
}

// backoffHelper waits before a batch's next attempt: nothing before the
// first, then 50 ms doubling up to 3.2 s, as DynamoDB asks of a caller
// that sends unprocessed items again ("we strongly recommend that you use
// an exponential backoff algorithm", API reference, BatchWriteItem).
const backoffHelper = `// backoff waits before attempt (0: at once; then 50 ms, doubling to 3.2 s), or
// returns ctx's error.
func backoff(ctx context.Context, attempt int) error {
	if attempt == 0 {
		return nil
	}
	t := time.NewTimer(50 * time.Millisecond << min(attempt-1, 6))
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

`

// genSets writes the loop that SETs each of sets the item has, as
// #aN = :vN.
func genSets(b *strings.Builder, sets []string) {
	fmt.Fprintf(b, "\t\tvar sets []string\n\t\tfor i, name := range []string{%s} {\n\t\t\tif v, ok := item[name]; ok {\n", quoteList(sets))
	b.WriteString("\t\t\t\tn, val := fmt.Sprintf(\"#a%d\", i), fmt.Sprintf(\":v%d\", i)\n\t\t\t\tnames[n], values[val] = name, v\n\t\t\t\tsets = append(sets, n+\" = \"+val)\n\t\t\t}\n\t\t}\n")
}

// genOneItemWrite writes the method of a one-item write with a
// condition, version or counters (p.Write): PutItem, UpdateItem or
// DeleteItem, or a TransactWriteItems of that one action with
// transaction: true.
func genOneItemWrite(b *strings.Builder, d *design.Design, p *design.Pattern, method, doc string) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	a := p.Write
	op := a.Operation()
	w("// %s: %s (%s%s).\n//\n// A failed condition is a *types.", method, doc, strings.TrimPrefix(p.Summary(), "TransactWriteItems: "), inTransaction(p))
	if p.Transaction {
		w("TransactionCanceledException.\n")
	} else {
		w("ConditionalCheckFailedException.\n")
	}
	w("func (c *Client) %s(ctx context.Context, x %s) error {\n", method, goName(a.Entity))
	expr := genItemExprs(b, d, a, "x")
	common := "TableName: aws.String(c.Table), ConditionExpression: cond, ExpressionAttributeNames: names, ExpressionAttributeValues: values"
	switch {
	case p.Transaction:
		genTransactCall(b, a, common, expr)
	case op == "PutItem":
		w("\t_, err := c.DB.PutItem(ctx, &dynamodb.PutItemInput{%s, Item: item})\n", common)
	case op == "UpdateItem":
		w("\t_, err := c.DB.UpdateItem(ctx, &dynamodb.UpdateItemInput{%s, Key: tableKey(item)%s})\n", common, expr)
	default:
		w("\t_, err := c.DB.DeleteItem(ctx, &dynamodb.DeleteItemInput{%s, Key: tableKey(item)})\n", common)
	}
	w("\treturn err\n}\n\n")
}

// genTransactCall writes a TransactWriteItems of action a alone.
func genTransactCall(b *strings.Builder, a *design.Action, common, expr string) {
	item := map[string]string{
		design.ActionPut:    "Put: &types.Put{" + common + ", Item: item}",
		design.ActionUpdate: "Update: &types.Update{" + common + ", Key: tableKey(item)" + expr + "}",
		design.ActionDelete: "Delete: &types.Delete{" + common + ", Key: tableKey(item)}",
	}[a.Kind]
	fmt.Fprintf(b, "\t_, err := c.DB.TransactWriteItems(ctx, &dynamodb.TransactWriteItemsInput{TransactItems: []types.TransactWriteItem{{%s}}})\n", item)
}

// Package run runs a single-table design's read patterns against real
// data, as dynago design run does: Run creates the design's table (never
// touching an existing one), writes the items package sample generates
// for every entity, and runs each read pattern as a GetItem or Query,
// checking that it returns only the entity types it declares, in its
// declared order; then each transaction and batch (run_multi.go), checking
// what it wrote and that its guards refuse a second run. CreateTable makes the design's table alone (the tests
// of the generated code in examples/gen use it).
package run

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/sample"
)

// ErrTableExists is Run's error when the table is already there: Run
// creates its own and never writes into an existing one.
var ErrTableExists = errors.New("the table already exists")

// Result is what one read pattern, transaction or batch did when run
// against real data.
type Result struct {
	ID        string `json:"id"`
	Operation string `json:"operation"`
	Index     string `json:"index,omitempty"`
	// Bindings are the variable values the pattern ran with.
	Bindings map[string]string `json:"bindings"`
	// Items is how many items it returned, Types their entity types in
	// the order they came.
	Items int      `json:"items"`
	Types []string `json:"types"`
	// ConsumedCapacity is the capacity units DynamoDB reported, all
	// pages: read units for a read, write units for a write.
	ConsumedCapacity float64 `json:"consumedCapacity"`
	// Problems are what did not hold: an unexpected entity type, the
	// wrong order, no item found.
	Problems []string `json:"problems,omitempty"`
}

// Options configure Run.
type Options struct {
	// TableName overrides the design's table name (for a shared
	// endpoint).
	TableName string
	// ItemsPerEntity is how many items to generate for each entity
	// (default 6).
	ItemsPerEntity int
	// Progress, when not nil, gets a line for each step of the run
	// (creating the table, waiting for it to be ACTIVE, writing the
	// items, running the patterns), for a remote endpoint where each can
	// take seconds.
	Progress io.Writer
}

// say writes one progress line, when asked for them.
func (o Options) say(format string, args ...any) {
	if o.Progress != nil {
		fmt.Fprintf(o.Progress, format+"\n", args...)
	}
}

// Run creates the design's table through c (which must not exist yet),
// writes generated items for every entity, and runs every read pattern
// as a GetItem or Query, checking that it returns only the entity types
// it declares, in its declared order. It returns one result per read
// pattern, and whether it created the table (so that the caller deletes
// only a table it made); an error means the run itself failed (the
// table could not be created, an item not written).
func Run(ctx context.Context, d *design.Design, c *dynamodb.Client, opts Options) (results []Result, created bool, err error) {
	table := cmp.Or(opts.TableName, d.Table.Name)
	created, err = createTable(ctx, d, c, table, opts)
	if err != nil {
		return nil, created, err
	}
	items := sample.Generate(d, max(opts.ItemsPerEntity, 6))
	r := &runner{d: d, c: c, table: table, items: items, owner: map[string]*design.Entity{}, gone: map[string]bool{}, versions: map[string]string{}}
	start := time.Now()
	opts.say("writing %d generated items", len(items))
	for _, it := range items {
		av := attributeValues(it)
		if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String(table), Item: av}); err != nil {
			return nil, true, fmt.Errorf("writing a generated %s item: %w", it.Entity.Name, err)
		}
		r.owner[sample.TableKey(d, it.Attrs)] = it.Entity
	}
	var reads, multi []*design.Pattern
	for _, p := range d.Patterns {
		switch {
		case p.Multi():
			multi = append(multi, p)
		case p.Kind == "read":
			reads = append(reads, p)
		}
	}
	opts.say("wrote %d items in %s; running %d read patterns and %d multi-item patterns", len(items), time.Since(start).Round(time.Millisecond), len(reads), len(multi))
	for _, p := range reads {
		results = append(results, r.runPattern(ctx, p))
	}
	// The transactions and batches last: they change the items.
	for _, p := range multi {
		results = append(results, r.runMulti(ctx, p))
	}
	return results, true, nil
}

// CreateTable creates d's table and indexes, named table, through c and
// waits until it is ACTIVE; created says CreateTable succeeded (false
// when the table already existed: it is left as it is).
func CreateTable(ctx context.Context, d *design.Design, c *dynamodb.Client, table string) (created bool, err error) {
	return createTable(ctx, d, c, table, Options{})
}

// createTable is CreateTable, saying each step to opts.Progress.
func createTable(ctx context.Context, d *design.Design, c *dynamodb.Client, table string, opts Options) (created bool, err error) {
	schema := func(pk, sk []design.KeyAttr) []types.KeySchemaElement {
		var ks []types.KeySchemaElement
		for _, k := range pk {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyTypeHash})
		}
		for _, k := range sk {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(k.Name), KeyType: types.KeyTypeRange})
		}
		return ks
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(table), KeySchema: schema(d.Table.PartitionKey, d.Table.SortKey)}
	provisioned := d.Table.BillingMode == "PROVISIONED"
	throughput := &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(5), WriteCapacityUnits: aws.Int64(5)}
	if provisioned {
		in.ProvisionedThroughput = throughput
	} else {
		in.BillingMode = types.BillingModePayPerRequest
	}
	for _, ix := range d.Table.Indexes {
		proj := &types.Projection{ProjectionType: types.ProjectionType(ix.Projection)}
		if ix.Projection == "INCLUDE" {
			proj.NonKeyAttributes = ix.Include
		}
		if ix.Local {
			in.LocalSecondaryIndexes = append(in.LocalSecondaryIndexes, types.LocalSecondaryIndex{
				IndexName: aws.String(ix.Name), KeySchema: schema(d.Table.PartitionKey, ix.SortKey), Projection: proj})
			continue
		}
		g := types.GlobalSecondaryIndex{IndexName: aws.String(ix.Name), KeySchema: schema(ix.PartitionKey, ix.SortKey), Projection: proj}
		if provisioned {
			g.ProvisionedThroughput = throughput
		}
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, g)
	}
	for _, k := range d.AttributeDefinitions() {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{AttributeName: aws.String(k.Name), AttributeType: types.ScalarAttributeType(k.Type)})
	}
	opts.say("creating table %s", table)
	if _, err := c.CreateTable(ctx, in); err != nil {
		var inUse *types.ResourceInUseException
		if errors.As(err, &inUse) {
			return false, fmt.Errorf("%w: %s (pick another name with --table)", ErrTableExists, table)
		}
		return false, fmt.Errorf("creating table %s: %w", table, err)
	}
	w := dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 100 * time.Millisecond
		o.MaxDelay = time.Second
	})
	opts.say("waiting for table %s to be ACTIVE", table)
	start := time.Now()
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(table)}, 5*time.Minute); err != nil {
		return true, fmt.Errorf("waiting for table %s: %w", table, err)
	}
	opts.say("table %s is ACTIVE after %s", table, time.Since(start).Round(time.Millisecond))
	return true, nil
}

// attributeValues converts a generated item.
func attributeValues(it sample.Item) map[string]types.AttributeValue {
	av := map[string]types.AttributeValue{}
	for name, v := range it.Attrs {
		av[name] = sample.AttributeValue(v)
	}
	return av
}

// textOf returns a returned attribute value as text.
func textOf(v types.AttributeValue) string {
	switch v := v.(type) {
	case *types.AttributeValueMemberS:
		return v.Value
	case *types.AttributeValueMemberN:
		return v.Value
	case *types.AttributeValueMemberB:
		return string(v.Value)
	}
	return ""
}

// runner is one run of a design's patterns: the table it wrote through
// c, the generated items it wrote there, and the entity of each by its
// table key (sample.TableKey), to tell which entity a returned item is.
type runner struct {
	d     *design.Design
	c     *dynamodb.Client
	table string
	items []sample.Item
	owner map[string]*design.Entity
	// gone are the table keys of generated items a multi-item pattern
	// deleted, versions the version each versioned update left on its
	// item, fresher counts the fresh items made for puts.
	gone     map[string]bool
	versions map[string]string
	fresher  int
}

// runPattern binds p's variables from a generated item it should find,
// runs it, and checks what comes back.
func (r *runner) runPattern(ctx context.Context, p *design.Pattern) Result {
	op := r.d.Operation(p)
	res := Result{ID: p.ID, Operation: op, Index: p.Index, Types: []string{}}
	if p.Operation == "Scan" {
		res.Problems = append(res.Problems, "a Scan: not run (design check reports it)")
		return res
	}
	vals, ok := bindings(r.d, p, r.items)
	if !ok {
		res.Problems = append(res.Problems, "no generated item of "+strings.Join(p.Returns, ", ")+" has keys this pattern can find")
		return res
	}
	res.Bindings = vals
	names := map[string]string{}
	values := map[string]types.AttributeValue{}
	var conds []string
	key := map[string]types.AttributeValue{}
	for i, cnd := range p.Conditions {
		names[fmt.Sprintf("#k%d", i)] = cnd.Attr
		typ := r.d.KeyType(cnd.Attr)
		var ops []string
		for j, t := range cnd.Values {
			text := renderBound(t, vals, cnd.Op, j, typ)
			name := fmt.Sprintf(":v%d_%d", i, j)
			values[name] = sample.AttributeValue(sample.Value{Type: typ, Text: text})
			ops = append(ops, name)
			key[cnd.Attr] = values[name]
		}
		switch cnd.Op {
		case "begins_with":
			conds = append(conds, fmt.Sprintf("begins_with(#k%d, %s)", i, ops[0]))
		case "between":
			conds = append(conds, fmt.Sprintf("#k%d BETWEEN %s AND %s", i, ops[0], ops[1]))
		default:
			conds = append(conds, fmt.Sprintf("#k%d %s %s", i, cnd.Op, ops[0]))
		}
	}
	var got []map[string]types.AttributeValue
	if op == "GetItem" {
		out, err := r.c.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(r.table), Key: key, ConsistentRead: aws.Bool(p.Consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
		if err != nil {
			res.Problems = append(res.Problems, "GetItem: "+err.Error())
			return res
		}
		if out.ConsumedCapacity != nil {
			res.ConsumedCapacity += aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
		}
		if out.Item != nil {
			got = append(got, out.Item)
		}
	} else {
		in := &dynamodb.QueryInput{
			ConsistentRead: aws.Bool(p.Consistent),
			TableName:      aws.String(r.table), KeyConditionExpression: aws.String(strings.Join(conds, " AND ")),
			ExpressionAttributeNames: names, ExpressionAttributeValues: values,
			ScanIndexForward: aws.Bool(p.Order != "descending"), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		}
		if p.Index != "" {
			in.IndexName = aws.String(p.Index)
		}
		if p.PageSize > 0 {
			in.Limit = aws.Int32(int32(p.PageSize))
		}
		// A pattern with a page size reads one page, as the application
		// does; one without reads every page (at most ten).
		for page := 0; page < 10; page++ {
			out, err := r.c.Query(ctx, in)
			if err != nil {
				res.Problems = append(res.Problems, "Query: "+err.Error())
				return res
			}
			if out.ConsumedCapacity != nil {
				res.ConsumedCapacity += aws.ToFloat64(out.ConsumedCapacity.CapacityUnits)
			}
			got = append(got, out.Items...)
			if out.LastEvaluatedKey == nil || p.PageSize > 0 {
				break
			}
			in.ExclusiveStartKey = out.LastEvaluatedKey
		}
	}
	res.Items = len(got)
	if len(got) == 0 {
		res.Problems = append(res.Problems, "returned no item, though it ran with the values of a generated item it should find")
	}
	if one, by := r.d.ExpectsOne(p); one && len(got) > 1 {
		why := "it says expects: one"
		if len(by) > 0 {
			why = "its key binds " + p.Returns[0] + "'s identity (" + strings.Join(by, ", ") + ")"
		}
		res.Problems = append(res.Problems, fmt.Sprintf("returned %d items, but expects one (%s): the key is not unique, so a lookup by it finds several items", len(got), why))
	}
	var unexpected []string
	for _, it := range got {
		e := r.itemEntity(it)
		name := "?"
		if e != nil {
			name = e.Name
		}
		res.Types = append(res.Types, name)
		if !slices.Contains(p.Returns, name) && !slices.Contains(unexpected, name) {
			unexpected = append(unexpected, name)
		}
	}
	if len(unexpected) > 0 {
		res.Problems = append(res.Problems, "returned "+strings.Join(unexpected, ", ")+" items, which the pattern does not expect")
	}
	if msg := r.orderProblem(p, got); msg != "" {
		res.Problems = append(res.Problems, msg)
	}
	return res
}

// itemEntity returns the entity of a returned item, by its table key.
func (r *runner) itemEntity(it map[string]types.AttributeValue) *design.Entity {
	var b strings.Builder
	for _, ka := range slices.Concat(r.d.Table.PartitionKey, r.d.Table.SortKey) {
		b.WriteString(textOf(it[ka.Name]))
		b.WriteByte(0)
	}
	return r.owner[b.String()]
}

// renderBound renders operand i of a condition with operator op on a
// key of type typ. Variables the sample item does not have (a range's
// <from> and <to>), and every variable of <, <=, > and >= (whose bound
// must not exclude the sample item), take the lowest value on a lower
// bound and the highest on an upper one.
func renderBound(t design.Template, vals map[string]string, op string, i int, typ string) string {
	high := op == "<" || op == "<=" || (op == "between" && i == 1)
	low, hi := "", "\U0010FFFF"
	if typ == "N" {
		low, hi = "-9.9E+125", "9.9E+125"
	}
	full := map[string]string{}
	if op != "<" && op != "<=" && op != ">" && op != ">=" {
		for k, v := range vals {
			full[k] = v
		}
	}
	for _, v := range t.Vars() {
		if _, ok := full[v]; !ok {
			full[v] = low
			if high {
				full[v] = hi
			}
		}
	}
	s, _ := t.Render(full)
	return s
}

// bindings picks the variable values of a generated item that p should
// find: an item of an entity it returns, in its index, whose key values
// equal the pattern's equalities rendered with the item's values.
func bindings(d *design.Design, p *design.Pattern, items []sample.Item) (map[string]string, bool) {
	for _, it := range items {
		if !slices.Contains(p.Returns, it.Entity.Name) || !d.InIndex(it.Entity, p.Index) {
			continue
		}
		ok := true
		for _, c := range p.Conditions {
			av, has := it.Attrs[c.Attr]
			if !has {
				ok = false
				break
			}
			if c.Op == "=" {
				s, err := c.Values[0].Render(it.Vals)
				ok = ok && err == nil && s == av.Text
			}
		}
		if ok {
			return it.Vals, true
		}
	}
	return nil, false
}

// orderProblem checks that items of one entity came in the intended
// order, when the pattern declares one: the order of their sort key's
// variables by type (numbers by value, times by time), ascending or
// descending. A Query
// returns the sort key's byte order; where that differs (ISSUE#10 before
// ISSUE#2), the design's key does not sort as its pattern means.
func (r *runner) orderProblem(p *design.Pattern, got []map[string]types.AttributeValue) string {
	_, sk, _ := r.d.KeySchema(p.Index)
	if len(sk) == 0 || p.Order == "" {
		return "" // no order declared, none intended
	}
	attr := sk[0].Name
	for i := 1; i < len(got); i++ {
		ea, eb := r.itemEntity(got[i-1]), r.itemEntity(got[i])
		if ea == nil || ea != eb {
			continue
		}
		t, _, _, _ := ea.ValueOf(attr)
		a, b := textOf(got[i-1][attr]), textOf(got[i][attr])
		c, ok := compareIntended(ea, t, a, b, sk[0].Type)
		if ok && ((p.Order == "descending" && c < 0) || (p.Order != "descending" && c > 0)) {
			return fmt.Sprintf("%s %s %q came before %q, out of the %s order of its values: the key does not sort as the pattern means", ea.Name, attr, a, b, cmp.Or(p.Order, "ascending"))
		}
	}
	return ""
}

// compareIntended compares two values of template t by their variables'
// types; ok is false when a value does not parse back.
func compareIntended(e *design.Entity, t design.Template, a, b, keyType string) (int, bool) {
	if keyType == "N" {
		fa, erra := strconv.ParseFloat(a, 64)
		fb, errb := strconv.ParseFloat(b, 64)
		return cmp.Compare(fa, fb), erra == nil && errb == nil
	}
	va, oka := t.Parse(a)
	vb, okb := t.Parse(b)
	if !oka || !okb {
		return 0, false
	}
	for _, v := range t.Vars() {
		x, y := va[v], vb[v]
		if a := e.Attribute(v); a != nil && (a.Type == "N" || a.Type == "epoch") {
			fx, errx := strconv.ParseFloat(x, 64)
			fy, erry := strconv.ParseFloat(y, 64)
			if errx == nil && erry == nil {
				if c := cmp.Compare(fx, fy); c != 0 {
					return c, true
				}
				continue
			}
		}
		if c := strings.Compare(x, y); c != 0 {
			return c, true
		}
	}
	return 0, true
}

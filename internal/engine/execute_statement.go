package engine

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/partiql"
	"github.com/dynago/dynago/internal/storage"
)

// ExecuteStatement runs one PartiQL statement through the operation it
// stands for: a SELECT as Query (its WHERE fixes the partition key, with
// = or IN, on the table or the index named) or else Scan; INSERT as
// PutItem, UPDATE as UpdateItem and DELETE as DeleteItem. Capacity,
// throttling, streams, TTL and index maintenance are therefore those of
// the operation run.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_ExecuteStatement.html
func (e *Engine) ExecuteStatement(ctx context.Context, in *api.ExecuteStatementInput) (*api.ExecuteStatementOutput, error) {
	w := writeOptions{params: in.Params, capacity: in.ReturnConsumedCapacity, onFailure: in.ReturnValuesOnConditionCheckFailure}
	switch st := in.Parsed.(type) {
	case *partiql.Select:
		return e.partiqlSelect(ctx, st, in)
	case *partiql.Insert, *partiql.Update, *partiql.Delete:
		plan, err := e.planWrite(ctx, in.Parsed, w)
		if err != nil {
			return nil, err
		}
		item, cc, err := e.runWrite(ctx, plan)
		if err != nil {
			return nil, err
		}
		out := &api.ExecuteStatementOutput{Items: [][]byte{}, ConsumedCapacity: cc}
		if item != nil {
			out.Items = append(out.Items, item)
		}
		return out, nil
	case *partiql.Exists:
		return nil, ddberr.Validation("EXISTS statements are only supported in ExecuteTransaction")
	case *partiql.ExprStatement:
		return nil, ddberr.Validation("Unsupported operation: " + operationName(st.X))
	}
	return nil, ddberr.Validation(partiql.NotWellFormed + "Expected data manipulation")
}

// operationName names a bare expression statement's operation as
// DynamoDB's refusal does ("Unsupported operation: IsType",
// partiqlGrammar.test.ts).
func operationName(x partiql.Expr) string {
	switch v := x.(type) {
	case *partiql.Is:
		return "IsType"
	case *partiql.Paren:
		return operationName(v.X)
	case *partiql.Binary:
		return "NAry"
	case *partiql.Call:
		return "Call"
	case *partiql.Path:
		return "Path"
	}
	return "Lit"
}

// tableFor returns the ACTIVE table name names.
func (e *Engine) tableFor(ctx context.Context, name string) (*catalog.Table, error) {
	var t *catalog.Table
	err := e.read(ctx, func(tx storage.Txn) error {
		var err error
		t, err = e.activeTable(tx, name)
		return err
	})
	return t, err
}

// PartiQL read messages, DynamoDB's words.
const (
	// msgMultiKey: a read of a GSI with a multi-attribute key
	// (partiqlMultiAttributeIndex.test.ts).
	msgMultiKey = "PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE keys."
	// msgNoIndex and msgGSIConsistent: indexReads.test.ts (real
	// DynamoDB, 2026-09-02).
	msgNoIndex       = "The table does not have the specified index"
	msgGSIConsistent = "Strongly consistent read is not supported on Global Secondary Indexes"
	// msgOrderByScan is dynago's wording for ORDER BY on a statement that
	// is a Scan; DynamoDB refuses it (developer guide, "PartiQL select
	// statements": ORDER BY needs the partition key in the WHERE clause).
	msgOrderByScan = "Must have WHERE clause in the statement when using ORDER BY clause."
)

// readTarget is what a SELECT reads: the table or one of its indexes,
// with that key space's key attribute names.
type readTarget struct {
	table *catalog.Table
	index *catalog.Index // nil for the table
	hash  string
	rng   string // "" without a sort key
}

// resolveTarget finds a SELECT's table and index and applies the index
// rules in DynamoDB's order: the index exists, its key is not
// multi-attribute, a GSI is not read consistently.
func (e *Engine) resolveTarget(ctx context.Context, from partiql.Target, consistent bool) (*readTarget, error) {
	t, err := e.tableFor(ctx, from.Table)
	if err != nil {
		return nil, err
	}
	rt := &readTarget{table: t}
	rt.hash, _ = t.HashKey()
	rt.rng, _, _ = t.RangeKey()
	if !from.Indexed {
		return rt, nil
	}
	ix := t.Index(from.Index)
	if ix == nil {
		return nil, ddberr.Validation(msgNoIndex)
	}
	if len(ix.HashKeys()) > 1 || len(ix.RangeKeys()) > 1 {
		return nil, ddberr.Validation(msgMultiKey)
	}
	if !ix.Local && consistent {
		return nil, ddberr.Validation(msgGSIConsistent)
	}
	rt.index = ix
	rt.hash = ix.HashKeys()[0].AttributeName
	rt.rng = ""
	if r := ix.RangeKeys(); len(r) == 1 {
		rt.rng = r[0].AttributeName
	}
	return rt, nil
}

// selectPlan is a SELECT made ready to run: its filter (the whole WHERE
// clause, evaluated by PartiQL's rules on every item read), projection,
// and the partitions it reads (nil: a Scan).
type selectPlan struct {
	target     *readTarget
	filter     expr.Expr
	projection []*partiql.Path
	partitions []attr.Value
	query      bool
	sortCond   *partiql.KeyCondition
	params     []attr.Value
	forward    bool
}

// planSelect checks a SELECT and decides how it reads.
func (e *Engine) planSelect(ctx context.Context, st *partiql.Select, params []attr.Value, consistent bool) (*selectPlan, error) {
	rt, err := e.resolveTarget(ctx, st.From, consistent)
	if err != nil {
		return nil, err
	}
	p := &selectPlan{target: rt, forward: true, params: params}
	for _, x := range st.Projection {
		path, ok := partiql.Unparen(x).(*partiql.Path)
		if !ok || path.Elems[0].Name == "*" {
			return nil, ddberr.Validation("Unexpected path component at " + x.Pos().String())
		}
		p.projection = append(p.projection, path)
	}
	if err := checkProjection(p.projection); err != nil {
		return nil, err
	}
	if rt.index != nil && !rt.index.Local && p.projection != nil {
		if missing := unprojected(rt.table, rt.index, exprPaths(p.projection)); len(missing) > 0 {
			return nil, ddberr.InvalidParam("Global secondary index " + rt.index.Name + " does not project [" + strings.Join(missing, ", ") + "]")
		}
	}
	if st.Where != nil {
		b := partiql.NewBuilder(params)
		text, err := b.Condition(st.Where)
		if err != nil {
			return nil, err
		}
		ctxExpr := expr.NewContext(b.Names, b.Values)
		if p.filter, err = ctxExpr.ParseCondition(expr.FilterExpression, text); err != nil {
			return nil, partiql.StripKind(err, expr.FilterExpression)
		}
		if err := partiql.CheckOverlap(st.Where, rt.hash, rt.rng); err != nil {
			return nil, err
		}
	}
	if p.partitions, p.query, err = partiql.PartitionValues(st.Where, rt.hash, params); err != nil {
		return nil, err
	}
	if len(st.OrderBy) > 0 {
		if !p.query {
			return nil, ddberr.Validation(msgOrderByScan)
		}
		// A Query returns one partition in sort key order: the first key
		// orders it (developer guide, "PartiQL select statements":
		// ORDER BY key [DESC|ASC]).
		p.forward = !st.OrderBy[0].Desc
	}
	for _, v := range p.partitions {
		if err := checkKeyTypes(rt.table, attr.Item{rt.hash: v}); err != nil {
			return nil, err
		}
	}
	if p.query && len(p.partitions) == 1 {
		if kc, ok := partiql.SortCondition(st.Where, rt.rng); ok && kc.Op != "BEGINS_WITH" {
			for _, x := range kc.Values {
				v, err := partiql.Value(x, params)
				if err != nil {
					return nil, err
				}
				if err := checkKeyTypes(rt.table, attr.Item{rt.rng: v}); err != nil {
					return nil, err
				}
			}
			p.sortCond = &kc
		} else if ok {
			p.sortCond = &kc
		}
	}
	return p, nil
}

// sortText renders a sort key condition with b.
func sortText(b *partiql.Builder, rng string, kc partiql.KeyCondition) (string, error) {
	name := b.Name(rng)
	vals := make([]string, len(kc.Values))
	for i, x := range kc.Values {
		v, err := partiql.Value(x, b.Params)
		if err != nil {
			return "", err
		}
		vals[i] = b.Val(v)
	}
	switch kc.Op {
	case "BETWEEN":
		return name + " BETWEEN " + vals[0] + " AND " + vals[1], nil
	case "BEGINS_WITH":
		return "begins_with(" + name + ", " + vals[0] + ")", nil
	}
	return name + " " + kc.Op + " " + vals[0], nil
}

func exprPaths(ps []*partiql.Path) []*expr.Path {
	out := make([]*expr.Path, len(ps))
	for i, p := range ps {
		out[i] = toExprPath(p)
	}
	return out
}

func toExprPath(p *partiql.Path) *expr.Path {
	ep := &expr.Path{}
	for _, el := range p.Elems {
		ep.Elems = append(ep.Elems, expr.Elem{Name: el.Name, Raw: el.Name, Index: el.Index, IsIndex: el.IsIndex})
	}
	return ep
}

// pageToken is a SELECT's NextToken: the statement it pages (a hash of
// its text), the partition the next page starts in (for a Query over
// several partitions) and the key to resume after.
type pageToken struct {
	Statement string          `json:"s"`
	Part      int             `json:"p"`
	Key       json.RawMessage `json:"k"`
}

// NextToken messages. A token for another statement (even one whose AND
// conditions are only written in another order) is refused with real
// DynamoDB's "NextToken does not match request", as a user quoted it
// (aws/aws-sdk-js-v3#4424, 2023:
// https://github.com/aws/aws-sdk-js-v3/issues/4424); a token that is not
// one gets DynamoDB Local's words, as a public driver's documentation
// recorded them, which no capture of DynamoDB itself pins.
const (
	msgBadToken   = "Invalid NextToken"
	msgOtherToken = "NextToken does not match request"
)

func statementHash(statement string) string {
	sum := sha256.Sum256([]byte(statement))
	return hex.EncodeToString(sum[:8])
}

func encodeToken(statement string, part int, key attr.Item) string {
	js, _ := json.Marshal(pageToken{Statement: statementHash(statement), Part: part, Key: attr.AppendItem(nil, key)})
	return base64.StdEncoding.EncodeToString(js)
}

func decodeToken(statement, s string) (int, attr.Item, error) {
	bad := ddberr.Validation(msgBadToken)
	raw, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return 0, nil, bad
	}
	var t pageToken
	if err := json.Unmarshal(raw, &t); err != nil || t.Part < 0 {
		return 0, nil, bad
	}
	if t.Statement != statementHash(statement) {
		return 0, nil, ddberr.Validation(msgOtherToken)
	}
	key, err := attr.DecodeItem(t.Key)
	if err != nil {
		return 0, nil, bad
	}
	return t.Part, key, nil
}

// partiqlSelect runs a SELECT: a Query per partition the WHERE fixes, or
// a Scan, each item filtered by the WHERE clause and projected.
func (e *Engine) partiqlSelect(ctx context.Context, st *partiql.Select, in *api.ExecuteStatementInput) (*api.ExecuteStatementOutput, error) {
	p, err := e.planSelect(ctx, st, in.Params, in.IsConsistent())
	if err != nil {
		return nil, err
	}
	part, start, read := 0, attr.Item(nil), 0
	if in.NextToken != nil {
		if part, start, err = decodeToken(*in.Statement, *in.NextToken); err != nil {
			return nil, err
		}
	}
	out := &api.ExecuteStatementOutput{Items: [][]byte{}}
	limit := int64(-1)
	if in.Limit != nil {
		limit = *in.Limit
	}
	// A page reads at most 1 MB of items in all, its partitions' Queries
	// together (API reference, ExecuteStatement: "a maximum of 1 MB of
	// data (and then apply any filtering to the results using WHERE
	// clause)").
	budget := maxPageBytes
	for {
		rr := p.readRequest(in, start, limit)
		rr.MaxBytes = budget
		var res *api.ReadOutput
		if p.query {
			if part >= len(p.partitions) {
				return out, nil
			}
			var q *api.QueryInput
			if q, err = p.queryInput(rr, p.partitions[part]); err == nil {
				res, err = e.Query(ctx, q)
			}
		} else {
			sc := &api.ScanInput{ReadRequest: rr}
			if err = sc.Prepare(); err == nil {
				res, err = e.Scan(ctx, sc)
			}
		}
		if err != nil {
			return nil, err
		}
		out.ConsumedCapacity = addCapacity(out.ConsumedCapacity, res.ConsumedCapacity)
		if err := p.collect(res, out); err != nil {
			return nil, err
		}
		if limit > 0 {
			limit -= int64(res.ScannedCount)
		}
		budget -= res.ReadBytes
		if res.LastEvaluatedKey != nil {
			out.LastEvaluatedKey = res.LastEvaluatedKey
			out.NextToken = encodeToken(*in.Statement, part, res.LastEvaluatedKey)
			return out, nil
		}
		if !p.query {
			return out, nil
		}
		part, start = part+1, nil
		read++
		// A page ends at Limit, once it has read 1 MB, or after
		// inPagePartitions partitions, with the next partition to read in
		// its NextToken.
		if part < len(p.partitions) && (limit == 0 || read >= inPagePartitions || budget <= 0) {
			out.NextToken = encodeToken(*in.Statement, part, nil)
			return out, nil
		}
	}
}

// inPagePartitions is the most partitions of an IN list one page reads:
// "Results are returned in pages of up to 10 items. If the IN list
// contains more values, you must use the NextToken returned in the
// response to retrieve subsequent pages" (developer guide, "PartiQL
// operators": https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-operators.html),
// read as ten partition key values a page, which is ten items on a table
// without a sort key.
const inPagePartitions = 10

// readRequest is the ReadRequest shared by the plan's Queries and Scan.
func (p *selectPlan) readRequest(in *api.ExecuteStatementInput, start attr.Item, limit int64) api.ReadRequest {
	table := p.target.table.Name
	rr := api.ReadRequest{
		TableName:              &table,
		ConsistentRead:         in.ConsistentRead,
		ReturnConsumedCapacity: in.ReturnConsumedCapacity,
		ExclusiveStartKey:      start,
	}
	if len(start) == 0 {
		rr.ExclusiveStartKey = nil
	}
	if limit > 0 {
		rr.Limit = &limit
	}
	if ix := p.target.index; ix != nil {
		name := ix.Name
		rr.IndexName = &name
		if ix.Local && p.projection != nil {
			all := "ALL_ATTRIBUTES"
			rr.Select = &all
		}
	}
	return rr
}

// queryInput is the Query of one partition, prepared.
func (p *selectPlan) queryInput(rr api.ReadRequest, value attr.Value) (*api.QueryInput, error) {
	b := partiql.NewBuilder(p.params)
	cond := b.Name(p.target.hash) + " = " + b.Val(value)
	if p.sortCond != nil {
		s, err := sortText(b, p.target.rng, *p.sortCond)
		if err != nil {
			return nil, err
		}
		cond += " AND " + s
	}
	forward := p.forward
	q := &api.QueryInput{ReadRequest: rr, KeyConditionExpression: &cond, ScanIndexForward: &forward}
	q.ExpressionParams.Names, q.ExpressionParams.Values = b.Names, b.Values
	if err := q.Prepare(); err != nil {
		return nil, partiql.StripKind(err, expr.KeyConditionExpression)
	}
	return q, nil
}

// collect filters and projects one page's items into out.
func (p *selectPlan) collect(res *api.ReadOutput, out *api.ExecuteStatementOutput) error {
	items, err := pageItems(res)
	if err != nil {
		return err
	}
	for _, item := range items {
		if p.filter != nil && !eval.Condition(p.filter, item) {
			continue
		}
		if p.projection != nil {
			item = project(item, p.projection)
		}
		out.Items = append(out.Items, attr.AppendItem(nil, item))
	}
	return nil
}

// project applies a SELECT's projection: each path's value under its
// name, the path's last name and the list indexes after it (SELECT
// m.k[1], l[0], m.z gives k[1], l[0] and z: DynamoDB Local, as a public
// driver's documentation recorded it; executeStatement.test.ts for
// mymap.nested, real DynamoDB).
func project(item attr.Item, paths []*partiql.Path) attr.Item {
	out := attr.Item{}
	for _, p := range paths {
		if v, ok := eval.Resolve(item, toExprPath(p)); ok {
			out[projectedName(p)] = v
		}
	}
	return out
}

// projectedName is the name a projected path's value comes back under.
func projectedName(p *partiql.Path) string {
	last := 0
	for i, el := range p.Elems {
		if !el.IsIndex {
			last = i
		}
	}
	name := p.Elems[last].Name
	for _, el := range p.Elems[last+1:] {
		name += "[" + strconv.Itoa(el.Index) + "]"
	}
	return name
}

// checkProjection refuses two projected paths that come back under one
// name (DynamoDB Local's "Duplicate identifiers in select clause: z", as
// a public driver's documentation recorded it).
func checkProjection(paths []*partiql.Path) error {
	seen := map[string]bool{}
	for _, p := range paths {
		n := projectedName(p)
		if seen[n] {
			return ddberr.Validation("Duplicate identifiers in select clause: " + n)
		}
		seen[n] = true
	}
	return nil
}

// pageItems decodes the items of a Query or Scan page.
func pageItems(res *api.ReadOutput) ([]attr.Item, error) {
	body := res.AppendJSON(nil)
	var page struct {
		Items []json.RawMessage
	}
	if err := json.Unmarshal(body, &page); err != nil {
		return nil, err
	}
	out := make([]attr.Item, 0, len(page.Items))
	for _, raw := range page.Items {
		item, err := attr.DecodeItem(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, item)
	}
	return out, nil
}

// addCapacity sums two ConsumedCapacity reports of one table.
func addCapacity(a, b *api.ConsumedCapacity) *api.ConsumedCapacity {
	if b == nil {
		return a
	}
	if a == nil {
		c := *b
		return &c
	}
	a.CapacityUnits += b.CapacityUnits
	a.ReadUnits += b.ReadUnits
	a.WriteUnits += b.WriteUnits
	a.TableUnits += b.TableUnits
	for n, u := range b.GSIs {
		a.AddIndex(n, false, u)
		a.CapacityUnits -= u
	}
	for n, u := range b.LSIs {
		a.AddIndex(n, true, u)
		a.CapacityUnits -= u
	}
	return a
}

package console

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The query builder of a table's page: its form (URL parameters, so that
// a result is a link that reload, Back and paging keep) and the Scan or
// Query request it makes, with ExpressionAttributeNames and
// ExpressionAttributeValues placeholders for every name and value, so
// that reserved words (year, name, status) and any value work.
//
// Parameters: index (an index name, "" the table), for (the index the
// key fields were shown for), op (scan, query), pk, skop (= < <= > >=
// between begins_with, "" none), sk, sk2, filter rows as parallel lists
// fa (attribute; a.b is a nested path), fo (operator), ft (the value's
// type), fv, fv2; proj (attributes, comma-separated), order (asc, desc),
// limit (the page size), one (1: a filtered page is one request, not
// read on until it is full: items_fill.go), p (the paging stack:
// base64url JSON of the ExclusiveStartKeys of the pages before, each the
// start of its page's first request, the last one this page's) and
// skip (how many pages before the stack's first were dropped from it, to
// keep the address short: see itemsMaxStack).

// itemsDefaultLimit is the page size when none is given, as DynamoDB's
// console (50 items a page).
const itemsDefaultLimit = 50

// itemsMaxStack is the most characters of a paging link's p: past it the
// oldest keys are dropped (counted in skip), so that paging on through a
// large table keeps its links under the server's 16 KB limit on a
// request's line and headers. Back then goes back as far as the keys
// kept; the first page is a link of its own.
const itemsMaxStack = 8 << 10

// itemsForm is the query builder's state.
type itemsForm struct {
	Index, For     string
	Op             string // "scan" or "query"
	PK             string
	SKOp, SK, SK2  string
	Filters        []itemsFilter
	Projection     string
	Order          string // "asc" or "desc"
	Limit          int
	LimitText      string
	Stack          []Item
	LimitErr, PErr string
	IndexChanged   bool
	// One reads a filtered page with one request (one=1), not until the
	// page is full.
	One bool
	// Skipped is how many pages came before Stack's first (skip).
	Skipped int
}

// itemsFilter is one row of the filter: attribute, operator, the value's
// type and the value (two for between).
type itemsFilter struct{ Attr, Op, Type, Value, Value2 string }

// itemsFilterOps are the filter's operators, as the select offers them.
var itemsFilterOps = []struct{ Op, Label string }{
	{"=", "="}, {"<>", "≠"}, {"<", "<"}, {"<=", "≤"}, {">", ">"}, {">=", "≥"},
	{"between", "between"}, {"begins_with", "begins with"}, {"contains", "contains"},
	{"not_contains", "does not contain"}, {"exists", "exists"}, {"not_exists", "does not exist"},
}

// itemsSKOps are the sort key conditions a Query takes (API reference,
// Query, KeyConditionExpression).
var itemsSKOps = []struct{ Op, Label string }{
	{"", "(any)"}, {"=", "="}, {"<", "<"}, {"<=", "≤"}, {">", ">"}, {">=", "≥"},
	{"between", "between"}, {"begins_with", "begins with"},
}

// parseItemsForm reads the form from URL parameters q. Mistakes the
// console itself finds (a page size that is not a number, a paging stack
// that does not decode) are in LimitErr and PErr.
func parseItemsForm(q url.Values) itemsForm {
	f := itemsForm{
		Index: q.Get("index"), For: q.Get("for"), Op: q.Get("op"), PK: q.Get("pk"),
		SKOp: q.Get("skop"), SK: q.Get("sk"), SK2: q.Get("sk2"),
		Projection: q.Get("proj"), Order: q.Get("order"), LimitText: strings.TrimSpace(q.Get("limit")),
		One: q.Get("one") == "1",
	}
	if f.Op != "query" {
		f.Op = "scan"
	}
	if f.Order != "desc" {
		f.Order = "asc"
	}
	if q.Has("for") && f.For != f.Index {
		// The index changed: the key fields were another index's.
		f.Op, f.PK, f.SKOp, f.SK, f.SK2 = "scan", "", "", "", ""
		f.IndexChanged = true
	}
	f.For = f.Index
	f.Limit = itemsDefaultLimit
	if f.LimitText != "" {
		n, err := strconv.Atoi(f.LimitText)
		if err != nil {
			f.LimitErr = fmt.Sprintf("The page size %q is not a whole number.", f.LimitText)
		} else {
			f.Limit = n
		}
	}
	fa, fo, ft, fv, fv2 := q["fa"], q["fo"], q["ft"], q["fv"], q["fv2"]
	at := func(l []string, i int) string {
		if i < len(l) {
			return l[i]
		}
		return ""
	}
	for i := range fa {
		r := itemsFilter{Attr: strings.TrimSpace(fa[i]), Op: at(fo, i), Type: at(ft, i), Value: at(fv, i), Value2: at(fv2, i)}
		if r.Attr != "" {
			f.Filters = append(f.Filters, r)
		}
	}
	if p := q.Get("p"); p != "" {
		stack, err := itemsDecodeStack(p)
		if err != nil {
			f.PErr = "The paging position (p) in the address does not decode: " + err.Error() + ". Start again from the first page."
		} else {
			f.Stack = stack
		}
	}
	if s := q.Get("skip"); s != "" && f.PErr == "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || len(f.Stack) == 0 {
			f.PErr = fmt.Sprintf("The paging position (skip=%q) in the address is not a count of pages before p. Start again from the first page.", s)
		} else {
			f.Skipped = n
		}
	}
	return f
}

// PageNo is the page's number, 1 the first.
func (f itemsForm) PageNo() int { return f.Skipped + len(f.Stack) + 1 }

// setPaging sets v's p and skip to the paging position skipped, stack,
// dropping the oldest keys while p is longer than itemsMaxStack (the
// last key, the page's own, is kept).
func setPaging(v url.Values, skipped int, stack []Item) {
	p := itemsEncodeStack(stack)
	for len(p) > itemsMaxStack && len(stack) > 1 {
		drop := max(1, len(stack)*(len(p)-itemsMaxStack)/len(p))
		stack, skipped = stack[drop:], skipped+drop
		p = itemsEncodeStack(stack)
	}
	v.Del("p")
	v.Del("skip")
	if p != "" {
		v.Set("p", p)
		if skipped > 0 {
			v.Set("skip", strconv.Itoa(skipped))
		}
	}
}

// itemsEncodeStack and itemsDecodeStack are the paging stack's p parameter.
func itemsEncodeStack(stack []Item) string {
	if len(stack) == 0 {
		return ""
	}
	b, _ := json.Marshal(stack)
	return base64.RawURLEncoding.EncodeToString(b)
}

func itemsDecodeStack(p string) ([]Item, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p, "="))
	if err != nil {
		return nil, err
	}
	var stack []Item
	if err := json.Unmarshal(b, &stack); err != nil {
		if _, ok := err.(*json.UnmarshalTypeError); ok {
			return nil, fmt.Errorf("it is not a list of keys")
		}
		return nil, err
	}
	return stack, nil
}

// values returns the form as URL parameters (without p), the base of
// every paging and download link.
func (f itemsForm) values() url.Values {
	v := url.Values{}
	set := func(k, s string) {
		if s != "" {
			v.Set(k, s)
		}
	}
	set("index", f.Index)
	v.Set("op", f.Op)
	if f.Op == "query" {
		set("pk", f.PK)
		set("skop", f.SKOp)
		if f.SKOp != "" {
			set("sk", f.SK)
		}
		if f.SKOp == "between" {
			set("sk2", f.SK2)
		}
		if f.Order == "desc" {
			v.Set("order", "desc")
		}
	}
	for _, r := range f.Filters {
		v.Add("fa", r.Attr)
		v.Add("fo", r.Op)
		v.Add("ft", r.Type)
		v.Add("fv", r.Value)
		v.Add("fv2", r.Value2)
	}
	set("proj", f.Projection)
	if f.One {
		v.Set("one", "1")
	}
	if f.Limit != itemsDefaultLimit {
		v.Set("limit", strconv.Itoa(f.Limit))
	}
	return v
}

// itemsRequest is a Scan or Query request as the console sends it (API
// reference: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Query.html
// and API_Scan.html), its members in the order a reader looks for them.
// Limit is sent as given, 0 too, for DynamoDB to refuse (left out, a page
// size of 0 would read pages of up to 1 MB).
type itemsRequest struct {
	TableName                 string
	IndexName                 string                     `json:",omitempty"`
	KeyConditionExpression    string                     `json:",omitempty"`
	FilterExpression          string                     `json:",omitempty"`
	ProjectionExpression      string                     `json:",omitempty"`
	ExpressionAttributeNames  map[string]string          `json:",omitempty"`
	ExpressionAttributeValues map[string]json.RawMessage `json:",omitempty"`
	ScanIndexForward          *bool                      `json:",omitempty"`
	Limit                     int
	ExclusiveStartKey         Item   `json:",omitempty"`
	ReturnConsumedCapacity    string `json:",omitempty"`
}

// itemsKeys are the key attributes of the table or index read, and the
// table's attribute types (AttributeDefinitions).
type itemsKeys struct {
	PK, SK         string
	PKType, SKType string
	Types          map[string]string
}

// itemsKeysFor returns the keys of index ("" the table) of t; ok is false for
// an index t does not have.
func itemsKeysFor(t TableDescription, index string) (itemsKeys, bool) {
	k := itemsKeys{Types: map[string]string{}}
	for _, d := range t.AttributeDefinitions {
		k.Types[d.AttributeName] = d.AttributeType
	}
	ks, ok := t.KeySchema, index == ""
	for _, ix := range append(append([]IndexDescription{}, t.GlobalSecondaryIndexes...), t.LocalSecondaryIndexes...) {
		if index != "" && ix.IndexName == index {
			ks, ok = ix.KeySchema, true
		}
	}
	k.PK, k.SK = Keys(ks)
	k.PKType, k.SKType = k.Types[k.PK], k.Types[k.SK]
	return k, ok
}

// itemsPlaceholderName is a name that can be its own placeholder (#year).
var itemsPlaceholderName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// itemsExprBuilder gives names and values their placeholders.
type itemsExprBuilder struct {
	names  map[string]string // placeholder to name
	byName map[string]string // name to placeholder
	values map[string]json.RawMessage
}

func newItemsExprBuilder() *itemsExprBuilder {
	return &itemsExprBuilder{names: map[string]string{}, byName: map[string]string{}, values: map[string]json.RawMessage{}}
}

// name returns the placeholder of attribute name n.
func (b *itemsExprBuilder) name(n string) string {
	if p, ok := b.byName[n]; ok {
		return p
	}
	p := "#" + n
	if !itemsPlaceholderName.MatchString(n) || b.names[p] != "" {
		p = fmt.Sprintf("#n%d", len(b.names))
	}
	b.names[p], b.byName[n] = n, p
	return p
}

// path returns the placeholders of a document path: a.b is attribute a's
// member b; a[0] is not taken apart (a name may hold brackets).
func (b *itemsExprBuilder) path(p string) string {
	parts := strings.Split(p, ".")
	for i, s := range parts {
		parts[i] = b.name(strings.TrimSpace(s))
	}
	return strings.Join(parts, ".")
}

// value sets placeholder p to value text of type t and returns p.
func (b *itemsExprBuilder) value(p, t, text string) (string, error) {
	var av any
	switch t {
	case "N", "S", "B":
		av = map[string]string{t: text}
	case "BOOL":
		switch strings.TrimSpace(strings.ToLower(text)) {
		case "true":
			av = map[string]bool{"BOOL": true}
		case "false":
			av = map[string]bool{"BOOL": false}
		default:
			return "", fmt.Errorf("a BOOL value is true or false, not %q", text)
		}
	case "NULL":
		av = map[string]bool{"NULL": true}
	default:
		return "", fmt.Errorf("unknown value type %q (want S, N, B, BOOL or NULL)", t)
	}
	raw, _ := json.Marshal(av)
	b.values[p] = raw
	return p, nil
}

// buildItemsRequest makes the Scan or Query request of form f on table
// t; it returns the operation. The error is the console's own, for a
// value that cannot be made into an AttributeValue (a BOOL not true or
// false); everything DynamoDB checks is left to DynamoDB.
func buildItemsRequest(f itemsForm, t TableDescription) (string, itemsRequest, error) {
	k, _ := itemsKeysFor(t, f.Index)
	req := itemsRequest{TableName: t.TableName, IndexName: f.Index, Limit: f.Limit, ReturnConsumedCapacity: "INDEXES"}
	if len(f.Stack) > 0 {
		req.ExclusiveStartKey = f.Stack[len(f.Stack)-1]
	}
	b := newItemsExprBuilder()
	op := "Scan"
	if f.Op == "query" {
		op = "Query"
		cond := b.name(k.PK) + " = " + itemsMust(b.value(":pk", itemsTypeOr(k.PKType), f.PK))
		if f.SKOp != "" && k.SK != "" {
			sk, st := b.name(k.SK), itemsTypeOr(k.SKType)
			v := itemsMust(b.value(":sk", st, f.SK))
			switch f.SKOp {
			case "=", "<", "<=", ">", ">=":
				cond += " AND " + sk + " " + f.SKOp + " " + v
			case "between":
				cond += " AND " + sk + " BETWEEN " + v + " AND " + itemsMust(b.value(":sk2", st, f.SK2))
			case "begins_with":
				cond += " AND begins_with(" + sk + ", " + v + ")"
			default:
				return op, req, fmt.Errorf("unknown sort key condition %q", f.SKOp)
			}
		}
		req.KeyConditionExpression = cond
		fwd := f.Order != "desc"
		req.ScanIndexForward = &fwd
	}
	var conds []string
	for i, r := range f.Filters {
		c, err := itemsFilterCondition(b, i, r, k)
		if err != nil {
			return op, req, fmt.Errorf("filter %d (%s): %w", i+1, r.Attr, err)
		}
		conds = append(conds, c)
	}
	req.FilterExpression = strings.Join(conds, " AND ")
	if proj := strings.TrimSpace(f.Projection); proj != "" {
		var ps []string
		for _, p := range strings.Split(proj, ",") {
			if p = strings.TrimSpace(p); p != "" {
				ps = append(ps, b.path(p))
			}
		}
		req.ProjectionExpression = strings.Join(ps, ", ")
	}
	if len(b.names) > 0 {
		req.ExpressionAttributeNames = b.names
	}
	if len(b.values) > 0 {
		req.ExpressionAttributeValues = b.values
	}
	return op, req, nil
}

// itemsMust returns s: the key values' types (S, N, B, or S for an undefined
// key) never fail itemsExprBuilder.value.
func itemsMust(s string, _ error) string { return s }

func itemsTypeOr(t string) string {
	if t == "" {
		return "S"
	}
	return t
}

// itemsFilterCondition is row i of the filter as a condition.
func itemsFilterCondition(b *itemsExprBuilder, i int, r itemsFilter, k itemsKeys) (string, error) {
	path := b.path(r.Attr)
	t := r.Type
	if t == "" {
		t = itemsTypeOr(k.Types[r.Attr])
	}
	val := func(suffix, text string) (string, error) {
		return b.value(fmt.Sprintf(":f%d%s", i, suffix), t, text)
	}
	switch r.Op {
	case "exists":
		return "attribute_exists(" + path + ")", nil
	case "not_exists":
		return "attribute_not_exists(" + path + ")", nil
	}
	v, err := val("", r.Value)
	if err != nil {
		return "", err
	}
	switch r.Op {
	case "", "=", "<>", "<", "<=", ">", ">=":
		o := r.Op
		if o == "" {
			o = "="
		}
		return path + " " + o + " " + v, nil
	case "between":
		v2, err := val("b", r.Value2)
		if err != nil {
			return "", err
		}
		return path + " BETWEEN " + v + " AND " + v2, nil
	case "begins_with":
		return "begins_with(" + path + ", " + v + ")", nil
	case "contains":
		return "contains(" + path + ", " + v + ")", nil
	case "not_contains":
		return "NOT contains(" + path + ", " + v + ")", nil
	}
	return "", fmt.Errorf("unknown operator %q", r.Op)
}

// itemsResponse is the part of a Scan or Query response the page shows.
type itemsResponse struct {
	Items            []Item
	Count            int
	ScannedCount     int
	LastEvaluatedKey Item
	ConsumedCapacity *itemsConsumed
}

// itemsConsumed is a ConsumedCapacity (API reference, ConsumedCapacity):
// the total, and with ReturnConsumedCapacity INDEXES the table's and
// each index's share.
type itemsConsumed struct {
	TableName              string
	CapacityUnits          float64
	ReadCapacityUnits      float64
	WriteCapacityUnits     float64
	Table                  *struct{ CapacityUnits float64 }
	GlobalSecondaryIndexes map[string]struct{ CapacityUnits float64 }
	LocalSecondaryIndexes  map[string]struct{ CapacityUnits float64 }
}

// itemsShare is one part of the consumed capacity, for the page.
type itemsShare struct {
	Name  string
	Units float64
}

// Shares returns the table's and each index's capacity units, when the
// response split them.
func (c *itemsConsumed) Shares() []itemsShare {
	if c == nil {
		return nil
	}
	var s []itemsShare
	if c.Table != nil {
		s = append(s, itemsShare{"table " + c.TableName, c.Table.CapacityUnits})
	}
	for _, m := range []map[string]struct{ CapacityUnits float64 }{c.GlobalSecondaryIndexes, c.LocalSecondaryIndexes} {
		for _, n := range slices.Sorted(maps.Keys(m)) {
			s = append(s, itemsShare{"index " + n, m[n].CapacityUnits})
		}
	}
	return s
}

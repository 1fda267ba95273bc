package design

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/partiql"
)

// Live traffic against a design (dynago serve --design FILE): each
// request on a table that has a design is classified as one of its
// declared access patterns or as an undeclared access path, so that a
// report (and metrics) show the Scans, the reads no pattern declares, the
// Queries that filter away most of what they read, and the items whose
// keys match no entity's templates.

// Access is one request, as the classifier sees it.
type Access struct {
	Table, Index string // Index "" for the table
	// Operation is GetItem, Query, Scan, PutItem, UpdateItem or
	// DeleteItem.
	Operation string
	// Conds are a Query's key conditions, or a GetItem's key as "="
	// conditions.
	Conds []AccessCond
	// Key is a write's table key, attribute name to value as text.
	Key map[string]string
	// Count and Scanned are the items a Query or Scan returned and read.
	Count, Scanned int
	// Failed says the request was answered with an error (throttled, a
	// failed condition).
	Failed bool
	// Via is the multi-item operation the access was one item of
	// (BatchGetItem, BatchWriteItem, TransactGetItems, TransactWriteItems),
	// "" for a request of its own: an item of a batch counts under the
	// design's batch pattern before a one-item or transaction pattern.
	Via string
}

// AccessCond is one key condition of a request: attribute, operator (=,
// <, <=, >, >=, begins_with, between) and operand values as text.
type AccessCond struct {
	Attr, Op string
	Values   []string
}

// PathStats counts one access path: a declared pattern (Pattern set) or
// an undeclared one, named by its shape (Path).
type PathStats struct {
	Pattern  string `json:"pattern,omitempty"`
	Path     string `json:"path"`
	Declared bool   `json:"declared"`
	Requests int64  `json:"requests"`
	// Failed counts the requests answered with an error (throttled, a
	// failed condition...).
	Failed int64 `json:"failed"`
	// Items and Scanned sum what Queries and Scans returned and read;
	// Scanned/Items is the read amplification of their filters.
	Items   int64 `json:"items"`
	Scanned int64 `json:"scanned"`
}

// TableTraffic is what the classifier saw on one table.
type TableTraffic struct {
	Table string       `json:"table"`
	File  string       `json:"design"`
	Paths []*PathStats `json:"paths"`
	// Unmatched counts items put or updated whose table key matches no
	// entity's templates, with up to 10 example keys.
	Unmatched        int64    `json:"unmatchedItems"`
	UnmatchedExample []string `json:"unmatchedExamples,omitempty"`
}

// Traffic classifies requests against designs, one per table. It is safe
// for concurrent use.
type Traffic struct {
	mu      sync.Mutex
	designs map[string]*Design
	tables  map[string]*TableTraffic
}

// NewTraffic returns a classifier for designs; two designs of one table
// are an error.
func NewTraffic(designs []*Design) (*Traffic, error) {
	t := &Traffic{designs: map[string]*Design{}, tables: map[string]*TableTraffic{}}
	for _, d := range designs {
		if prev, ok := t.designs[d.Table.Name]; ok {
			return nil, fmt.Errorf("%s and %s both design table %s", prev.File, d.File, d.Table.Name)
		}
		t.designs[d.Table.Name] = d
		tt := &TableTraffic{Table: d.Table.Name, File: d.File}
		for _, p := range d.Patterns {
			tt.Paths = append(tt.Paths, &PathStats{Pattern: p.ID, Path: patternPath(d, p), Declared: true})
		}
		t.tables[d.Table.Name] = tt
	}
	return t, nil
}

// Has reports whether table has a design.
func (t *Traffic) Has(table string) bool {
	_, ok := t.designs[table]
	return ok
}

// patternPath is a declared pattern's path text.
func patternPath(d *Design, p *Pattern) string {
	if p.Multi() {
		return p.Summary()
	}
	if p.Kind == "write" {
		return cmp.Or(p.Operation, "PutItem") + " " + p.Entity
	}
	s := d.Operation(p) + " " + IndexName(p.Index)
	if p.KeyCondition != "" {
		s += ": " + p.KeyCondition
	}
	return s
}

// Classify names the declared pattern a (on a table with a design)
// follows; ok is false for an undeclared path, whose shape is path.
func (t *Traffic) Classify(a Access) (pattern, path string, ok bool) {
	pattern, path, ok, _ = t.classify(a)
	return pattern, path, ok
}

// classify is Classify, also telling whether a write's key is built by
// no entity's templates.
func (t *Traffic) classify(a Access) (pattern, path string, ok, noEntity bool) {
	d := t.designs[a.Table]
	if d == nil {
		return "", "", false, false
	}
	switch a.Operation {
	case "PutItem", "UpdateItem", "DeleteItem":
		e := d.entityOfKey(a.Key)
		if e == nil {
			return "", a.Operation + " (no entity)", false, true
		}
		// An item of a transaction or batch counts under the multi-item
		// pattern of that operation with an action of that kind on e;
		// else (and a request of its own first) under a one-item write
		// pattern, else under any multi-item pattern that writes it so.
		if a.Via != "" {
			if p := d.multiPattern(a.Via, e.Name, a.Operation); p != nil {
				return p.ID, patternPath(d, p), true, false
			}
		}
		for _, p := range d.Patterns {
			if p.Kind == "write" && p.Entity == e.Name && cmp.Or(p.Operation, "PutItem") == a.Operation {
				return p.ID, patternPath(d, p), true, false
			}
		}
		if p := d.multiPattern("", e.Name, a.Operation); p != nil {
			return p.ID, patternPath(d, p), true, false
		}
		return "", a.Operation + " " + e.Name, false, false
	case "Scan":
		for _, p := range d.Patterns {
			if p.Operation == "Scan" && p.Index == a.Index {
				return p.ID, patternPath(d, p), true, false
			}
		}
		return "", "Scan " + IndexName(a.Index), false, false
	}
	// A GetItem of a batch counts under the BatchGetItem pattern that
	// gets its entity.
	if a.Operation == "GetItem" && a.Via == BatchGetItem {
		key := map[string]string{}
		for _, c := range a.Conds {
			if len(c.Values) == 1 {
				key[c.Attr] = c.Values[0]
			}
		}
		if e := d.entityOfKey(key); e != nil {
			if p := d.multiPattern(BatchGetItem, e.Name, "GetItem"); p != nil {
				return p.ID, patternPath(d, p), true, false
			}
		}
	}
	// The most specific pattern the request follows: Type = ORDER AND SK =
	// ORDER#<OrderId> over Type = ORDER.
	var best *Pattern
	for _, p := range d.Patterns {
		if p.Kind == "read" && p.Index == a.Index && d.Operation(p) == a.Operation && matchConds(p.Conditions, a.Conds) &&
			(best == nil || len(p.Conditions) > len(best.Conditions)) {
			best = p
		}
	}
	if best != nil {
		return best.ID, patternPath(d, best), true, false
	}
	return "", a.Operation + " " + IndexName(a.Index) + ": " + d.shape(a.Conds), false, false
}

// StatementAccesses describes a PartiQL statement (parsed, with its
// checked parameters) as the accesses it makes to its table, read against
// that table's design (Design.StatementAccesses); nil when the table has
// no design or the statement makes no access serve --design classifies.
func (t *Traffic) StatementAccesses(st partiql.Statement, params []attr.Value) []Access {
	d := t.designs[StatementTable(st)]
	if d == nil {
		return nil
	}
	return d.StatementAccesses(st, params)
}

// Record counts a under its path: the declared pattern's id, or the
// undeclared path's shape.
func (t *Traffic) Record(a Access) (pattern, path string, declared bool) {
	d := t.designs[a.Table]
	if d == nil {
		return "", "", false
	}
	pattern, path, declared, noEntity := t.classify(a)
	t.mu.Lock()
	defer t.mu.Unlock()
	tt := t.tables[a.Table]
	if (a.Operation == "PutItem" || a.Operation == "UpdateItem") && noEntity {
		tt.Unmatched++
		if len(tt.UnmatchedExample) < 10 {
			tt.UnmatchedExample = append(tt.UnmatchedExample, keyText(a.Key))
		}
	}
	i := slices.IndexFunc(tt.Paths, func(p *PathStats) bool { return p.Path == path && p.Pattern == pattern })
	if i < 0 {
		// Undeclared paths are shapes (templates, not values), so they
		// stay few; past 200 they share one line.
		if len(tt.Paths) > 200+len(d.Patterns) {
			path = "other undeclared paths"
			i = slices.IndexFunc(tt.Paths, func(p *PathStats) bool { return p.Path == path })
		}
		if i < 0 {
			tt.Paths = append(tt.Paths, &PathStats{Pattern: pattern, Path: path, Declared: declared})
			i = len(tt.Paths) - 1
		}
	}
	ps := tt.Paths[i]
	ps.Requests++
	if a.Failed {
		ps.Failed++
	}
	ps.Items += int64(a.Count)
	ps.Scanned += int64(a.Scanned)
	return pattern, path, declared
}

// Report returns a copy of what was seen, tables by name, each table's
// declared patterns first in file order, then undeclared paths by
// requests.
func (t *Traffic) Report() []TableTraffic {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []TableTraffic
	for _, name := range slices.Sorted(maps.Keys(t.tables)) {
		tt := *t.tables[name]
		tt.Paths = nil
		for _, p := range t.tables[name].Paths {
			c := *p
			tt.Paths = append(tt.Paths, &c)
		}
		slices.SortStableFunc(tt.Paths, func(a, b *PathStats) int {
			if a.Declared != b.Declared {
				if a.Declared {
					return -1
				}
				return 1
			}
			if a.Declared {
				return 0
			}
			return cmp.Compare(b.Requests, a.Requests)
		})
		tt.UnmatchedExample = slices.Clone(tt.UnmatchedExample)
		out = append(out, tt)
	}
	return out
}

// entityOfKey is the entity whose table key templates build key.
func (d *Design) entityOfKey(key map[string]string) *Entity {
	for _, e := range d.Entities {
		ok := true
		for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
			t, _, _, has := e.ValueOf(ka.Name)
			v, present := key[ka.Name]
			if !has || !present {
				ok = false
				break
			}
			if _, fits := t.Parse(v); !fits {
				ok = false
				break
			}
		}
		if ok {
			return e
		}
	}
	return nil
}

// matchConds reports whether a request's key conditions follow a
// pattern's: every pattern condition has a request condition on its
// attribute whose values its template builds (= and comparisons), or
// that starts with its literal prefix (begins_with); a request may narrow
// a pattern with a sort key condition the pattern leaves out.
func matchConds(want []Condition, got []AccessCond) bool {
	for _, w := range want {
		i := slices.IndexFunc(got, func(g AccessCond) bool { return g.Attr == w.Attr })
		if i < 0 {
			return false
		}
		g := got[i]
		switch w.Op {
		case "=":
			if g.Op != "=" {
				return false
			}
			if _, ok := w.Values[0].Parse(g.Values[0]); !ok {
				return false
			}
		case "begins_with":
			if g.Op != "begins_with" && g.Op != "=" || !strings.HasPrefix(g.Values[0], w.Values[0].Prefix()) {
				return false
			}
		case "between":
			if g.Op != "between" {
				return false
			}
		default:
			if !slices.Contains([]string{"<", "<=", ">", ">="}, g.Op) {
				return false
			}
		}
	}
	return true
}

// shape writes key conditions with their values as templates where an
// entity's template builds them (USER#alice: USER#<UserName>), so that
// undeclared paths group by shape, not by value.
func (d *Design) shape(conds []AccessCond) string {
	var parts []string
	for _, c := range conds {
		vals := make([]string, len(c.Values))
		for i, v := range c.Values {
			vals[i] = d.valueShape(c.Attr, v, c.Op == "begins_with")
		}
		switch c.Op {
		case "between":
			parts = append(parts, fmt.Sprintf("%s between %s and %s", c.Attr, vals[0], vals[1]))
		case "begins_with":
			parts = append(parts, fmt.Sprintf("%s begins_with %s", c.Attr, vals[0]))
		default:
			parts = append(parts, fmt.Sprintf("%s %s %s", c.Attr, c.Op, vals[0]))
		}
	}
	return strings.Join(parts, " AND ")
}

// valueShape is the first entity template of attribute attrName that
// builds v (for a prefix, that v starts), else v's literal shape.
func (d *Design) valueShape(attrName, v string, prefix bool) string {
	for _, e := range d.Entities {
		t, _, _, ok := e.ValueOf(attrName)
		if !ok {
			continue
		}
		if _, fits := t.Parse(v); fits {
			return t.Text
		}
		if prefix && t.Prefix() != "" && strings.HasPrefix(t.Prefix(), v) {
			return v
		}
	}
	return literalShape(v)
}

// literalShape is the shape of a value no template builds: its
// #-separated parts that read as literals (upper-case words: PRODUCT,
// ORDER_ITEM) kept, every other part written <…>, so that PRODUCT#42 and
// PRODUCT#43 are one path, PRODUCT#<…>; "?" for a value without a #
// (alice, 42), which shows no literal part to go by.
func literalShape(v string) string {
	if !strings.Contains(v, "#") {
		return "?"
	}
	parts := strings.Split(v, "#")
	for i, p := range parts {
		if p != "" && strings.TrimLeft(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != "" {
			parts[i] = "<…>"
		}
	}
	return strings.Join(parts, "#")
}

func keyText(key map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(key)) {
		parts = append(parts, k+"="+key[k])
	}
	return strings.Join(parts, ", ")
}

// WriteTrafficText writes the traffic report: per table, each path's requests,
// the items Queries and Scans returned and read (with their read
// amplification), and the items whose keys no template builds.
func WriteTrafficText(w io.Writer, report []TableTraffic) error {
	var b strings.Builder
	for i, tt := range report {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "table %s (design %s)\n", tt.Table, tt.File)
		labels := make([]string, len(tt.Paths))
		lw, nw := 0, 0
		for i, p := range tt.Paths {
			labels[i] = "pattern " + p.Pattern
			if !p.Declared {
				labels[i] = "UNDECLARED"
				if strings.HasPrefix(p.Path, "Scan") {
					labels[i] = "UNDECLARED SCAN"
				}
			}
			lw, nw = max(lw, len(labels[i])), max(nw, len(fmt.Sprint(p.Requests)))
		}
		for i, p := range tt.Paths {
			amp := ""
			if p.Scanned > 0 {
				amp = fmt.Sprintf(", items %d of %d read", p.Items, p.Scanned)
				if p.Items == 0 || float64(p.Scanned)/float64(p.Items) >= 2 {
					amp += fmt.Sprintf(" (FILTER-HEAVY: %s× read amplification)", amplification(p))
				}
			}
			failed := ""
			if p.Failed > 0 {
				failed = fmt.Sprintf(", %d failed", p.Failed)
			}
			fmt.Fprintf(&b, "  %-*s  %*d requests  %s%s%s\n", lw, labels[i], nw, p.Requests, p.Path, amp, failed)
		}
		if tt.Unmatched > 0 {
			items := "items put or updated match"
			if tt.Unmatched == 1 {
				items = "item put or updated matches"
			}
			fmt.Fprintf(&b, "  %d %s no entity's key templates, e.g. %s\n", tt.Unmatched, items, strings.Join(tt.UnmatchedExample, "; "))
		}
	}
	_, err := w.Write([]byte(b.String()))
	return err
}

func amplification(p *PathStats) string {
	if p.Items == 0 {
		return "∞"
	}
	return fmt.Sprintf("%.1f", float64(p.Scanned)/float64(p.Items))
}

// multiPattern returns the first multi-item pattern of operation via
// ("" for any) with an action that does op (PutItem, UpdateItem,
// DeleteItem, GetItem) to an item of entity, or nil.
func (d *Design) multiPattern(via, entity, op string) *Pattern {
	for _, p := range d.Patterns {
		if p.Multi() && (via == "" || p.Operation == via) &&
			slices.ContainsFunc(p.Actions, func(x *Action) bool { return x.Entity == entity && x.Operation() == op }) {
			return p
		}
	}
	return nil
}

// Package design is the model of dynago's single-table design files,
// which every design tool shares: a table, its entities with key
// templates, and its access patterns (Load, Parse); key templates and
// key conditions; diagnostics at their positions in the file; item
// sizes; reads resolved against their index and the entities they can
// return (Resolve, MatchEntity); and the capacity model, the units a
// request takes and how its key spreads them (PatternCosts, Spread,
// PeakCapacity). It also classifies live traffic against designs
// (Traffic, which internal/designtraffic wires into dynago serve
// --design).
//
// The tools are its subpackages: check (the rules of dynago design
// check), analyze (costs and hot partition keys), gengo (typed Go code),
// interop (YAML, the Markdown worksheet, NoSQL Workbench, OneTable and
// MCP schemas, CloudFormation and Terraform), run (the read patterns
// against generated data), sample (that data) and show (that data drawn
// per table and index, with check's findings on its rows).
//
// A design file (*.design.yaml, JSON Schema in schema/design.schema.json)
// is data only:
//
//	table:    name, key schema, indexes (GSIs and LSIs, multi-attribute
//	          keys, projections), billing mode, TTL attribute, stream
//	entities: per entity its attributes (types, optional, values), its
//	          discriminator, and per key attribute a template in the
//	          seeds' notation (USER#<UserName>), sharded or sparse
//	patterns: per access pattern its key condition in template terms
//	          (PK = USER#<UserName> AND SK begins_with ORDER#), index,
//	          expected entity types, order, page size and rates
//	workload: items stored per entity and key skew, for the analyzer
//
// The method is the seeds' (../shared/seeds/004 calls it a worksheet):
// list the access patterns, give each entity key templates, overload the
// GSIs, and check that every pattern is a GetItem or a Query.
package design

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"
)

// Pos is a place in a design file.
type Pos struct {
	File      string
	Line, Col int
}

// String returns FILE:LINE:COL.
func (p Pos) String() string { return fmt.Sprintf("%s:%d:%d", p.File, p.Line, p.Col) }

// Design is a loaded design file.
type Design struct {
	File     string
	Table    Table
	Entities []*Entity
	Patterns []*Pattern
	Workload Workload
	// Ignores are the file's dynago:ignore comments, by line.
	Ignores []Ignore
}

// Workload is what the analyzer needs beyond the patterns' rates: how
// many items of each entity the table holds, and how unevenly key
// attributes' values are used.
type Workload struct {
	// Items is the number of items stored per entity name.
	Items map[string]float64
	// Skew is, per attribute name, how requests spread over its values;
	// an attribute not listed is uniform.
	Skew map[string]Skew
	Pos  Pos
}

// Skew is how requests spread over an attribute's values: uniformly
// (the zero value), by Zipf's law with exponent Zipf over the
// attribute's values or cardinality, or with explicit shares of the
// busiest values (Top, value to share of requests, summing to at most 1).
type Skew struct {
	Zipf float64
	Top  map[string]float64
	Pos  Pos
}

// KeyAttr is one attribute of a key schema.
type KeyAttr struct {
	Name string
	Type string // S, N or B
}

// Table is the design's table.
type Table struct {
	Name string
	// PartitionKey and SortKey are the table's key schema (SortKey empty
	// for a partition key only).
	PartitionKey, SortKey []KeyAttr
	BillingMode           string // PAY_PER_REQUEST (default) or PROVISIONED
	TTL                   string // the TTL attribute, "" for none
	TTLPos                Pos
	Stream                string // the stream view type, "" for none
	Indexes               []*Index
	Pos                   Pos
}

// Index is a GSI or an LSI.
type Index struct {
	Name  string
	Local bool
	// PartitionKey and SortKey may each have up to four attributes on a
	// GSI (multi-attribute keys); an LSI has the table's partition key.
	PartitionKey, SortKey []KeyAttr
	// Projection is ALL (default), KEYS_ONLY or INCLUDE (with Include).
	Projection string
	Include    []string
	Pos        Pos
}

// Attribute types a design may declare: DynamoDB's, plus timestamp (an
// S in ISO 8601 UTC with a fixed format, whose text order is its time
// order) and epoch (an N of seconds).
var attributeTypes = []string{"S", "N", "B", "BOOL", "NULL", "L", "M", "SS", "NS", "BS", "timestamp", "epoch"}

// Attribute is an entity's attribute.
type Attribute struct {
	Name string
	Type string
	// Optional attributes may be absent from an item.
	Optional bool
	// Values lists an enumeration's values; Cardinality is how many
	// distinct values the attribute takes when Values does not say (0:
	// unknown, taken as high).
	Values      []string
	Cardinality int
	// Size is the attribute's typical value size in bytes (0: a default
	// by type).
	Size int
	Pos  Pos
}

// Entity is an item type.
type Entity struct {
	Name string
	// Discriminator is the attribute that tells entity types apart in an
	// item collection, and the value this entity stores in it.
	Discriminator      string
	DiscriminatorValue string
	Attributes         []*Attribute
	// Keys are the entity's key attributes (table and index keys) and
	// how each is built.
	Keys []*Key
	Pos  Pos
}

// Key is how an entity builds one key attribute.
type Key struct {
	Attr     string
	Template Template
	// Shard, when set, spreads a hot key over Count values: <shard>
	// (0..Count-1, chosen by hashing By) where the template places it,
	// else appended as #<shard>.
	Shard *Shard
	// Sparse says the key is meant to be absent from some items (those
	// missing one of its variables).
	Sparse bool
	Pos    Pos
}

// Shard is a write-sharding rule.
type Shard struct {
	Count int
	By    string
}

// Rate is a pattern's request rate a second.
type Rate struct {
	Average, Peak float64
}

// Pattern is an access pattern.
type Pattern struct {
	ID          string
	Description string
	// Kind is read (default) or write.
	Kind string
	// Operation is GetItem, Query (reads; inferred when empty), PutItem,
	// UpdateItem or DeleteItem (writes), or a multi-item operation
	// (TransactWriteItems, BatchWriteItem: writes; BatchGetItem: a read)
	// whose request holds Actions.
	Operation string
	// Actions are what a multi-item pattern's request holds (nil for a
	// one-item pattern); Returns are then the entities its gets read.
	Actions []*Action
	// Action is, for a one-item write that Writes made of a multi-item
	// pattern's action, that action (nil otherwise).
	Action *Action
	// Write is a one-item write's condition, version and counters
	// (condition:, version:, add: beside its entity), as the action it
	// is (Set its updates: SET; Updates then holds its counters and
	// version too); nil when it has none.
	Write *Action
	// Index is the GSI or LSI read ("" for the table).
	Index string
	// KeyCondition is the key condition in template terms, parsed into
	// Conditions.
	KeyCondition string
	Conditions   []Condition
	// KeyPos is where the key condition (or the statement) is written.
	KeyPos Pos
	// Statement is the PartiQL statement the pattern is written as
	// (partiql: in the file), "" for a pattern written with key:; Kind,
	// Operation, Index, KeyCondition, Conditions and Order are then read
	// from it (and Needs and Updates from its projection and actions).
	Statement string
	// Returns are the entity types a read expects; Entity is the entity
	// a write writes.
	Returns []string
	Entity  string
	// Updates are the attributes an UpdateItem sets.
	Updates []string
	// Needs are the attributes a read uses (for projections).
	Needs []string
	// Given are the values the caller has when it runs the pattern (the
	// inputs column of the access-pattern chart: given: [orderId]); nil
	// when the pattern does not say, and every variable of its key is
	// taken as given. GivenPos is where the list is written.
	Given    []string
	GivenPos Pos
	// Order is ascending (default) or descending; PageSize the items a
	// page asks for (0: DynamoDB's 1 MB pages).
	Order    string
	PageSize int
	// Shards says how a read of a write-sharded key covers its shards:
	// "all" (each request queries every shard and merges their pages,
	// and is costed at that many queries), "one" (a request reads one
	// shard; the rate counts shard queries), or "" (not said).
	Shards string
	// Expects is one when the read must find at most one item (a lookup
	// by id), many when it may find more, "" to infer it (ExpectsOne).
	Expects string
	Rate    Rate
	// Consistent asks for strongly consistent reads (twice the units of
	// eventually consistent ones); Transaction says the request runs in
	// TransactGetItems or TransactWriteItems (twice the units again).
	Consistent, Transaction bool
	Pos                     Pos
}

// Attribute returns the entity's attribute named name, or nil.
func (e *Entity) Attribute(name string) *Attribute {
	for _, a := range e.Attributes {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// Key returns how the entity builds key attribute name, or nil.
func (e *Entity) Key(name string) *Key {
	for _, k := range e.Keys {
		if k.Attr == name {
			return k
		}
	}
	return nil
}

// Operation returns the operation a read pattern runs: the declared one,
// else GetItem when it reads the table with = on every key attribute,
// else Query.
func (d *Design) Operation(p *Pattern) string {
	if p.Operation != "" {
		return p.Operation
	}
	if p.Index == "" {
		pk, sk, _ := d.KeySchema("")
		all := true
		for _, ka := range slices.Concat(pk, sk) {
			n := 0
			for _, c := range p.Conditions {
				if c.Attr == ka.Name && c.Op == "=" {
					n++
				}
			}
			all = all && n == 1
		}
		if all && len(p.Conditions) == len(pk)+len(sk) {
			return "GetItem"
		}
	}
	return "Query"
}

// Entity returns the entity named name, or nil.
func (d *Design) Entity(name string) *Entity {
	for _, e := range d.Entities {
		if e.Name == name {
			return e
		}
	}
	return nil
}

// Index returns the index named name, or nil.
func (d *Design) Index(name string) *Index {
	for _, ix := range d.Table.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// KeySchema returns the partition and sort key of the table (index "")
// or of the named index; ok is false for an unknown index. An LSI's
// partition key is the table's.
func (d *Design) KeySchema(index string) (pk, sk []KeyAttr, ok bool) {
	if index == "" {
		return d.Table.PartitionKey, d.Table.SortKey, true
	}
	ix := d.Index(index)
	if ix == nil {
		return nil, nil, false
	}
	if ix.Local {
		return d.Table.PartitionKey, ix.SortKey, true
	}
	return ix.PartitionKey, ix.SortKey, true
}

// ValueOf returns how entity e fills attribute name: its key template,
// its discriminator value (a constant), or its attribute's raw value (a
// template of one variable); ok is false when e has no such attribute,
// and optional when the attribute may be absent.
func (e *Entity) ValueOf(name string) (t Template, k *Key, optional, ok bool) {
	if k := e.Key(name); k != nil {
		t = k.Template
		if k.Shard != nil && !t.Uses("shard") {
			t, _ = ParseTemplate(t.Text + "#<shard>")
		}
		for _, v := range k.Template.Vars() {
			if a := e.Attribute(v); a != nil && a.Optional {
				optional = true
			}
		}
		return t, k, optional, true
	}
	if name == e.Discriminator && e.DiscriminatorValue != "" {
		t, _ = ParseTemplate(escapeLiteral(e.DiscriminatorValue))
		return t, nil, false, true
	}
	if a := e.Attribute(name); a != nil {
		t, _ = ParseTemplate("<" + name + ">")
		return t, nil, a.Optional, true
	}
	return Template{}, nil, false, false
}

// escapeLiteral returns s as a template literal (angle brackets cannot
// be in a discriminator value's template, so they are dropped).
func escapeLiteral(s string) string {
	return strings.NewReplacer("<", "", ">", "").Replace(s)
}

// InIndex reports whether e's items land in the index (table for ""):
// e fills every key attribute of it.
func (d *Design) InIndex(e *Entity, index string) bool {
	pk, sk, ok := d.KeySchema(index)
	if !ok {
		return false
	}
	for _, ka := range slices.Concat(pk, sk) {
		if _, _, _, ok := e.ValueOf(ka.Name); !ok {
			return false
		}
	}
	return true
}

// Load reads and parses a design file. Problems in the file itself are
// returned as diagnostics of the rule "syntax" with their position; a
// file that cannot be read is an error.
func Load(path string) (*Design, []Diagnostic, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	d, diags := Parse(path, raw)
	return d, diags, nil
}

// KeyType returns a key attribute's declared type (S by default).
func (d *Design) KeyType(attr string) string {
	all := slices.Concat(d.Table.PartitionKey, d.Table.SortKey)
	for _, ix := range d.Table.Indexes {
		all = append(all, ix.PartitionKey...)
		all = append(all, ix.SortKey...)
	}
	for _, ka := range all {
		if ka.Name == attr {
			return ka.Type
		}
	}
	return "S"
}

// AttributeDefinitions are the attributes the table's and indexes' key
// schemas name, each once, in order, with its type.
func (d *Design) AttributeDefinitions() []KeyAttr {
	var out []KeyAttr
	add := func(ks []KeyAttr) {
		for _, k := range ks {
			if !HasAttr(out, k.Name) {
				out = append(out, k)
			}
		}
	}
	add(d.Table.PartitionKey)
	add(d.Table.SortKey)
	for _, ix := range d.Table.Indexes {
		add(ix.PartitionKey)
		add(ix.SortKey)
	}
	return out
}

// FileName is the design file's name without its directory, for the
// headers of what is generated from it.
func (d *Design) FileName() string {
	if i := strings.LastIndexAny(d.File, `/\`); i >= 0 {
		return d.File[i+1:]
	}
	return d.File
}

// IsTableKey reports whether name is an attribute of the table's key.
func (d *Design) IsTableKey(name string) bool {
	return HasAttr(slices.Concat(d.Table.PartitionKey, d.Table.SortKey), name)
}

// Summary renders p as the worksheet's third column: where it reads and
// its key condition, in the seed's words, or the write and what it sets.
func (p *Pattern) Summary() string {
	if p.Multi() {
		return p.actionsSummary()
	}
	if p.Write != nil {
		return cmp.Or(p.Operation, "PutItem") + " " + p.Entity + p.Write.notes()
	}
	if p.Kind == "write" {
		s := p.Operation + " " + p.Entity
		if len(p.Updates) > 0 {
			s += " (sets " + strings.Join(p.Updates, ", ") + ")"
		}
		return s
	}
	where := "Base table"
	if p.Index != "" {
		where = p.Index
	}
	if p.Operation == "Scan" {
		return where + ": Scan"
	}
	parts := make([]string, len(p.Conditions))
	for i, c := range p.Conditions {
		switch c.Op {
		case "begins_with":
			parts[i] = fmt.Sprintf("%s begins with `%s`", c.Attr, c.Values[0])
		case "between":
			parts[i] = fmt.Sprintf("%s between `%s` and `%s`", c.Attr, c.Values[0], c.Values[1])
		default:
			parts[i] = fmt.Sprintf("%s %s `%s`", c.Attr, c.Op, c.Values[0])
		}
	}
	s := where + ": " + strings.Join(parts, ", ")
	if p.Order == "descending" {
		s += ", descending"
	}
	return s
}

// ShardCount is the shard count of the write-sharded key a read
// queries (<shard> in its key condition, on a key a returned entity
// shards), or 0.
func (d *Design) ShardCount(p *Pattern) int {
	n := 0
	for _, c := range p.Conditions {
		if len(c.Values) == 0 || !c.Values[0].Uses("shard") {
			continue
		}
		for _, name := range p.Returns {
			if e := d.Entity(name); e != nil {
				if k := e.Key(c.Attr); k != nil && k.Shard != nil {
					n = max(n, k.Shard.Count)
				}
			}
		}
	}
	return n
}

// Inputs are the values a caller needs to run p: its given list when it
// declares one (declared true), else what its key asks for: the
// variables of a read's key condition, of an UpdateItem's or
// DeleteItem's table key (a PutItem has none: it is given the whole
// item), or of the table keys of a multi-item pattern's updates,
// deletes, checks and gets. <shard> is no input: the client computes it,
// or queries each.
func (d *Design) Inputs(p *Pattern) (names []string, declared bool) {
	if p.Given != nil {
		return p.Given, true
	}
	add := func(t Template) {
		for _, v := range t.Vars() {
			if v != "shard" && !slices.Contains(names, v) {
				names = append(names, v)
			}
		}
	}
	if p.Multi() {
		// The table keys of what the request updates, deletes, checks or
		// gets (a put is given its whole item).
		for _, a := range p.Actions {
			if e := d.Entity(a.Entity); e != nil && a.Kind != ActionPut {
				for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
					t, _, _, _ := e.ValueOf(ka.Name)
					add(t)
				}
			}
		}
		return names, false
	}
	if p.Kind == "write" {
		e := d.Entity(p.Entity)
		if e != nil && p.Operation != "PutItem" && p.Operation != "" {
			for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
				t, _, _, _ := e.ValueOf(ka.Name)
				add(t)
			}
		}
		return names, false
	}
	for _, c := range p.Conditions {
		for _, v := range c.Values {
			add(v)
		}
	}
	return names, false
}

// IndexName names the table ("") or an index in reports: table, or the
// index's name.
func IndexName(index string) string {
	if index == "" {
		return "table"
	}
	return index
}

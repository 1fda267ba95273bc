// Package sample generates deterministic items for every entity of a
// single-table design, built from its attribute types and key templates:
// the data dynago design run writes so that the patterns have items to
// find, and the sample items (TableData) of a NoSQL Workbench export.
// The same design gives the same items on every run.
package sample

import (
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/design"
)

// Item is one generated item: its attribute values (as text, with
// their types) and the entity it belongs to.
type Item struct {
	Entity *design.Entity
	// Vals are the variables' values (attributes and <shard>), as text.
	Vals map[string]string
	// Attrs are the item's attributes: name → DynamoDB type and text.
	Attrs map[string]Value
}

// Value is a generated attribute value: its DynamoDB type and its text
// (a number's digits, a binary's bytes, a BOOL's true or false; a list,
// map or set holds one element built from it).
type Value struct {
	Type string // S, N, B, BOOL, or L, M, SS, NS, BS, NULL (one element)
	Text string
}

// genBase is the first generated timestamp.
var genBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Generate returns up to n items per entity (fewer when the workload
// counts fewer), built so that reads find what they would in a real
// table:
//
//   - the variables an entity owns (design.Owner: orderId for an Order)
//     take a value per item, or cycle through the attribute's values or
//     cardinality when it declares them;
//   - a key variable another entity owns takes the value of one of that
//     owner's items, so that children land in their parent's item
//     collection: fanout children a parent, the workload's item counts'
//     ratio (50 M orders to 1 M customers is 50), else 3; a second owned
//     variable (a Like's PostId after its UserId) takes consecutive
//     values within the parent, each parent's run one further on, so
//     that no two items share a table key and the values spread;
//   - a variable of the table partition key that no entity owns, when
//     the table key has others (PROJ#<Proj> for ISSUE#<n>), is such a
//     parent too, one the design does not model;
//   - other attributes take a value per item, different for each
//     numeric or time attribute of one item.
//
// An item whose table key an earlier one has is left out, so that every
// item returned is stored.
func Generate(d *design.Design, n int) []Item {
	g := &generator{d: d, n: n}
	var items []Item
	seen := map[string]bool{}
	for ei, e := range d.Entities {
		for i := range g.count(e) {
			it := g.item(e, ei, i)
			if k := TableKey(d, it.Attrs); !seen[k] {
				seen[k] = true
				items = append(items, it)
			}
		}
	}
	return items
}

// generator is one Generate: the design and the items per entity asked
// for.
type generator struct {
	d *design.Design
	n int
}

// defaultFanout is how many children a parent item gets when the
// workload does not count both.
const defaultFanout = 3

// count is how many items of e to generate: n, or the workload's count
// when it is smaller.
func (g *generator) count(e *design.Entity) int {
	if c, ok := g.d.Workload.Items[e.Name]; ok && c >= 1 && c < float64(g.n) {
		return int(math.Ceil(c))
	}
	return g.n
}

// fanout is how many items of child e share one item of parent o.
func (g *generator) fanout(e, o *design.Entity) int {
	if o == nil {
		return defaultFanout
	}
	c, p := g.d.Workload.Items[e.Name], g.d.Workload.Items[o.Name]
	if c > 0 && p > 0 {
		return max(1, int(math.Round(c/p)))
	}
	return defaultFanout
}

// refs are e's key variables that another entity owns, with their
// owners, the table key's first, then the other keys' in order; and,
// owner nil, the variables of e's table partition key that no entity
// owns when the table key has others (PROJ#<Proj> for issues ISSUE#<n>:
// a parent the design does not model).
func (g *generator) refs(e *design.Entity) (vars []string, owners []*design.Entity) {
	d := g.d
	var keys []string
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		keys = append(keys, ka.Name)
	}
	for _, k := range e.Keys {
		keys = append(keys, k.Attr)
	}
	var pkVars, allVars []string
	for i, name := range keys {
		t, _, _, _ := e.ValueOf(name)
		for _, v := range t.Vars() {
			if v == "shard" || e.Attribute(v) == nil || slices.Contains(allVars, v) {
				continue
			}
			allVars = append(allVars, v)
			if i < len(d.Table.PartitionKey) {
				pkVars = append(pkVars, v)
			}
		}
	}
	tableVars := 0
	for _, name := range keys[:len(d.Table.PartitionKey)+len(d.Table.SortKey)] {
		t, _, _, _ := e.ValueOf(name)
		tableVars += len(t.Vars())
	}
	for _, v := range allVars {
		o := d.Owner(v)
		switch {
		case o != nil && o != e && o.Attribute(v) != nil:
		case o == nil && slices.Contains(pkVars, v) && tableVars > len(pkVars):
		default:
			continue
		}
		vars, owners = append(vars, v), append(owners, o)
	}
	return vars, owners
}

// item builds the i-th item of entity number ei.
func (g *generator) item(e *design.Entity, ei, i int) Item {
	d := g.d
	it := Item{Entity: e, Vals: map[string]string{}, Attrs: map[string]Value{}}
	refVars, owners := g.refs(e)
	first := 1 // the first parent's fanout
	if len(owners) > 0 {
		first = g.fanout(e, owners[0])
	}
	ownerIndex := func(o *design.Entity) int { return slices.Index(g.d.Entities, o) }
	for ai, a := range e.Attributes {
		if a.Optional && (i+ai)%3 == 2 {
			continue // some items go without it
		}
		v := ownValue(a, e, g.idx(a, i), ei, ai, d.Owner(a.Name) == e)
		if r := slices.Index(refVars, a.Name); r >= 0 {
			o := owners[r]
			j := i / first // the parent: fanout children each
			if r > 0 {
				// The first parent's children take consecutive values,
				// so that no two share a table key, and each parent's
				// run starts one further on, so that the values spread
				// (a post's likes come from several users).
				j = i/first + i%first
			}
			if o == nil { // a parent the design does not model
				v = ownValue(a, e, g.idx(a, j), ei, ai, true)
			} else {
				j %= g.count(o)
				oa := o.Attribute(a.Name)
				v = ownValue(oa, o, g.idx(oa, j), ownerIndex(o), slices.Index(o.Attributes, oa), true)
			}
		}
		it.Attrs[a.Name] = v
		it.Vals[a.Name] = v.Text
	}
	for _, k := range e.Keys {
		if k.Shard != nil {
			it.Vals["shard"] = strconv.Itoa(shardOf(it.Vals[k.Shard.By], k.Shard.Count))
		}
	}
	for _, k := range e.Keys {
		t, _, _, _ := e.ValueOf(k.Attr)
		s, err := t.Render(it.Vals)
		if err != nil {
			continue // a variable is missing: the key is absent (sparse)
		}
		it.Attrs[k.Attr] = Value{Type: d.KeyType(k.Attr), Text: s}
	}
	if e.Discriminator != "" && e.DiscriminatorValue != "" {
		it.Attrs[e.Discriminator] = Value{Type: "S", Text: e.DiscriminatorValue}
	}
	return it
}

// idx is the value number the i-th item takes for a: i, or i modulo
// the attribute's declared cardinality.
func (g *generator) idx(a *design.Attribute, i int) int {
	if a.Cardinality > 0 {
		return i % a.Cardinality
	}
	return i
}

// shardOf picks a shard for value: FNV-1a, modulo count.
func shardOf(value string, count int) int {
	h := fnv.New32a()
	h.Write([]byte(value))
	return int(h.Sum32() % uint32(count))
}

// ownValue is value number idx of attribute number ai of entity number
// ei: an enumeration's idx-th value; a time idx hours after the first
// (plus ei minutes and ai seconds, so that no two time attributes of an
// item are equal); a number 3×idx above 99−ai (two digits at least, so
// that an importer can find it in a key; the first items already cross
// a digit boundary, where text order and number order part; no two
// numbers of an item are equal); text naming the attribute, and
// the entity unless it owns the attribute (so that the values of an
// attribute nobody owns do not meet across entities).
func ownValue(a *design.Attribute, e *design.Entity, idx, ei, ai int, owned bool) Value {
	switch {
	case len(a.Values) > 0:
		return Value{"S", a.Values[idx%len(a.Values)]}
	case a.Type == "timestamp":
		at := genBase.Add(time.Duration(idx)*time.Hour + time.Duration(ei)*time.Minute + time.Duration(ai)*time.Second)
		return Value{"S", at.Format(time.RFC3339)}
	case a.Type == "epoch":
		return Value{"N", strconv.FormatInt(genBase.Unix()+int64(idx*3600+ei*60+ai), 10)}
	case a.Type == "N":
		start := 99 - ai
		if ai > 8 {
			start = 10 * ai
		}
		return Value{"N", strconv.Itoa(start + 3*idx)}
	case a.Type == "BOOL":
		return Value{"BOOL", strconv.FormatBool(idx%2 == 0)}
	case a.Type == "B":
		return Value{"B", fmt.Sprintf("%s-%d", a.Name, idx)}
	case slices.Contains([]string{"L", "M", "SS", "NS", "BS", "NULL"}, a.Type):
		return Value{a.Type, fmt.Sprintf("%s-%d", a.Name, idx)}
	case owned:
		return Value{"S", fmt.Sprintf("%s-%d", a.Name, idx+1)}
	}
	return Value{"S", fmt.Sprintf("%s-%s-%d", a.Name, e.Name, idx+1)}
}

// AttributeValue is v as the SDK's AttributeValue.
func AttributeValue(v Value) types.AttributeValue {
	switch v.Type {
	case "N":
		return &types.AttributeValueMemberN{Value: v.Text}
	case "B":
		return &types.AttributeValueMemberB{Value: []byte(v.Text)}
	case "BOOL":
		return &types.AttributeValueMemberBOOL{Value: v.Text == "true"}
	case "NULL":
		return &types.AttributeValueMemberNULL{Value: true}
	case "L":
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: v.Text}}}
	case "M":
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"value": &types.AttributeValueMemberS{Value: v.Text}}}
	case "SS":
		return &types.AttributeValueMemberSS{Value: []string{v.Text}}
	case "NS":
		return &types.AttributeValueMemberNS{Value: []string{"1"}}
	case "BS":
		return &types.AttributeValueMemberBS{Value: [][]byte{[]byte(v.Text)}}
	}
	return &types.AttributeValueMemberS{Value: v.Text}
}

// TableKey returns an item's table key as text (its generated
// attributes' values, each followed by a NUL), to tell items apart.
func TableKey(d *design.Design, attrs map[string]Value) string {
	var b strings.Builder
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		b.WriteString(attrs[ka.Name].Text)
		b.WriteByte(0)
	}
	return b.String()
}

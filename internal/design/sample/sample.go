// Package sample generates deterministic items for every entity of a
// single-table design, built from its attribute types and key templates:
// the data dynago design run writes so that the patterns have items to
// find, and the sample items (TableData) of a NoSQL Workbench export.
// The same design gives the same items on every run.
package sample

import (
	"fmt"
	"hash/fnv"
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

// sharedVars are the variables that take few values, shared by every
// entity: those of the table's partition key templates, so that item
// collections hold several items and several entity types, and those
// in the key templates of more than one entity, so that a child (a
// comment) lands next to its parent (its issue).
func sharedVars(d *design.Design) map[string]bool {
	vars := map[string]bool{}
	users := map[string]int{}
	for _, e := range d.Entities {
		seen := map[string]bool{}
		for _, k := range e.Keys {
			for _, v := range k.Template.Vars() {
				if !seen[v] {
					seen[v] = true
					users[v]++
				}
				if design.HasAttr(d.Table.PartitionKey, k.Attr) {
					vars[v] = true
				}
			}
		}
	}
	for v, n := range users {
		if n > 1 {
			vars[v] = true
		}
	}
	return vars
}

// Generate returns up to n items per entity: an item whose table key an
// earlier one has (an entity keyed by a shared variable only, such as a
// user's profile) is left out, so that every item returned is stored.
func Generate(d *design.Design, n int) []Item {
	shared := sharedVars(d)
	var items []Item
	seen := map[string]bool{}
	for ei, e := range d.Entities {
		for i := range n {
			it := Item{Entity: e, Vals: map[string]string{}, Attrs: map[string]Value{}}
			for ai, a := range e.Attributes {
				if a.Optional && (i+ai)%3 == 2 {
					continue // some items go without it
				}
				v := genAttr(a, e, i, ei, shared[a.Name])
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
			if k := TableKey(d, it.Attrs); !seen[k] {
				seen[k] = true
				items = append(items, it)
			}
		}
	}
	return items
}

// shardOf picks a shard for value: FNV-1a, modulo count.
func shardOf(value string, count int) int {
	h := fnv.New32a()
	h.Write([]byte(value))
	return int(h.Sum32() % uint32(count))
}

// genAttr generates attribute a's value for the i-th item of entity
// number ei; shared attributes (partition key variables) take one of
// two values.
func genAttr(a *design.Attribute, e *design.Entity, i, ei int, shared bool) Value {
	idx := i
	if shared {
		idx = i % 2
	}
	switch {
	case len(a.Values) > 0:
		return Value{"S", a.Values[i%len(a.Values)]}
	case a.Type == "timestamp":
		return Value{"S", genBase.Add(time.Duration(idx*60+ei) * time.Minute).Format(time.RFC3339)}
	case a.Type == "N" || a.Type == "epoch":
		if a.Type == "epoch" {
			return Value{"N", strconv.FormatInt(genBase.Unix()+int64(idx*3600+ei), 10)}
		}
		// 8, 11, 14, ...: the first items already cross a digit
		// boundary, where text order and number order part.
		return Value{"N", strconv.Itoa(idx*3 + 8)}
	case a.Type == "BOOL":
		return Value{"BOOL", strconv.FormatBool(idx%2 == 0)}
	case a.Type == "B":
		return Value{"B", fmt.Sprintf("%s-%d", a.Name, idx)}
	case slices.Contains([]string{"L", "M", "SS", "NS", "BS", "NULL"}, a.Type):
		return Value{a.Type, fmt.Sprintf("%s-%d", a.Name, idx)}
	}
	if shared {
		return Value{"S", fmt.Sprintf("%s-%d", a.Name, idx)}
	}
	return Value{"S", fmt.Sprintf("%s-%s-%d", a.Name, e.Name, idx)}
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

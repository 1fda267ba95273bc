package design

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Item generation for `dynago design run`: deterministic items for every
// entity, built from its attribute types and key templates, so that the
// patterns have data to find.

// genItem is one generated item: its attribute values (as text, with
// their types) and the entity it belongs to.
type genItem struct {
	entity *Entity
	// vals are the variables' values (attributes and <shard>), as text.
	vals map[string]string
	// attrs are the item's attributes: name → DynamoDB type and text.
	attrs map[string]genValue
}

type genValue struct {
	typ  string // S, N, B, BOOL, or L, M, SS, NS, BS, NULL (one element)
	text string
}

// genBase is the first generated timestamp.
var genBase = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sharedVars are the variables that take few values, shared by every
// entity: those of the table's partition key templates, so that item
// collections hold several items and several entity types, and those
// in the key templates of more than one entity, so that a child (a
// comment) lands next to its parent (its issue).
func sharedVars(d *Design) map[string]bool {
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
				if HasAttr(d.Table.PartitionKey, k.Attr) {
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

// generate returns up to n items per entity: an item whose table key an
// earlier one has (an entity keyed by a shared variable only, such as a
// user's profile) is left out, so that every item returned is stored.
func generate(d *Design, n int) []genItem {
	shared := sharedVars(d)
	var items []genItem
	seen := map[string]bool{}
	for ei, e := range d.Entities {
		for i := range n {
			it := genItem{entity: e, vals: map[string]string{}, attrs: map[string]genValue{}}
			for ai, a := range e.Attributes {
				if a.Optional && (i+ai)%3 == 2 {
					continue // some items go without it
				}
				v := genAttr(a, e, i, ei, shared[a.Name])
				it.attrs[a.Name] = v
				it.vals[a.Name] = v.text
			}
			for _, k := range e.Keys {
				if k.Shard != nil {
					it.vals["shard"] = strconv.Itoa(shardOf(it.vals[k.Shard.By], k.Shard.Count))
				}
			}
			for _, k := range e.Keys {
				t, _, _, _ := e.ValueOf(k.Attr)
				s, err := t.Render(it.vals)
				if err != nil {
					continue // a variable is missing: the key is absent (sparse)
				}
				it.attrs[k.Attr] = genValue{typ: d.KeyType(k.Attr), text: s}
			}
			if e.Discriminator != "" && e.DiscriminatorValue != "" {
				it.attrs[e.Discriminator] = genValue{typ: "S", text: e.DiscriminatorValue}
			}
			if k := tableKeyOf(d, it.attrs); !seen[k] {
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
func genAttr(a *Attribute, e *Entity, i, ei int, shared bool) genValue {
	idx := i
	if shared {
		idx = i % 2
	}
	switch {
	case len(a.Values) > 0:
		return genValue{"S", a.Values[i%len(a.Values)]}
	case a.Type == "timestamp":
		return genValue{"S", genBase.Add(time.Duration(idx*60+ei) * time.Minute).Format(time.RFC3339)}
	case a.Type == "N" || a.Type == "epoch":
		if a.Type == "epoch" {
			return genValue{"N", strconv.FormatInt(genBase.Unix()+int64(idx*3600+ei), 10)}
		}
		// 8, 11, 14, ...: the first items already cross a digit
		// boundary, where text order and number order part.
		return genValue{"N", strconv.Itoa(idx*3 + 8)}
	case a.Type == "BOOL":
		return genValue{"BOOL", strconv.FormatBool(idx%2 == 0)}
	case a.Type == "B":
		return genValue{"B", fmt.Sprintf("%s-%d", a.Name, idx)}
	case slices.Contains([]string{"L", "M", "SS", "NS", "BS", "NULL"}, a.Type):
		return genValue{a.Type, fmt.Sprintf("%s-%d", a.Name, idx)}
	}
	if shared {
		return genValue{"S", fmt.Sprintf("%s-%d", a.Name, idx)}
	}
	return genValue{"S", fmt.Sprintf("%s-%s-%d", a.Name, e.Name, idx)}
}

func toAV(v genValue) types.AttributeValue {
	switch v.typ {
	case "N":
		return &types.AttributeValueMemberN{Value: v.text}
	case "B":
		return &types.AttributeValueMemberB{Value: []byte(v.text)}
	case "BOOL":
		return &types.AttributeValueMemberBOOL{Value: v.text == "true"}
	case "NULL":
		return &types.AttributeValueMemberNULL{Value: true}
	case "L":
		return &types.AttributeValueMemberL{Value: []types.AttributeValue{&types.AttributeValueMemberS{Value: v.text}}}
	case "M":
		return &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"value": &types.AttributeValueMemberS{Value: v.text}}}
	case "SS":
		return &types.AttributeValueMemberSS{Value: []string{v.text}}
	case "NS":
		return &types.AttributeValueMemberNS{Value: []string{"1"}}
	case "BS":
		return &types.AttributeValueMemberBS{Value: [][]byte{[]byte(v.text)}}
	}
	return &types.AttributeValueMemberS{Value: v.text}
}

// tableKeyOf returns an item's table key as text (generated attributes).
func tableKeyOf(d *Design, attrs map[string]genValue) string {
	var b strings.Builder
	for _, ka := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		b.WriteString(attrs[ka.Name].text)
		b.WriteByte(0)
	}
	return b.String()
}

package design

import "math"

// Size estimates: DynamoDB counts an attribute as its name's bytes plus
// its value's. A design may declare an attribute's typical size; without
// one the estimate is a typical value of its type.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html

// typicalSize is the value size assumed for an attribute type.
var typicalSize = map[string]int{
	"S": 16, "timestamp": 20, "N": 5, "epoch": 6, "BOOL": 1, "NULL": 1, "B": 16,
	"L": 64, "M": 64, "SS": 48, "NS": 24, "BS": 48,
}

// valueSize is attribute a's value size in bytes.
func valueSize(a *Attribute) int {
	if a.Size > 0 {
		return a.Size
	}
	return typicalSize[a.Type]
}

// TemplateSize estimates the length of t's values for entity e.
func TemplateSize(e *Entity, t Template) int {
	n := 0
	for _, p := range t.Parts {
		switch {
		case p.Var == "":
			n += len(p.Literal)
		case p.Var == "shard":
			n += 2
		case p.Width > 0:
			n += p.Width
		default:
			if a := e.Attribute(p.Var); a != nil {
				n += valueSize(a)
			} else {
				n += 16
			}
		}
	}
	return n
}

// ItemSize estimates the size in bytes of one of e's items: its
// attributes, its keys and its discriminator.
func (d *Design) ItemSize(e *Entity) int {
	n := 0
	seen := map[string]bool{}
	for _, k := range e.Keys {
		t, _, _, _ := e.ValueOf(k.Attr)
		n += len(k.Attr) + TemplateSize(e, t)
		seen[k.Attr] = true
	}
	for _, a := range e.Attributes {
		if !seen[a.Name] {
			n += len(a.Name) + valueSize(a)
			seen[a.Name] = true
		}
	}
	if e.Discriminator != "" && e.DiscriminatorValue != "" && !seen[e.Discriminator] {
		n += len(e.Discriminator) + len(e.DiscriminatorValue)
	}
	return n
}

// ProjectedSize estimates the size of e's entry in index (the item on
// the table or an ALL index).
func (d *Design) ProjectedSize(e *Entity, index string) int {
	ix := d.Index(index)
	if ix == nil || ix.Projection == "ALL" {
		return d.ItemSize(e)
	}
	n := 0
	keys := append(append(append(append([]KeyAttr{}, d.Table.PartitionKey...), d.Table.SortKey...), ix.PartitionKey...), ix.SortKey...)
	names := map[string]bool{}
	for _, ka := range keys {
		names[ka.Name] = true
	}
	for _, a := range ix.Include {
		names[a] = true
	}
	for name := range names {
		if t, _, _, ok := e.ValueOf(name); ok {
			if a := e.Attribute(name); a != nil && e.Key(name) == nil {
				n += len(name) + valueSize(a)
			} else {
				n += len(name) + TemplateSize(e, t)
			}
		}
	}
	return n
}

// WriteUnits is DynamoDB's write units for an item of size bytes: one
// per 1 KB, rounded up.
func WriteUnits(size int) float64 { return math.Max(1, math.Ceil(float64(size)/1024)) }

// ReadUnits is DynamoDB's eventually consistent read units for size
// bytes read: half a unit per 4 KB, rounded up.
func ReadUnits(size int) float64 { return 0.5 * math.Max(1, math.Ceil(float64(size)/4096)) }

package interop

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/dynago/dynago/internal/design"
)

// YAML writes d as a design file (version 1) that design.Parse reads
// back to the same table, indexes, entities, patterns and workload;
// header is written as comment lines at the top.
func YAML(d *design.Design, header []string) ([]byte, error) {
	root := mapNode()
	put(root, "version", scalar("1"))
	put(root, "table", tableNode(d))
	entities := mapNode()
	for _, e := range d.Entities {
		put(entities, e.Name, entityNode(e))
	}
	put(root, "entities", entities)
	patterns := &yaml.Node{Kind: yaml.SequenceNode}
	for _, p := range d.Patterns {
		patterns.Content = append(patterns.Content, patternNode(p))
	}
	if len(d.Patterns) == 0 {
		patterns.Style = yaml.FlowStyle
	}
	put(root, "patterns", patterns)
	if w := workloadNode(d.Workload); w != nil {
		put(root, "workload", w)
	}
	var b bytes.Buffer
	for _, h := range header {
		fmt.Fprintf(&b, "# %s\n", h)
	}
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}}); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

func mapNode() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode} }

func flowMap() *yaml.Node { return &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle} }

func scalar(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: v} }

// text is a string scalar, quoted when YAML would read it as something
// else (a number, a boolean, null).
func text(v string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: v}
	var x any
	if yaml.Unmarshal([]byte(v), &x) != nil || fmt.Sprint(x) != v {
		n.Style = yaml.DoubleQuotedStyle
	} else if _, isString := x.(string); !isString {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func put(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, text(key), v)
}

func strList(vs []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, v := range vs {
		n.Content = append(n.Content, text(v))
	}
	return n
}

func numNode(v float64) *yaml.Node { return scalar(strconv.FormatFloat(v, 'g', -1, 64)) }

// keyNode is a key schema: one attribute as {name, type}, several as a
// list.
func keyNode(ks []design.KeyAttr) *yaml.Node {
	one := func(k design.KeyAttr) *yaml.Node {
		n := flowMap()
		put(n, "name", text(k.Name))
		put(n, "type", scalar(k.Type))
		return n
	}
	if len(ks) == 1 {
		return one(ks[0])
	}
	l := &yaml.Node{Kind: yaml.SequenceNode}
	for _, k := range ks {
		l.Content = append(l.Content, one(k))
	}
	return l
}

func tableNode(d *design.Design) *yaml.Node {
	t := mapNode()
	put(t, "name", text(d.Table.Name))
	put(t, "partitionKey", keyNode(d.Table.PartitionKey))
	if len(d.Table.SortKey) > 0 {
		put(t, "sortKey", keyNode(d.Table.SortKey))
	}
	if d.Table.BillingMode != "" {
		put(t, "billingMode", scalar(d.Table.BillingMode))
	}
	if d.Table.TTL != "" {
		put(t, "ttl", text(d.Table.TTL))
	}
	if d.Table.Stream != "" {
		put(t, "stream", scalar(d.Table.Stream))
	}
	if len(d.Table.Indexes) > 0 {
		l := &yaml.Node{Kind: yaml.SequenceNode}
		for _, ix := range d.Table.Indexes {
			n := mapNode()
			put(n, "name", text(ix.Name))
			if ix.Local {
				put(n, "local", scalar("true"))
			} else {
				put(n, "partitionKey", keyNode(ix.PartitionKey))
			}
			if len(ix.SortKey) > 0 {
				put(n, "sortKey", keyNode(ix.SortKey))
			}
			switch ix.Projection {
			case "INCLUDE":
				put(n, "projection", strList(ix.Include))
			case "KEYS_ONLY":
				put(n, "projection", scalar("KEYS_ONLY"))
			}
			l.Content = append(l.Content, n)
		}
		put(t, "indexes", l)
	}
	return t
}

func entityNode(e *design.Entity) *yaml.Node {
	n := mapNode()
	if e.Discriminator != "" {
		dm := flowMap()
		put(dm, e.Discriminator, text(e.DiscriminatorValue))
		put(n, "discriminator", dm)
	}
	attrs := mapNode()
	for _, a := range e.Attributes {
		if !a.Optional && len(a.Values) == 0 && a.Cardinality == 0 && a.Size == 0 {
			put(attrs, a.Name, scalar(a.Type))
			continue
		}
		an := flowMap()
		put(an, "type", scalar(a.Type))
		if a.Optional {
			put(an, "optional", scalar("true"))
		}
		if len(a.Values) > 0 {
			put(an, "values", strList(a.Values))
		}
		if a.Cardinality > 0 {
			put(an, "cardinality", scalar(strconv.Itoa(a.Cardinality)))
		}
		if a.Size > 0 {
			put(an, "size", scalar(strconv.Itoa(a.Size)))
		}
		put(attrs, a.Name, an)
	}
	put(n, "attributes", attrs)
	keys := mapNode()
	for _, k := range e.Keys {
		if k.Shard == nil && !k.Sparse {
			put(keys, k.Attr, text(k.Template.Text))
			continue
		}
		kn := flowMap()
		put(kn, "template", text(k.Template.Text))
		if k.Shard != nil {
			sn := flowMap()
			put(sn, "count", scalar(strconv.Itoa(k.Shard.Count)))
			put(sn, "by", text(k.Shard.By))
			put(kn, "shard", sn)
		}
		if k.Sparse {
			put(kn, "sparse", scalar("true"))
		}
		put(keys, k.Attr, kn)
	}
	put(n, "keys", keys)
	return n
}

func patternNode(p *design.Pattern) *yaml.Node {
	n := mapNode()
	put(n, "id", text(p.ID))
	if p.Description != "" {
		put(n, "description", text(p.Description))
	}
	if p.Kind == "write" {
		put(n, "kind", scalar("write"))
	}
	if p.Operation != "" {
		put(n, "operation", scalar(p.Operation))
	}
	if p.Index != "" {
		put(n, "index", text(p.Index))
	}
	if p.KeyCondition != "" {
		put(n, "key", text(p.KeyCondition))
	}
	if len(p.Returns) > 0 && !p.Multi() { // a BatchGetItem's gets say it
		put(n, "returns", strList(p.Returns))
	}
	if p.Multi() {
		put(n, "actions", actionsNode(p.Actions))
	}
	if a := p.Write; a != nil {
		// A one-item write's condition, version and counters, written as
		// an action's are.
		an := actionsNode([]*design.Action{a}).Content[0]
		for i := 2; i+1 < len(an.Content); i += 2 { // past the kind: entity pair
			if k := an.Content[i].Value; k != "set" {
				put(n, k, an.Content[i+1])
			}
		}
	}
	if p.Entity != "" {
		put(n, "entity", text(p.Entity))
	}
	for _, l := range []struct {
		name string
		vs   []string
	}{{"updates", updatesOf(p)}, {"needs", p.Needs}} {
		if len(l.vs) > 0 {
			put(n, l.name, strList(l.vs))
		}
	}
	if p.Given != nil {
		put(n, "given", strList(p.Given))
	}
	if p.Order != "" {
		put(n, "order", scalar(p.Order))
	}
	if p.PageSize > 0 {
		put(n, "pageSize", scalar(strconv.Itoa(p.PageSize)))
	}
	if p.Shards != "" {
		put(n, "shards", scalar(p.Shards))
	}
	if p.Expects != "" {
		put(n, "expects", scalar(p.Expects))
	}
	if p.Rate != (design.Rate{}) {
		r := flowMap()
		put(r, "average", numNode(p.Rate.Average))
		put(r, "peak", numNode(p.Rate.Peak))
		put(n, "rate", r)
	}
	if p.Consistent {
		put(n, "consistent", scalar("true"))
	}
	if p.Transaction {
		put(n, "transaction", scalar("true"))
	}
	return n
}

// updatesOf is what a write pattern's updates: field says: its SETs
// (its counters and version are written as add: and version:).
func updatesOf(p *design.Pattern) []string {
	if p.Write != nil {
		return p.Write.Set
	}
	return p.Updates
}

// actionsNode writes a multi-item pattern's actions, one flow mapping
// each: {put: Like, condition: attribute_not_exists}.
func actionsNode(actions []*design.Action) *yaml.Node {
	list := &yaml.Node{Kind: yaml.SequenceNode}
	for _, a := range actions {
		an := flowMap()
		put(an, a.Kind, text(a.Entity))
		if len(a.Set) > 0 {
			put(an, "set", strList(a.Set))
		}
		if len(a.Add) > 0 {
			add := flowMap()
			for _, c := range a.Add {
				put(add, c.Attr, scalar(c.By))
			}
			put(an, "add", add)
		}
		if a.Condition != "" {
			put(an, "condition", scalar(a.Condition))
		}
		if a.Version != "" {
			put(an, "version", text(a.Version))
		}
		if a.Count > 1 {
			put(an, "count", scalar(strconv.Itoa(a.Count)))
		}
		list.Content = append(list.Content, an)
	}
	return list
}

func workloadNode(w design.Workload) *yaml.Node {
	if len(w.Items) == 0 && len(w.Skew) == 0 {
		return nil
	}
	n := mapNode()
	if len(w.Items) > 0 {
		items := mapNode()
		for _, name := range sortedKeys(w.Items) {
			put(items, name, numNode(w.Items[name]))
		}
		put(n, "items", items)
	}
	if len(w.Skew) > 0 {
		skew := mapNode()
		for _, name := range sortedKeys(w.Skew) {
			sk := w.Skew[name]
			switch {
			case sk.Zipf > 0:
				z := flowMap()
				put(z, "zipf", numNode(sk.Zipf))
				put(skew, name, z)
			case len(sk.Top) > 0:
				top := flowMap()
				for _, v := range sortedKeys(sk.Top) {
					put(top, v, numNode(sk.Top[v]))
				}
				t := flowMap()
				put(t, "top", top)
				put(skew, name, t)
			default:
				put(skew, name, scalar("uniform"))
			}
		}
		put(n, "skew", skew)
	}
	return n
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

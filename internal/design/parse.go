package design

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/partiql"

	"go.yaml.in/yaml/v3"
)

// Parse parses a design file's bytes (file names its positions).
// Problems come back as "syntax" diagnostics; the design returned holds
// everything that parsed.
func Parse(file string, raw []byte) (*Design, []Diagnostic) {
	p := &parser{file: file}
	d := &Design{File: file}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		line := 1
		if m := yamlLine().FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if strings.Contains(msg, "mapping values are not allowed") {
			// The usual cause: a value with ": " in it, such as a partiql:
			// statement's {'PK': ...} item.
			msg += ` (a value with ": " in it, such as a partiql: statement with a {'k': v} item, needs quotes or a block scalar: partiql: >-)`
		}
		p.errorf(Pos{File: file, Line: line, Col: 1}, "not YAML: %s", msg)
		return d, p.diags
	}
	if len(doc.Content) == 0 {
		p.errorf(Pos{File: file, Line: 1, Col: 1}, "empty design file: it needs table, entities and patterns")
		return d, p.diags
	}
	top := p.mapping(doc.Content[0], "version", "table", "entities", "patterns", "workload")
	if v := top["version"]; v != nil && v.Value != "1" {
		p.errorf(p.pos(v), "version %q: this dynago reads version 1", v.Value)
	}
	for _, req := range []string{"table", "entities", "patterns"} {
		if top[req] == nil && doc.Content[0].Kind == yaml.MappingNode {
			p.errorf(p.pos(doc.Content[0]), "the design has no %s section", req)
		}
	}
	if n := top["table"]; n != nil {
		p.table(n, &d.Table)
	}
	for _, kv := range p.entries(top["entities"]) {
		d.Entities = append(d.Entities, p.entity(kv[0], kv[1]))
	}
	if n := top["patterns"]; n != nil {
		if n.Kind != yaml.SequenceNode {
			p.errorf(p.pos(n), "patterns is a list of access patterns")
		} else {
			ids := map[string]bool{}
			for i, pn := range n.Content {
				pt := p.pattern(pn, i+1, d)
				if ids[pt.ID] {
					p.errorf(pt.Pos, "pattern id %s is used twice", pt.ID)
				}
				ids[pt.ID] = true
				d.Patterns = append(d.Patterns, pt)
			}
		}
	}
	for _, pt := range d.Patterns {
		p.readOptions(d, pt)
	}
	if n := top["workload"]; n != nil {
		d.Workload = p.workload(n, d)
	}
	d.Ignores = p.ignores(&doc, raw, spans(top))
	return d, p.diags
}

// spans maps the first line of each access pattern and entity to its
// last line (what a dynago:ignore comment there covers).
func spans(top map[string]*yaml.Node) map[int]int {
	out := map[int]int{}
	if n := top["patterns"]; n != nil && n.Kind == yaml.SequenceNode {
		for _, pn := range n.Content {
			out[pn.Line] = lastLine(pn)
		}
	}
	if n := top["entities"]; n != nil && n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			out[n.Content[i].Line] = max(n.Content[i].Line, lastLine(n.Content[i+1]))
		}
	}
	return out
}

// readOptions refuses what DynamoDB refuses of a read: a strongly
// consistent read of a GSI, and a Query or Scan in a transaction
// (TransactGetItems only gets items).
func (p *parser) readOptions(d *Design, pt *Pattern) {
	if pt.Kind != "read" || pt.Multi() {
		return
	}
	if ix := d.Index(pt.Index); pt.Consistent && ix != nil && !ix.Local {
		p.errorf(pt.Pos, "pattern %s: consistent: true on GSI %s: a global secondary index is read eventually consistent only", pt.ID, ix.Name)
	}
	if op := d.Operation(pt); pt.Transaction && op != "GetItem" {
		p.errorf(pt.Pos, "pattern %s: transaction: true on a %s: TransactGetItems only gets items by key", pt.ID, op)
	}
}

// workload reads the workload section: items per entity and skew per
// attribute.
func (p *parser) workload(n *yaml.Node, d *Design) Workload {
	w := Workload{Pos: p.pos(n)}
	m := p.mapping(n, "items", "skew")
	if len(p.entries(m["items"])) > 0 {
		w.Items = map[string]float64{}
	}
	for _, kv := range p.entries(m["items"]) {
		if d.Entity(kv[0].Value) == nil {
			p.errorf(p.pos(kv[0]), "workload items: no entity %q", kv[0].Value)
		}
		w.Items[kv[0].Value] = p.num(kv[1], "an item count")
	}
	if len(p.entries(m["skew"])) > 0 {
		w.Skew = map[string]Skew{}
	}
	for _, kv := range p.entries(m["skew"]) {
		name := kv[0].Value
		if !slices.ContainsFunc(d.Entities, func(e *Entity) bool { return e.Attribute(name) != nil }) {
			p.errorf(p.pos(kv[0]), "workload skew: no entity has an attribute %q", name)
		}
		w.Skew[name] = p.skew(name, kv[1])
		// A top value the attribute cannot take.
		for v := range w.Skew[name].Top {
			for _, e := range d.Entities {
				if a := e.Attribute(name); a != nil && len(a.Values) > 0 && !slices.Contains(a.Values, v) {
					p.errorf(w.Skew[name].Pos, "skew of %s: %q is not one of its values (%s)", name, v, strings.Join(a.Values, ", "))
				}
			}
		}
	}
	return w
}

// skew reads one attribute's skew: uniform, {zipf: S} or {top: {value:
// share, ...}}.
func (p *parser) skew(name string, n *yaml.Node) Skew {
	sk := Skew{Pos: p.pos(n)}
	if n.Kind == yaml.ScalarNode {
		if n.Value != "uniform" {
			p.errorf(p.pos(n), "skew of %s: uniform, {zipf: 1.0} or {top: {value: share}}, not %q", name, n.Value)
		}
		return sk
	}
	m := p.mapping(n, "zipf", "top")
	switch {
	case len(m) != 1:
		p.errorf(p.pos(n), "skew of %s: give one of zipf or top", name)
	case m["zipf"] != nil:
		sk.Zipf = p.num(m["zipf"], "zipf")
		if sk.Zipf <= 0 || sk.Zipf > 10 {
			p.errorf(p.pos(m["zipf"]), "skew of %s: the Zipf exponent is above 0 and at most 10 (1 is classic Zipf)", name)
		}
	case m["top"] != nil:
		sk.Top = map[string]float64{}
		sum := 0.0
		for _, kv := range p.entries(m["top"]) {
			v := p.num(kv[1], "a share")
			if v <= 0 || v > 1 {
				p.errorf(p.pos(kv[1]), "skew of %s: the share of %q is a fraction above 0 and at most 1", name, kv[0].Value)
			}
			sk.Top[kv[0].Value] = v
			sum += v
		}
		if sum > 1+1e-9 {
			p.errorf(p.pos(m["top"]), "skew of %s: the shares add up to %.3g, more than 1", name, sum)
		}
		if len(sk.Top) == 0 {
			p.errorf(p.pos(m["top"]), "skew of %s: top lists at least one value and its share", name)
		}
	}
	return sk
}

// yamlLine finds the line number in a YAML parser error.
var yamlLine = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`line (\d+)`) })

type parser struct {
	file  string
	diags []Diagnostic
}

func (p *parser) pos(n *yaml.Node) Pos { return Pos{File: p.file, Line: n.Line, Col: n.Column} }

func (p *parser) errorf(pos Pos, format string, args ...any) {
	p.diags = append(p.diags, NewDiagnostic(pos, Error, "syntax", fmt.Sprintf(format, args...)))
}

// mapping returns n's keys (reporting keys outside allowed, which must
// be non-empty to check) and their value nodes.
// deref follows a YAML alias (*name) to its anchor's node.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 16; i++ {
		n = n.Alias
	}
	return n
}

func (p *parser) mapping(n *yaml.Node, allowed ...string) map[string]*yaml.Node {
	m := map[string]*yaml.Node{}
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(p.pos(n), "want a mapping (key: value lines) here")
		return m
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if len(allowed) > 0 && !slices.Contains(allowed, k.Value) {
			p.errorf(p.pos(k), "unknown field %q (known here: %s)", k.Value, strings.Join(allowed, ", "))
			continue
		}
		if _, dup := m[k.Value]; dup {
			p.errorf(p.pos(k), "%q appears twice", k.Value)
		}
		m[k.Value] = deref(n.Content[i+1])
	}
	return m
}

// entries returns a mapping's key and value nodes in file order, values
// dereferenced, each key once (mapping reports a repeated one); nil for
// a missing node.
func (p *parser) entries(n *yaml.Node) [][2]*yaml.Node {
	if n == nil {
		return nil
	}
	m := p.mapping(n)
	n = deref(n)
	var out [][2]*yaml.Node
	seen := map[string]bool{}
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !seen[k.Value] {
			seen[k.Value] = true
			out = append(out, [2]*yaml.Node{k, m[k.Value]})
		}
	}
	return out
}

func (p *parser) str(n *yaml.Node, what string) string {
	if n == nil {
		return ""
	}
	if n.Kind != yaml.ScalarNode {
		p.errorf(p.pos(n), "%s is a single value", what)
		return ""
	}
	return n.Value
}

func (p *parser) num(n *yaml.Node, what string) float64 {
	if n == nil {
		return 0
	}
	f, err := strconv.ParseFloat(n.Value, 64)
	if n.Kind != yaml.ScalarNode || err != nil || f < 0 || !(f <= maxNumber) {
		p.errorf(p.pos(n), "%s is a number of at least 0, not %q", what, n.Value)
		return 0
	}
	return f
}

// maxNumber bounds every number in a design (rates, counts, sizes): far
// above any real one, and it keeps NaN, infinities and sums that overflow
// out of the analysis.
const maxNumber = 1e15

func (p *parser) boolean(n *yaml.Node, what string) bool {
	if n == nil {
		return false
	}
	switch n.Value {
	case "true":
		return true
	case "false":
		return false
	}
	p.errorf(p.pos(n), "%s is true or false, not %q", what, n.Value)
	return false
}

func (p *parser) strings(n *yaml.Node, what string) []string {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []string{n.Value}
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(p.pos(n), "%s is a list", what)
		return nil
	}
	var out []string
	for _, c := range n.Content {
		out = append(out, p.str(c, what))
	}
	return out
}

// keyAttrs reads a key schema element: {name, type} or a list of them
// (multi-attribute keys).
func (p *parser) keyAttrs(n *yaml.Node, what string) []KeyAttr {
	if n == nil {
		return nil
	}
	nodes := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		nodes = n.Content
	}
	var out []KeyAttr
	for _, c := range nodes {
		m := p.mapping(c, "name", "type")
		ka := KeyAttr{Name: p.str(m["name"], what+" name"), Type: p.str(m["type"], what+" type")}
		if ka.Name == "" {
			p.errorf(p.pos(c), "%s needs a name", what)
		}
		switch ka.Type {
		case "S", "N", "B":
		case "":
			ka.Type = "S"
		default:
			p.errorf(p.pos(c), "%s %s: a key attribute's type is S, N or B, not %q", what, ka.Name, ka.Type)
		}
		out = append(out, ka)
	}
	return out
}

// namePattern is DynamoDB's table and index name rule.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
var namePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`) })

// name checks a table or index name.
func (p *parser) name(n *yaml.Node, at Pos, what, name string) {
	if n != nil {
		at = p.pos(n)
	}
	if !namePattern().MatchString(name) {
		p.errorf(at, "%s name %q: DynamoDB names have 3 to 255 letters, digits, '_', '-' or '.'", what, name)
	}
}

func (p *parser) table(n *yaml.Node, t *Table) {
	t.Pos = p.pos(n)
	m := p.mapping(n, "name", "partitionKey", "sortKey", "billingMode", "ttl", "stream", "indexes")
	t.Name = p.str(m["name"], "table name")
	p.name(m["name"], t.Pos, "table", t.Name)
	t.PartitionKey = p.keyAttrs(m["partitionKey"], "partitionKey")
	t.SortKey = p.keyAttrs(m["sortKey"], "sortKey")
	if len(t.PartitionKey) != 1 || len(t.SortKey) > 1 {
		p.errorf(t.Pos, "a table has one partition key attribute and at most one sort key attribute")
	}
	t.BillingMode = p.str(m["billingMode"], "billingMode")
	switch t.BillingMode {
	case "":
		t.BillingMode = "PAY_PER_REQUEST"
	case "PAY_PER_REQUEST", "PROVISIONED":
	default:
		p.errorf(p.pos(m["billingMode"]), "billingMode is PAY_PER_REQUEST or PROVISIONED, not %q", t.BillingMode)
	}
	t.TTL = p.str(m["ttl"], "ttl")
	if n := m["ttl"]; n != nil {
		t.TTLPos = p.pos(n)
	}
	t.Stream = p.str(m["stream"], "stream")
	if s := t.Stream; s != "" && !slices.Contains([]string{"KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES"}, s) {
		p.errorf(p.pos(m["stream"]), "stream is KEYS_ONLY, NEW_IMAGE, OLD_IMAGE or NEW_AND_OLD_IMAGES, not %q", s)
	}
	if ix := m["indexes"]; ix != nil {
		if ix.Kind != yaml.SequenceNode {
			p.errorf(p.pos(ix), "indexes is a list")
			return
		}
		for _, in := range ix.Content {
			t.Indexes = append(t.Indexes, p.index(in))
		}
	}
	p.checkIndexes(t)
}

// checkIndexes applies CreateTable's rules: unique index names, an LSI
// only on a table with a sort key, an attribute once per key schema, and
// one type per attribute across the table and its indexes.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_CreateTable.html
func (p *parser) checkIndexes(t *Table) {
	types := map[string]string{}
	note := func(pos Pos, ka KeyAttr) {
		if prev, ok := types[ka.Name]; ok && prev != ka.Type {
			p.errorf(pos, "attribute %s is declared %s here and %s elsewhere: an attribute has one type in the table and every index", ka.Name, ka.Type, prev)
			return
		}
		types[ka.Name] = ka.Type
	}
	for _, ka := range slices.Concat(t.PartitionKey, t.SortKey) {
		note(t.Pos, ka)
	}
	names := map[string]bool{}
	for _, ix := range t.Indexes {
		if names[ix.Name] {
			p.errorf(ix.Pos, "index name %s is used twice", ix.Name)
		}
		names[ix.Name] = true
		if ix.Local && len(t.SortKey) == 0 {
			p.errorf(ix.Pos, "index %s: a local index needs a table with a sort key", ix.Name)
		}
		seen := map[string]bool{}
		for _, ka := range slices.Concat(ix.PartitionKey, ix.SortKey) {
			if seen[ka.Name] {
				p.errorf(ix.Pos, "index %s uses %s twice in its key schema", ix.Name, ka.Name)
			}
			seen[ka.Name] = true
			note(ix.Pos, ka)
		}
	}
}

func (p *parser) index(n *yaml.Node) *Index {
	ix := &Index{Pos: p.pos(n)}
	m := p.mapping(n, "name", "local", "partitionKey", "sortKey", "projection")
	ix.Name = p.str(m["name"], "index name")
	if ix.Name != "" {
		p.name(m["name"], ix.Pos, "index", ix.Name)
	}
	ix.Local = p.boolean(m["local"], "local")
	ix.PartitionKey = p.keyAttrs(m["partitionKey"], "partitionKey")
	ix.SortKey = p.keyAttrs(m["sortKey"], "sortKey")
	switch {
	case ix.Name == "":
		p.errorf(ix.Pos, "an index needs a name")
	case ix.Local && (len(ix.PartitionKey) > 0 || len(ix.SortKey) != 1):
		p.errorf(ix.Pos, "index %s: a local index has the table's partition key and one sort key attribute (give only sortKey)", ix.Name)
	case !ix.Local && (len(ix.PartitionKey) < 1 || len(ix.PartitionKey) > 4 || len(ix.SortKey) > 4):
		p.errorf(ix.Pos, "index %s: a global index has one to four partition key attributes and up to four sort key attributes", ix.Name)
	}
	ix.Projection = "ALL"
	if pn := m["projection"]; pn != nil {
		switch {
		case pn.Kind == yaml.SequenceNode:
			ix.Projection, ix.Include = "INCLUDE", p.strings(pn, "projection")
		case pn.Value == "ALL" || pn.Value == "KEYS_ONLY":
			ix.Projection = pn.Value
		default:
			p.errorf(p.pos(pn), "projection is ALL, KEYS_ONLY or a list of attributes to include, not %q", pn.Value)
		}
	}
	return ix
}

func (p *parser) entity(name, n *yaml.Node) *Entity {
	e := &Entity{Name: name.Value, Pos: p.pos(name)}
	m := p.mapping(n, "discriminator", "attributes", "keys")
	if dn := m["discriminator"]; dn != nil {
		// discriminator: {Type: ORDER}, or an attribute name alone.
		if dn.Kind == yaml.MappingNode && len(dn.Content) == 2 {
			e.Discriminator, e.DiscriminatorValue = dn.Content[0].Value, p.str(dn.Content[1], "discriminator value")
		} else if dn.Kind == yaml.ScalarNode {
			e.Discriminator = dn.Value
		} else {
			p.errorf(p.pos(dn), "discriminator is an attribute name, or {attribute: value}")
		}
	}
	for _, kv := range p.entries(m["attributes"]) {
		e.Attributes = append(e.Attributes, p.attribute(kv[0], kv[1]))
	}
	for _, kv := range p.entries(m["keys"]) {
		e.Keys = append(e.Keys, p.key(kv[0], kv[1]))
	}
	return e
}

func (p *parser) attribute(name, n *yaml.Node) *Attribute {
	a := &Attribute{Name: name.Value, Pos: p.pos(name)}
	if n.Kind == yaml.ScalarNode {
		a.Type = n.Value
	} else {
		m := p.mapping(n, "type", "optional", "values", "cardinality", "size")
		a.Type = p.str(m["type"], "type")
		a.Optional = p.boolean(m["optional"], "optional")
		a.Values = p.strings(m["values"], "values")
		a.Cardinality = int(p.num(m["cardinality"], "cardinality"))
		a.Size = int(p.num(m["size"], "size"))
	}
	if !slices.Contains(attributeTypes, a.Type) {
		p.errorf(a.Pos, "attribute %s: type %q is not one of %s", a.Name, a.Type, strings.Join(attributeTypes, ", "))
	}
	return a
}

func (p *parser) key(name, n *yaml.Node) *Key {
	k := &Key{Attr: name.Value, Pos: p.pos(n)}
	text := ""
	if n.Kind == yaml.ScalarNode {
		text = n.Value
	} else {
		m := p.mapping(n, "template", "shard", "sparse")
		text = p.str(m["template"], "template")
		k.Sparse = p.boolean(m["sparse"], "sparse")
		if sn := m["shard"]; sn != nil {
			sm := p.mapping(sn, "count", "by")
			k.Shard = &Shard{Count: int(p.num(sm["count"], "shard count")), By: p.str(sm["by"], "shard by")}
			if k.Shard.Count < 2 || k.Shard.By == "" {
				p.errorf(p.pos(sn), "shard needs count (at least 2) and by (the attribute hashed to pick a shard)")
			}
		}
	}
	t, err := ParseTemplate(text)
	if err != nil {
		p.errorf(k.Pos, "key %s: %v", k.Attr, err)
	}
	k.Template = t
	return k
}

// pattern reads pattern number i; d holds the table read so far (a
// pattern written as a PartiQL statement is read against its key schema).
func (p *parser) pattern(n *yaml.Node, i int, d *Design) *Pattern {
	pt := &Pattern{Pos: p.pos(n), ID: strconv.Itoa(i), Kind: "read"}
	m := p.mapping(n, "id", "description", "kind", "operation", "index", "key", "partiql", "returns", "entity", "updates", "needs", "given", "order", "pageSize", "shards", "expects", "rate", "consistent", "transaction", "actions", "condition", "version", "add")
	pt.Consistent = p.boolean(m["consistent"], "consistent")
	pt.Transaction = p.boolean(m["transaction"], "transaction")
	if v := m["id"]; v != nil {
		pt.ID = p.str(v, "id")
		if strings.TrimSpace(pt.ID) == "" {
			p.errorf(p.pos(v), "pattern %d: id is empty", i)
		}
	}
	pt.Description = p.str(m["description"], "description")
	if m["partiql"] != nil {
		p.statementPattern(pt, m, d)
	} else {
		p.keyPattern(pt, m)
	}
	switch {
	case pt.Multi():
		p.multiPattern(pt, m)
	case m["actions"] != nil:
		p.errorf(p.pos(m["actions"]), "pattern %s: actions belong to a multi-item pattern (operation: TransactWriteItems, BatchWriteItem or BatchGetItem)", pt.ID)
	}
	pt.Returns = appendNew(pt.Returns, p.strings(m["returns"], "returns"))
	pt.Entity = p.str(m["entity"], "entity")
	pt.Updates = appendNew(pt.Updates, p.strings(m["updates"], "updates"))
	pt.Needs = appendNew(pt.Needs, p.strings(m["needs"], "needs"))
	p.oneItemWrite(pt, m)
	if gn := m["given"]; gn != nil {
		pt.GivenPos = p.pos(gn)
		pt.Given = p.strings(gn, "given")
		if pt.Given == nil {
			pt.Given = []string{} // given: [] says the caller has nothing
		}
		seen := map[string]bool{}
		for _, g := range pt.Given {
			switch {
			case g == "":
				p.errorf(pt.GivenPos, "pattern %s: given lists names of values (given: [orderId])", pt.ID)
			case seen[g]:
				p.errorf(pt.GivenPos, "pattern %s: given names %s twice", pt.ID, g)
			}
			seen[g] = true
		}
	}
	if sn := m["shards"]; sn != nil {
		pt.Shards = p.str(sn, "shards")
		switch {
		case pt.Shards != "all" && pt.Shards != "one":
			p.errorf(p.pos(sn), "pattern %s: shards is all (each request queries every shard and merges) or one (a request reads one shard), not %q", pt.ID, pt.Shards)
		case pt.Kind == "write":
			p.errorf(p.pos(sn), "pattern %s: shards says how a read covers a sharded key; a write puts its item in one shard", pt.ID)
		}
	}
	if en := m["expects"]; en != nil {
		pt.Expects = p.str(en, "expects")
		switch {
		case pt.Expects != "one" && pt.Expects != "many":
			p.errorf(p.pos(en), "pattern %s: expects is one (a lookup that must find at most one item) or many, not %q", pt.ID, pt.Expects)
		case pt.Kind == "write":
			p.errorf(p.pos(en), "pattern %s: expects says how many items a read finds; a write writes one", pt.ID)
		}
	}
	if pn := m["pageSize"]; pn != nil {
		pt.PageSize = int(p.num(pn, "pageSize"))
		if pt.PageSize < 1 {
			p.errorf(p.pos(pn), "pattern %s: pageSize is a whole number of at least 1 (DynamoDB's Limit)", pt.ID)
		}
	}
	if rn := m["rate"]; rn != nil {
		rm := p.mapping(rn, "average", "peak")
		pt.Rate = Rate{Average: p.num(rm["average"], "average rate"), Peak: p.num(rm["peak"], "peak rate")}
		switch {
		case rm["peak"] == nil:
			pt.Rate.Peak = pt.Rate.Average
		case pt.Rate.Peak < pt.Rate.Average:
			p.errorf(p.pos(rn), "pattern %s: the peak rate (%g) is below the average (%g)", pt.ID, pt.Rate.Peak, pt.Rate.Average)
		}
	}
	if pt.Kind == "write" && pt.Entity == "" && !pt.Multi() {
		p.errorf(pt.Pos, "pattern %s: a write pattern names the entity it writes (entity: Order)", pt.ID)
	}
	if pt.Kind == "read" && len(pt.Returns) == 0 && !pt.Multi() {
		p.errorf(pt.Pos, "pattern %s: a read pattern lists the entity types it returns (returns: [Order])", pt.ID)
	}
	return pt
}

// keyPattern reads a pattern written with kind, operation, index, key
// and order.
func (p *parser) keyPattern(pt *Pattern, m map[string]*yaml.Node) {
	pt.Operation = p.str(m["operation"], "operation")
	if v := m["kind"]; v != nil {
		pt.Kind = p.str(v, "kind")
	} else if pt.Operation == TransactWriteItems || pt.Operation == BatchWriteItem {
		pt.Kind = "write" // the operation says it
	}
	if pt.Kind != "read" && pt.Kind != "write" {
		p.errorf(pt.Pos, "pattern %s: kind is read or write, not %q", pt.ID, pt.Kind)
	}
	ops := []string{"GetItem", "Query", "Scan", BatchGetItem}
	if pt.Kind == "write" {
		ops = []string{"PutItem", "UpdateItem", "DeleteItem", TransactWriteItems, BatchWriteItem}
	}
	if pt.Operation != "" && !slices.Contains(ops, pt.Operation) {
		p.errorf(p.pos(m["operation"]), "pattern %s: a %s's operation is one of %s, not %q", pt.ID, pt.Kind, strings.Join(ops, ", "), pt.Operation)
	}
	pt.Index = p.str(m["index"], "index")
	if kn := m["key"]; kn != nil {
		pt.KeyPos = p.pos(kn)
		pt.KeyCondition = p.str(kn, "key")
		conds, err := ParseKeyCondition(pt.KeyCondition)
		if err != nil {
			p.errorf(p.pos(kn), "pattern %s: %v", pt.ID, err)
		}
		pt.Conditions = conds
	} else if pt.Kind == "read" && pt.Operation != "Scan" && !pt.Multi() {
		p.errorf(pt.Pos, "pattern %s: a read pattern needs a key condition (key: PK = USER#<UserName> ...)", pt.ID)
	}
	pt.Order = p.str(m["order"], "order")
	if pt.Order != "" && pt.Order != "ascending" && pt.Order != "descending" {
		p.errorf(p.pos(m["order"]), "pattern %s: order is ascending or descending, not %q", pt.ID, pt.Order)
	}
}

// statementPattern reads a pattern written as a PartiQL statement
// (partiql: SELECT * FROM "T" WHERE PK = 'USER#<UserId>' ...): the
// statement states the kind, operation, index, key condition and order,
// so those fields may not be written beside it.
func (p *parser) statementPattern(pt *Pattern, m map[string]*yaml.Node, d *Design) {
	sn := m["partiql"]
	for _, f := range []string{"kind", "operation", "index", "key", "order"} {
		if v := m[f]; v != nil {
			p.errorf(p.pos(v), "pattern %s: the partiql statement says the %s itself; leave %s: out", pt.ID, f, f)
		}
	}
	pt.Statement = p.str(sn, "partiql")
	pt.KeyPos = p.pos(sn)
	st, err := partiql.Parse(pt.Statement)
	if err == nil {
		err = d.fromStatement(pt, st)
	}
	var de *ddberr.Error
	if errors.As(err, &de) {
		err = errors.New(de.Message) // DynamoDB's words, without the error code
	}
	if err != nil {
		p.errorf(p.pos(sn), "pattern %s: partiql: %v", pt.ID, err)
	}
}

// appendNew appends to list the names it does not hold yet.
func appendNew(list, names []string) []string {
	for _, n := range names {
		if !slices.Contains(list, n) {
			list = append(list, n)
		}
	}
	return list
}

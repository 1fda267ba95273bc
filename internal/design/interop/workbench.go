package interop

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/sample"
)

// NoSQL Workbench data models (the JSON that NoSQL Workbench for DynamoDB
// imports and exports, ModelMetadata.Version "3.0"): a table with its key
// attributes, typed non-key attributes, GSIs, facets (one per entity:
// its name, its table key templates as key aliases, its attributes) and
// sample items (TableData, DynamoDB JSON).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.Modeler.ImportExisting.html,
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/workbench.Visualizer.Facets.html
//
// The format has no access patterns, workload, attribute value lists or
// cardinalities, shards, sparse markers, TTL or stream, and keys of one
// attribute only; timestamp and epoch attributes are S and N in it. An
// entity's index key templates are not fields of a facet: the export
// carries them in its sample items, and the import reads them back from
// the items (USER#alice with UserName alice is USER#<UserName>).

// WorkbenchModel is a NoSQL Workbench data model. Unknown fields are
// ignored on import.
type WorkbenchModel struct {
	ModelName     string
	ModelMetadata WorkbenchMetadata
	DataModel     []WorkbenchTable
}

// WorkbenchMetadata is a model's metadata.
type WorkbenchMetadata struct {
	Author, DateCreated, DateLastModified, Description, AWSService, Version string
}

// WorkbenchTable is one table of a model.
type WorkbenchTable struct {
	TableName              string
	KeyAttributes          WorkbenchKeys
	NonKeyAttributes       []WorkbenchAttribute
	TableFacets            []WorkbenchFacet
	GlobalSecondaryIndexes []WorkbenchIndex             `json:",omitempty"`
	LocalSecondaryIndexes  []WorkbenchIndex             `json:",omitempty"`
	TableData              []map[string]json.RawMessage `json:",omitempty"`
	DataAccess             map[string]any               `json:",omitempty"`
	BillingMode            string                       `json:",omitempty"`
}

// WorkbenchKeys is a key schema: one partition and an optional sort key
// attribute.
type WorkbenchKeys struct {
	PartitionKey WorkbenchAttribute
	SortKey      *WorkbenchAttribute `json:",omitempty"`
}

// WorkbenchAttribute is a typed attribute.
type WorkbenchAttribute struct {
	AttributeName, AttributeType string
}

// WorkbenchFacet is an entity type as a facet.
type WorkbenchFacet struct {
	FacetName         string
	KeyAttributeAlias struct {
		PartitionKeyAlias string
		SortKeyAlias      string `json:",omitempty"`
	}
	TableData        []map[string]json.RawMessage `json:",omitempty"`
	NonKeyAttributes []string
}

// WorkbenchIndex is a secondary index.
type WorkbenchIndex struct {
	IndexName     string
	KeyAttributes WorkbenchKeys
	Projection    struct {
		ProjectionType   string
		NonKeyAttributes []string `json:",omitempty"`
	}
}

// workbenchType is the Workbench type of a design attribute type.
func workbenchType(t string) string {
	switch t {
	case "timestamp":
		return "S"
	case "epoch":
		return "N"
	}
	return t
}

// ExportWorkbench writes d as a NoSQL Workbench data model with three
// sample items per entity; now dates the model. A key of more than one
// attribute cannot be written in the format and is an error.
func ExportWorkbench(d *design.Design, now time.Time) ([]byte, error) {
	t := WorkbenchTable{TableName: d.Table.Name, BillingMode: cmp.Or(d.Table.BillingMode, "PAY_PER_REQUEST"), DataAccess: map[string]any{"MySql": map[string]any{}}}
	var err error
	if t.KeyAttributes, err = workbenchKeys("the table", d.Table.PartitionKey, d.Table.SortKey); err != nil {
		return nil, err
	}
	keyNames := map[string]bool{}
	for _, k := range slices.Concat(d.Table.PartitionKey, d.Table.SortKey) {
		keyNames[k.Name] = true
	}
	types := map[string]string{}
	var order []string
	note := func(name, typ string) {
		if keyNames[name] {
			return
		}
		if _, ok := types[name]; !ok {
			order = append(order, name)
			types[name] = typ
		}
	}
	for _, ix := range d.Table.Indexes {
		wi := WorkbenchIndex{IndexName: ix.Name}
		pk := ix.PartitionKey
		if ix.Local {
			pk = d.Table.PartitionKey
		}
		if wi.KeyAttributes, err = workbenchKeys("index "+ix.Name, pk, ix.SortKey); err != nil {
			return nil, err
		}
		wi.Projection.ProjectionType = cmp.Or(ix.Projection, "ALL")
		wi.Projection.NonKeyAttributes = ix.Include
		for _, k := range slices.Concat(ix.PartitionKey, ix.SortKey) {
			note(k.Name, k.Type)
		}
		if ix.Local {
			t.LocalSecondaryIndexes = append(t.LocalSecondaryIndexes, wi)
		} else {
			t.GlobalSecondaryIndexes = append(t.GlobalSecondaryIndexes, wi)
		}
	}
	for _, e := range d.Entities {
		f := WorkbenchFacet{FacetName: e.Name, NonKeyAttributes: []string{}}
		pkT, _, _, _ := e.ValueOf(d.Table.PartitionKey[0].Name)
		f.KeyAttributeAlias.PartitionKeyAlias = pkT.Text
		if len(d.Table.SortKey) > 0 {
			skT, _, _, _ := e.ValueOf(d.Table.SortKey[0].Name)
			f.KeyAttributeAlias.SortKeyAlias = skT.Text
		}
		add := func(name string) {
			if !keyNames[name] && !slices.Contains(f.NonKeyAttributes, name) {
				f.NonKeyAttributes = append(f.NonKeyAttributes, name)
			}
		}
		if e.Discriminator != "" {
			note(e.Discriminator, "S")
			add(e.Discriminator)
		}
		for _, a := range e.Attributes {
			note(a.Name, workbenchType(a.Type))
			add(a.Name)
		}
		for _, k := range e.Keys {
			add(k.Attr)
		}
		t.TableFacets = append(t.TableFacets, f)
	}
	for _, name := range order {
		t.NonKeyAttributes = append(t.NonKeyAttributes, WorkbenchAttribute{name, types[name]})
	}
	for _, it := range sample.Generate(d, 3) {
		item := map[string]json.RawMessage{}
		for name, v := range it.Attrs {
			raw, err := json.Marshal(dynamoJSON(v))
			if err != nil {
				return nil, err
			}
			item[name] = raw
		}
		t.TableData = append(t.TableData, item)
	}
	date := now.UTC().Format("Jan 2, 2006, 3:04 PM")
	m := WorkbenchModel{ModelName: d.Table.Name, DataModel: []WorkbenchTable{t}, ModelMetadata: WorkbenchMetadata{
		Author: "dynago", DateCreated: date, DateLastModified: date, AWSService: "Amazon DynamoDB", Version: "3.0",
		Description: "Exported by dynago design export from " + filepath.Base(d.File),
	}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	err = enc.Encode(m)
	return b.Bytes(), err
}

// workbenchKeys is a key schema in the format, which holds one attribute
// per key.
func workbenchKeys(what string, pk, sk []design.KeyAttr) (WorkbenchKeys, error) {
	if len(pk) != 1 || len(sk) > 1 {
		return WorkbenchKeys{}, fmt.Errorf("%s has a multi-attribute key: NoSQL Workbench models hold one attribute per key", what)
	}
	k := WorkbenchKeys{PartitionKey: WorkbenchAttribute{pk[0].Name, pk[0].Type}}
	if len(sk) == 1 {
		k.SortKey = &WorkbenchAttribute{sk[0].Name, sk[0].Type}
	}
	return k, nil
}

// dynamoJSON is a generated value in DynamoDB JSON (types.AttributeValue's
// wire shape).
func dynamoJSON(v sample.Value) map[string]any {
	switch av := sample.AttributeValue(v).(type) {
	case *types.AttributeValueMemberN:
		return map[string]any{"N": av.Value}
	case *types.AttributeValueMemberB:
		return map[string]any{"B": base64.StdEncoding.EncodeToString(av.Value)}
	case *types.AttributeValueMemberBOOL:
		return map[string]any{"BOOL": av.Value}
	case *types.AttributeValueMemberNULL:
		return map[string]any{"NULL": true}
	case *types.AttributeValueMemberL:
		return map[string]any{"L": []any{map[string]any{"S": v.Text}}}
	case *types.AttributeValueMemberM:
		return map[string]any{"M": map[string]any{"value": map[string]any{"S": v.Text}}}
	case *types.AttributeValueMemberSS:
		return map[string]any{"SS": av.Value}
	case *types.AttributeValueMemberNS:
		return map[string]any{"NS": av.Value}
	case *types.AttributeValueMemberBS:
		return map[string]any{"BS": []string{base64.StdEncoding.EncodeToString(av.Value[0])}}
	}
	return map[string]any{"S": v.Text}
}

// scalarText is the text of a scalar DynamoDB JSON value (S, N, B
// base64-decoded, BOOL), and whether it is one.
func scalarText(raw json.RawMessage) (string, bool) {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil || len(v) != 1 {
		return "", false
	}
	for typ, x := range v {
		switch typ {
		case "S", "N":
			s, ok := x.(string)
			return s, ok
		case "B":
			s, ok := x.(string)
			if !ok {
				return "", false
			}
			b, err := base64.StdEncoding.DecodeString(s)
			return string(b), err == nil
		case "BOOL":
			b, ok := x.(bool)
			return fmt.Sprint(b), ok
		}
	}
	return "", false
}

// ImportWorkbench reads a NoSQL Workbench data model (lenient: unknown
// fields are ignored) into a design of its table named table ("" when the
// model has one table). Notes lists what the import had to guess or
// could not carry.
func ImportWorkbench(file string, raw []byte, table string) (d *design.Design, notes []string, err error) {
	var m WorkbenchModel
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, nil, fmt.Errorf("%s: not a NoSQL Workbench model: %v", file, err)
	}
	var names []string
	var t *WorkbenchTable
	for i := range m.DataModel {
		names = append(names, m.DataModel[i].TableName)
		if m.DataModel[i].TableName == table || (table == "" && len(m.DataModel) == 1) {
			t = &m.DataModel[i]
		}
	}
	switch {
	case len(m.DataModel) == 0:
		return nil, nil, fmt.Errorf("%s: the model has no table (DataModel is empty)", file)
	case t == nil && table == "":
		return nil, nil, fmt.Errorf("%s: the model has %d tables (%s): choose one with --table", file, len(names), strings.Join(names, ", "))
	case t == nil:
		return nil, nil, fmt.Errorf("%s: no table %q in the model (%s)", file, table, strings.Join(names, ", "))
	case t.KeyAttributes.PartitionKey.AttributeName == "":
		return nil, nil, fmt.Errorf("%s: table %s has no partition key", file, t.TableName)
	case len(t.TableFacets) == 0:
		return nil, nil, fmt.Errorf("%s: table %s has no facets: a design needs its entity types (one facet each)", file, t.TableName)
	}
	if v := m.ModelMetadata.Version; v != "" && v != "3.0" {
		notes = append(notes, fmt.Sprintf("model version %s: read as 3.0", v))
	}
	d = &design.Design{File: file, Table: design.Table{Name: t.TableName, BillingMode: t.BillingMode}}
	keyAttr := func(a WorkbenchAttribute) design.KeyAttr {
		return design.KeyAttr{Name: a.AttributeName, Type: cmp.Or(a.AttributeType, "S")}
	}
	d.Table.PartitionKey = []design.KeyAttr{keyAttr(t.KeyAttributes.PartitionKey)}
	if sk := t.KeyAttributes.SortKey; sk != nil && sk.AttributeName != "" {
		d.Table.SortKey = []design.KeyAttr{keyAttr(*sk)}
	}
	typeOf := map[string]string{}
	for _, a := range t.NonKeyAttributes {
		typeOf[a.AttributeName] = cmp.Or(a.AttributeType, "S")
	}
	for _, list := range []struct {
		ixs   []WorkbenchIndex
		local bool
	}{{t.GlobalSecondaryIndexes, false}, {t.LocalSecondaryIndexes, true}} {
		for _, wi := range list.ixs {
			ix := &design.Index{Name: wi.IndexName, Local: list.local, Projection: cmp.Or(wi.Projection.ProjectionType, "ALL"), Include: wi.Projection.NonKeyAttributes}
			if !list.local {
				ix.PartitionKey = []design.KeyAttr{keyAttr(wi.KeyAttributes.PartitionKey)}
			}
			if sk := wi.KeyAttributes.SortKey; sk != nil && sk.AttributeName != "" {
				ix.SortKey = []design.KeyAttr{keyAttr(*sk)}
			}
			d.Table.Indexes = append(d.Table.Indexes, ix)
		}
	}
	tableKeys := slices.Concat(d.Table.PartitionKey, d.Table.SortKey)
	facetItems := map[string][]map[string]string{}
	for _, f := range t.TableFacets {
		e := &design.Entity{Name: f.FacetName}
		aliases := []string{f.KeyAttributeAlias.PartitionKeyAlias, f.KeyAttributeAlias.SortKeyAlias}
		for i, ka := range tableKeys {
			tpl, err := aliasTemplate(aliases[i], ka.Name, func(name string) bool {
				_, typed := typeOf[name]
				return typed || name == ka.Name || slices.Contains(f.NonKeyAttributes, name)
			})
			if err != nil {
				return nil, notes, fmt.Errorf("%s: facet %s: key alias %q: %v", file, f.FacetName, aliases[i], err)
			}
			e.Keys = append(e.Keys, &design.Key{Attr: ka.Name, Template: tpl})
			for _, v := range tpl.Vars() {
				if e.Attribute(v) == nil {
					e.Attributes = append(e.Attributes, &design.Attribute{Name: v, Type: cmp.Or(typeOf[v], keyTypeIfWhole(tpl, ka))})
				}
			}
		}
		for _, name := range f.NonKeyAttributes {
			if e.Attribute(name) == nil && !design.HasAttr(tableKeys, name) {
				e.Attributes = append(e.Attributes, &design.Attribute{Name: name, Type: cmp.Or(typeOf[name], "S")})
			}
		}
		d.Entities = append(d.Entities, e)
		// The facet's own sample items, else the table's whose table key
		// its aliases build.
		items := f.TableData
		if len(items) == 0 {
			items = t.TableData
		}
		for _, item := range items {
			vals, ok := itemVars(e, tableKeys, item)
			if ok {
				facetItems[e.Name] = append(facetItems[e.Name], vals)
			}
		}
	}
	notes = append(notes, inferDiscriminator(d, facetItems)...)
	notes = append(notes, inferIndexKeys(d, facetItems)...)
	if len(t.DataAccess) > 0 {
		notes = append(notes, "DataAccess (Workbench's connection settings) left out")
	}
	for _, n := range names {
		if n != t.TableName {
			notes = append(notes, fmt.Sprintf("table %s: not imported (a design is one table; --table %s imports it)", n, n))
		}
	}
	return d, notes, nil
}

// keyTypeIfWhole is the key's type for a template that is one variable,
// else S (a variable inside text is text).
func keyTypeIfWhole(t design.Template, ka design.KeyAttr) string {
	if len(t.Parts) == 1 && t.Parts[0].Var != "" {
		return ka.Type
	}
	return "S"
}

// aliasTemplate reads a facet's key alias: a template in the seeds'
// notation (USER#<UserName>), the name of an attribute the key holds
// (isAttr says which names are: <name>), or else a constant (PROFILE).
func aliasTemplate(alias, keyName string, isAttr func(string) bool) (design.Template, error) {
	switch {
	case alias == "":
		return design.ParseTemplate("<" + keyName + ">")
	case strings.ContainsAny(alias, "<>"):
		return design.ParseTemplate(alias)
	case isIdentifier(alias) && isAttr(alias):
		return design.ParseTemplate("<" + alias + ">")
	}
	return design.ParseTemplate(alias)
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// itemVars matches a sample item to entity e by its table key and
// returns the item's scalar attributes as text together with the key
// templates' variables.
func itemVars(e *design.Entity, tableKeys []design.KeyAttr, item map[string]json.RawMessage) (map[string]string, bool) {
	vals := map[string]string{}
	for name, raw := range item {
		if s, ok := scalarText(raw); ok {
			vals[name] = s
		}
	}
	for _, ka := range tableKeys {
		k := e.Key(ka.Name)
		v, ok := vals[ka.Name]
		if k == nil || !ok {
			return nil, false
		}
		got, ok := k.Template.Parse(v)
		if !ok {
			return nil, false
		}
		for name, x := range got {
			if prev, ok := vals[name]; ok && prev != x && !slices.Contains(k.Template.Vars(), name) {
				return nil, false
			}
			vals[name] = x
		}
	}
	return vals, true
}

// inferDiscriminator finds the attribute that has one value in each
// facet's items and a different one per facet, in two facets or more: the
// entities' discriminator (facets without the attribute have none).
func inferDiscriminator(d *design.Design, facetItems map[string][]map[string]string) []string {
	candidates := map[string]bool{}
	for _, e := range d.Entities {
		for _, a := range e.Attributes {
			candidates[a.Name] = true
		}
	}
	for _, name := range slices.Sorted(maps.Keys(candidates)) {
		values := map[string]string{}
		seen := map[string]bool{}
		ok := true
		for _, e := range d.Entities {
			items := facetItems[e.Name]
			if e.Attribute(name) == nil {
				continue
			}
			if len(items) == 0 {
				ok = false
				break
			}
			v := items[0][name]
			for _, it := range items {
				if it[name] != v || v == "" {
					ok = false
				}
			}
			if seen[v] {
				ok = false
			}
			seen[v], values[e.Name] = true, v
		}
		if !ok || len(values) < 2 {
			continue
		}
		for _, e := range d.Entities {
			if v, has := values[e.Name]; has {
				e.Discriminator, e.DiscriminatorValue = name, v
				e.Attributes = slices.DeleteFunc(e.Attributes, func(a *design.Attribute) bool { return a.Name == name })
			}
		}
		return []string{fmt.Sprintf("discriminator %s: one value per facet in the sample items", name)}
	}
	return nil
}

// inferIndexKeys gives each entity a template for every index key
// attribute its sample items hold, by finding its other attributes'
// values in the key's value (PRODUCT#Widget with ProductName Widget is
// PRODUCT#<ProductName>); the template must fit every item.
func inferIndexKeys(d *design.Design, facetItems map[string][]map[string]string) []string {
	var notes []string
	var keyNames []string
	for _, ix := range d.Table.Indexes {
		for _, k := range slices.Concat(ix.PartitionKey, ix.SortKey) {
			if !design.HasAttr(slices.Concat(d.Table.PartitionKey, d.Table.SortKey), k.Name) && !slices.Contains(keyNames, k.Name) {
				keyNames = append(keyNames, k.Name)
			}
		}
	}
	for _, e := range d.Entities {
		items := facetItems[e.Name]
		for _, name := range keyNames {
			if name == e.Discriminator {
				continue
			}
			var tpl string
			ok := len(items) > 0
			for _, it := range items {
				v, has := it[name]
				if !has {
					ok = false
					break
				}
				t := templateFrom(v, it, slices.Concat(keyNames, []string{e.Discriminator}), d.Table)
				if tpl != "" && t != tpl {
					ok = false
					break
				}
				tpl = t
			}
			t, err := design.ParseTemplate(tpl)
			if !ok || err != nil {
				if len(items) > 0 && e.Attribute(name) != nil {
					notes = append(notes, fmt.Sprintf("%s: the sample items' %s values fit no one template (a shard or free text?): kept as an attribute", e.Name, name))
				}
				continue
			}
			e.Keys = append(e.Keys, &design.Key{Attr: name, Template: t})
			e.Attributes = slices.DeleteFunc(e.Attributes, func(a *design.Attribute) bool { return a.Name == name })
			notes = append(notes, fmt.Sprintf("%s: %s = %s, read from %d sample items", e.Name, name, tpl, len(items)))
		}
	}
	return notes
}

// templateFrom writes value as a template over the item's attributes but
// the table's keys, the index keys and the discriminator in skip (all
// built from the others): the longest attribute values found in it
// become variables.
func templateFrom(value string, item map[string]string, skip []string, t design.Table) string {
	names := slices.Collect(maps.Keys(item))
	sort.Slice(names, func(i, j int) bool {
		a, b := item[names[i]], item[names[j]]
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return names[i] < names[j]
	})
	var out strings.Builder
	rest := value
	for rest != "" {
		found := false
		for _, n := range names {
			v := item[n]
			if slices.Contains(skip, n) || design.HasAttr(slices.Concat(t.PartitionKey, t.SortKey), n) || len(v) < 2 || !strings.HasPrefix(rest, v) {
				continue
			}
			out.WriteString("<" + n + ">")
			rest, found = rest[len(v):], true
			break
		}
		if !found {
			out.WriteByte(rest[0])
			rest = rest[1:]
		}
	}
	return out.String()
}

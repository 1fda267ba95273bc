package interop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// mcpAccessPattern is an access pattern of the MCP server's schema.json
// (repo_generation_tool/core/schema_definitions.py: AccessPattern).
type mcpAccessPattern struct {
	PatternID      any    `json:"pattern_id"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	Operation      string `json:"operation"`
	IndexName      string `json:"index_name"`
	RangeCondition string `json:"range_condition"`
	// ReturnType is single_entity, entity_list, success_flag, mixed_data
	// (the items of several entities under one key) or void.
	ReturnType string `json:"return_type"`
	Parameters []struct {
		Name       string `json:"name"`
		Type       string `json:"type"`
		EntityType string `json:"entity_type"`
	} `json:"parameters"`
}

// mcpPattern writes an MCP access pattern of entity e as a design
// pattern: a write of the entity, a GetItem on its table key, or a Query
// on its partition key with the range condition on its sort key. Its
// parameters are the pattern's given values; a range condition's
// parameters (those the partition key does not use) stay in its bounds
// (sk begins_with POST#<month_prefix>). A mixed_data Query returns every
// entity whose key on the index is built as e's. Notes say what was
// changed on the way.
func mcpPattern(d *design.Design, e *design.Entity, ap mcpAccessPattern) (*design.Pattern, []string, error) {
	var notes []string
	op := ap.Operation
	switch op {
	case "PutItem", "UpdateItem", "DeleteItem":
		return &design.Pattern{Kind: "write", Operation: op, Entity: e.Name}, nil, nil
	case "BatchWriteItem", "TransactWriteItems":
		notes = append(notes, fmt.Sprintf("%s read as one PutItem of %s (a design pattern writes one item)", op, e.Name))
		return &design.Pattern{Kind: "write", Operation: "PutItem", Entity: e.Name, Transaction: op == "TransactWriteItems"}, notes, nil
	case "GetItem", "Query", "Scan":
	case "BatchGetItem":
		notes = append(notes, "BatchGetItem read as one GetItem")
		op = "GetItem"
	default:
		return nil, nil, fmt.Errorf("operation %q", op)
	}
	p := &design.Pattern{Kind: "read", Operation: op, Index: ap.IndexName, Returns: []string{e.Name}}
	var given []string
	for _, prm := range ap.Parameters {
		if prm.Type != "entity" && prm.Name != "" && !slices.Contains(given, prm.Name) {
			given = append(given, prm.Name)
		}
	}
	if op == "Scan" {
		return p, notes, nil
	}
	pk, sk, ok := d.KeySchema(ap.IndexName)
	if !ok {
		return nil, notes, fmt.Errorf("no index %q", ap.IndexName)
	}
	var conds []string
	var pkVars []string
	for _, ka := range pk {
		t, _, _, has := e.ValueOf(ka.Name)
		if !has {
			return nil, notes, fmt.Errorf("the entity has no %s", ka.Name)
		}
		conds = append(conds, ka.Name+" = "+t.Text)
		pkVars = append(pkVars, t.Vars()...)
	}
	// The range's parameters: those the partition key does not take.
	var rangeParams []string
	for _, g := range given {
		if !slices.Contains(pkVars, g) {
			rangeParams = append(rangeParams, g)
		}
	}
	rc := ap.RangeCondition
	if op == "GetItem" && rc != "" {
		notes = append(notes, fmt.Sprintf("range_condition %s on a GetItem left out", rc))
		rc = ""
	}
	if ap.ReturnType == "mixed_data" && op == "Query" {
		p.Returns = mcpSharing(d, e, pk)
		if rc == "" {
			// The whole item collection: no sort-key condition.
			sk = nil
		}
	}
	if len(sk) > 0 {
		attr := sk[len(sk)-1].Name
		t, _, _, has := e.ValueOf(attr)
		bound := func(i int) string {
			if i < len(rangeParams) {
				return t.Prefix() + "<" + rangeParams[i] + ">"
			}
			return ""
		}
		switch {
		case !has:
		case op == "GetItem":
			conds = append(conds, sk[0].Name+" = "+t.Text)
		case rc == "begins_with" && bound(0) != "":
			conds = append(conds, attr+" begins_with "+bound(0))
		case rc == "begins_with" || (rc == "" && t.Prefix() != "" && !t.Constant()):
			if t.Prefix() != "" {
				conds = append(conds, attr+" begins_with "+t.Prefix())
			}
		case rc == "between" && bound(1) != "":
			conds = append(conds, attr+" between "+bound(0)+" and "+bound(1))
		case rc == "between":
			// The bounds: the template with its variables renamed from and to.
			from, to := t.Text, t.Text
			for _, v := range t.Vars() {
				from = strings.ReplaceAll(from, "<"+v+">", "<from_"+v+">")
				to = strings.ReplaceAll(to, "<"+v+">", "<to_"+v+">")
			}
			conds = append(conds, attr+" between "+from+" and "+to)
		case slices.Contains([]string{"<", "<=", ">", ">="}, rc) && bound(0) != "":
			conds = append(conds, attr+" "+rc+" "+bound(0))
		case slices.Contains([]string{"<", "<=", ">", ">="}, rc):
			conds = append(conds, attr+" "+rc+" "+t.Text)
		case rc != "":
			notes = append(notes, fmt.Sprintf("range_condition %q left out", rc))
		}
	}
	if len(ap.Parameters) > 0 {
		p.Given = given
		if p.Given == nil {
			p.Given = []string{}
		}
	}
	p.KeyCondition = strings.Join(conds, " AND ")
	c, err := design.ParseKeyCondition(p.KeyCondition)
	if err != nil {
		return nil, notes, err
	}
	p.Conditions = c
	return p, notes, nil
}

// mcpSharing is every entity, e first, whose partition key on the index
// (pk) is built as e's: what a Query of e's key returns.
func mcpSharing(d *design.Design, e *design.Entity, pk []design.KeyAttr) []string {
	out := []string{e.Name}
	for _, o := range d.Entities {
		if o == e {
			continue
		}
		same := true
		for _, ka := range pk {
			a, _, _, okA := e.ValueOf(ka.Name)
			b, _, _, okB := o.ValueOf(ka.Name)
			same = same && okA && okB && a.Text == b.Text
		}
		if same {
			out = append(out, o.Name)
		}
	}
	return out
}

package interop

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// Worksheet writes the design as Markdown in the seeds' worksheet layout
// (../shared/seeds/004): the table and its indexes, the key table (each
// entity's template per key attribute), which entities land in each
// index, and the access-pattern table (#, access pattern, table or index
// key condition). It is generated from
// the file, so the documentation cannot drift from the design.
func Worksheet(w io.Writer, d *design.Design) error {
	var b strings.Builder
	t := d.Table
	fmt.Fprintf(&b, "# %s\n\n", t.Name)
	fmt.Fprintf(&b, "Table `%s`: partition key %s%s; %s.\n", t.Name, keyAttrsText(t.PartitionKey), sortText(t.SortKey), t.BillingMode)
	for _, ix := range t.Indexes {
		kind := "GSI"
		pk := ix.PartitionKey
		if ix.Local {
			kind, pk = "LSI", t.PartitionKey
		}
		proj := ix.Projection
		if proj == "INCLUDE" {
			proj = "INCLUDE " + strings.Join(ix.Include, ", ")
		}
		fmt.Fprintf(&b, "%s `%s`: partition key %s%s; projection %s.\n", kind, ix.Name, keyAttrsText(pk), sortText(ix.SortKey), proj)
	}
	// Key columns: the table's key, then each index's, once each.
	var cols []string
	for _, ka := range slices.Concat(t.PartitionKey, t.SortKey) {
		cols = appendOnce(cols, ka.Name)
	}
	for _, ix := range t.Indexes {
		for _, ka := range slices.Concat(ix.PartitionKey, ix.SortKey) {
			cols = appendOnce(cols, ka.Name)
		}
	}
	b.WriteString("\n## Entities\n\n| Entity | " + strings.Join(cols, " | ") + " |\n|---|" + strings.Repeat("---|", len(cols)) + "\n")
	for _, e := range d.Entities {
		row := []string{e.Name}
		for _, c := range cols {
			tpl, k, _, ok := e.ValueOf(c)
			switch {
			case !ok:
				row = append(row, "")
			case k != nil && k.Sparse:
				row = append(row, "`"+tpl.Text+"` (sparse)")
			default:
				row = append(row, "`"+tpl.Text+"`")
			}
		}
		b.WriteString("| " + strings.Join(row, " | ") + " |\n")
	}
	if len(t.Indexes) > 0 {
		// Which entities land in each index, and the key values each
		// writes there (several types sharing an attribute overload it).
		b.WriteString("\n## Index membership\n\n| Index | Entities and their partition key there |\n|---|---|\n")
		for _, ix := range t.Indexes {
			pk, _, _ := d.KeySchema(ix.Name)
			var in []string
			for _, e := range d.Entities {
				if !d.InIndex(e, ix.Name) {
					continue
				}
				var keys []string
				for _, ka := range pk {
					tpl, k, _, _ := e.ValueOf(ka.Name)
					s := "`" + tpl.Text + "`"
					if k != nil && k.Sparse {
						s += " (sparse)"
					}
					keys = append(keys, s)
				}
				in = append(in, e.Name+" "+strings.Join(keys, " + "))
			}
			if len(in) == 0 {
				in = []string{"none"}
			}
			fmt.Fprintf(&b, "| %s | %s |\n", ix.Name, cell(strings.Join(in, "; ")))
		}
	}
	// The access-pattern table with the chart's inputs column: what
	// the caller has (given), else what the key asks for.
	b.WriteString("\n## Access patterns\n\n| # | Access pattern | Inputs | Table or index key condition |\n|---|---|---|---|\n")
	inferred := false
	for _, p := range d.Patterns {
		desc := p.Description
		if desc == "" {
			desc = p.ID
		}
		names, declared := d.Inputs(p)
		in := make([]string, len(names))
		for i, n := range names {
			in[i] = "`" + n + "`"
		}
		inputs := strings.Join(in, ", ")
		var whole []string // a multi-item write's puts are given their items
		for _, a := range p.Actions {
			if a.Kind == design.ActionPut && !slices.Contains(whole, "the whole "+a.Entity) {
				whole = append(whole, "the whole "+a.Entity)
			}
		}
		switch {
		case !declared && len(whole) > 0:
			if len(names) > 0 {
				inputs += "*, "
				inferred = true
			}
			inputs += strings.Join(whole, ", ")
		case !declared && p.Kind == "write" && (p.Operation == "PutItem" || p.Operation == ""):
			inputs = "the whole " + p.Entity
		case len(names) == 0:
			inputs = "none"
		case !declared:
			inputs += "*"
			inferred = true
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", p.ID, cell(desc), cell(inputs), cell(p.Summary()))
	}
	if inferred {
		b.WriteString("\n\\* inputs the pattern does not declare (`given`), read from its key.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func appendOnce(s []string, v string) []string {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func keyAttrsText(ks []design.KeyAttr) string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = "`" + k.Name + "` (" + k.Type + ")"
	}
	return strings.Join(names, " + ")
}

func sortText(ks []design.KeyAttr) string {
	if len(ks) == 0 {
		return ""
	}
	return ", sort key " + keyAttrsText(ks)
}

// cell escapes a table cell's pipes and keeps it on one line.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

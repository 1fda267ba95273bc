package show

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the picture for a terminal, in the layout of seed
// 001's single-table.txt: per view a header, then one line per item
// (the view's key values, the type, the attributes: plain ones by name,
// the keys of the table and other indexes with their values, as
// GSI1PK=ORDER#9001), partitions in key order and each partition's
// items in sort-key order, and the numbers of the findings pinned to
// it; then the findings, numbered.
func (p *Picture) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: table %s, %s per entity\n", p.File, p.Table, plural(p.Items, "generated item"))
	for _, v := range p.Views {
		b.WriteString("\n")
		b.WriteString(v.header(p))
		if len(v.Findings) > 0 {
			b.WriteString("  findings " + marks(v.Findings))
		}
		b.WriteString("\n")
		pinned := false
		for _, pt := range v.Partitions {
			for _, r := range pt.Rows {
				pinned = pinned || len(r.Findings) > 0
			}
		}
		var table strings.Builder
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		cols := append(append(append([]string{}, v.PK...), v.SK...), "type", "attributes")
		if pinned {
			cols = append(cols, "findings")
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
		for _, pt := range v.Partitions {
			for _, r := range pt.Rows {
				cells := append(append(append([]string{}, r.PK...), r.SK...), r.Type, attrsText(r.Attrs))
				if pinned {
					cells = append(cells, marks(r.Findings))
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t"))
			}
		}
		tw.Flush()
		for _, line := range strings.SplitAfter(table.String(), "\n") {
			b.WriteString(strings.TrimRight(line, " \n"))
			if strings.HasSuffix(line, "\n") {
				b.WriteString("\n")
			}
		}
	}
	if len(p.Findings) > 0 {
		b.WriteString("\nFindings (dynago design check)\n")
		for _, f := range p.Findings {
			fmt.Fprintf(&b, "[%d] %s%s\n", f.N, f.Diagnostic, p.where(f))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// header describes a view: its kind, name, key and size.
func (v *View) header(p *Picture) string {
	s := "Table " + p.Table
	if v.Index != "" {
		s = fmt.Sprintf("%s %s (projection %s)", v.Kind, v.Index, v.Projection)
	}
	s += ": partition key " + strings.Join(v.PK, ", ")
	if len(v.SK) > 0 {
		s += ", sort key " + strings.Join(v.SK, ", ")
	}
	return s + fmt.Sprintf("; %s in %s", plural(v.Rows(), "item"), plural(len(v.Partitions), "partition"))
}

// where says where a finding is pinned, when it is on no row.
func (p *Picture) where(f Finding) string {
	if f.Rows > 0 {
		return ""
	}
	for _, v := range p.Views {
		for _, n := range v.Findings {
			if n == f.N {
				return " (on " + v.Name(p) + ")"
			}
		}
	}
	return " (on no row shown)"
}

// attrsText is the seed's attributes column: plain attributes by name,
// keys with their values.
func attrsText(as []Attr) string {
	parts := make([]string, len(as))
	for i, a := range as {
		parts[i] = a.Name
		if a.Key {
			parts[i] += "=" + a.Value
		}
	}
	return strings.Join(parts, ", ")
}

// marks writes finding numbers as [1,3].
func marks(ns []int) string {
	if len(ns) == 0 {
		return ""
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = strconv.Itoa(n)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// plural writes n and a noun, plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

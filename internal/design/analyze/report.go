package analyze

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/dynago/dynago/internal/design"
)

// WriteText writes the analysis as tables for a terminal: the patterns'
// units, the storage, the monthly cost in both capacity modes and the
// load on each partition key's hottest value, HOT past a partition's
// limits, with the shard count that fixes it.
func (a *Analysis) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: table %s (%s); prices %s %s, a month of %d hours\n", a.File, a.Table, a.BillingMode, a.Prices.Region, a.Prices.Currency, HoursPerMonth)

	b.WriteString("\nAccess patterns: capacity units per request, and a second at the average and peak rates\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "pattern\toperation\tindex\titems\titem bytes\tRCU/req\tWCU/req\twrites\tavg/s\tpeak/s\tRCU avg\tWCU avg\tRCU peak\tWCU peak")
	for _, pc := range a.Patterns {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
			pc.ID, pc.Operation, design.IndexName(pc.Index), num(pc.Items), pc.ItemBytes, num(pc.ReadUnits), num(pc.WriteUnits), writesText(pc.Writes),
			num(pc.Rate.Average), num(pc.Rate.Peak), num(pc.ReadUnits*pc.Rate.Average), num(pc.WriteUnits*pc.Rate.Average),
			num(pc.ReadUnits*pc.Rate.Peak), num(pc.WriteUnits*pc.Rate.Peak))
	}
	tw.Flush()

	if len(a.Storage) > 0 {
		b.WriteString("\nStorage (100 bytes of overhead per item and per index entry)\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "entity\titems\titem bytes\tstored")
		for _, es := range a.Storage {
			var parts []string
			for _, x := range es.Bytes {
				parts = append(parts, design.IndexName(x.Index)+" "+bytesText(x.Units))
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", es.Entity, num(es.Items), es.ItemBytes, strings.Join(parts, ", "))
		}
		tw.Flush()
	}

	rated := false
	for _, pc := range a.Patterns {
		if pc.Operation == "Scan" && pc.Items == 0 {
			fmt.Fprintf(&b, "note: pattern %s is a Scan of a table whose item counts the workload section does not give: costed at 0\n", pc.ID)
		}
		rated = rated || pc.Rate.Average > 0 || pc.Rate.Peak > 0
	}
	if !rated && len(a.Patterns) > 0 {
		b.WriteString("note: no pattern declares a rate (rate: {average: N, peak: M}, requests a second), so the request costs below are 0: give the patterns their rates to cost the design\n")
	}
	c := a.Cost
	fmt.Fprintf(&b, "\nMonthly cost (%s)\n", c.Currency)
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "on-demand\treads %s\twrites %s\tstorage %s\ttotal %s\t(average rates: %s RRU/s, %s WRU/s)\n",
		money(c.OnDemandReads), money(c.OnDemandWrites), money(c.Storage), money(c.OnDemand), num(c.ReadUnits), num(c.WriteUnits))
	fmt.Fprintf(tw, "provisioned\treads %s\twrites %s\tstorage %s\ttotal %s\t(capacity for the peak, no auto scaling: %s RCU, %s WCU)\n",
		money(c.ProvisionedReads), money(c.ProvisionedWrites), money(c.Storage), money(c.Provisioned), unitsText(c.PeakRead), unitsText(c.PeakWrite))
	tw.Flush()

	b.WriteString("\nPartition keys: the hottest value's load at the peak rates (a partition serves 3,000 RCU and 1,000 WCU a second)\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "index\tkey\ttemplate\tentities\tvalues\thottest share\tRCU/s\tWCU/s\t× limit\t")
	for _, k := range a.Keys {
		mark := ""
		if k.Hot() {
			mark = "HOT"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.2f\t%s\n", design.IndexName(k.Index), k.Key, k.Template, strings.Join(k.Entities, ", "),
			valuesCount(k.Values), shareText(k.Share), num(k.ReadUnits), num(k.WriteUnits), k.Multiple, mark)
	}
	tw.Flush()
	for _, k := range a.Keys {
		if k.Hot() {
			fmt.Fprintf(&b, "HOT %s\n", k.Advice())
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Advice says why a hot key is hot and what shard count fixes it.
func (k KeyLoad) Advice() string {
	where := fmt.Sprintf("%s = %s on %s", k.Key, k.Template, design.IndexName(k.Index))
	load := fmt.Sprintf("its hottest value takes %s WCU and %s RCU a second at the peak, %.1f× a partition's limit", num(k.WriteUnits), num(k.ReadUnits), k.Multiple)
	why := "the key has no variable, so every item shares one partition"
	if k.Variable != "" {
		why = fmt.Sprintf("<%s> sends %s of the requests to one value", k.Variable, shareText(k.Share))
	}
	fix := fmt.Sprintf("shard it into at least %d (shard: {count: %d, by: <an ID>}), and a read of one logical key then queries %d keys", k.Shards, k.Shards, k.Shards)
	if k.Sharded > 1 {
		fix = fmt.Sprintf("raise its shard count from %d to at least %d, and a read of one logical key then queries %d keys", k.Sharded, k.Shards, k.Shards)
	}
	return where + ": " + load + "; " + why + ": " + fix
}

// WriteJSON writes the analysis as one JSON object.
func (a *Analysis) WriteJSON(w io.Writer) error {
	type key struct {
		KeyLoad
		Hot    bool   `json:"hot"`
		Advice string `json:"advice,omitempty"`
	}
	keys := make([]key, len(a.Keys))
	for i, k := range a.Keys {
		keys[i] = key{KeyLoad: k, Hot: k.Hot()}
		if k.Hot() {
			keys[i].Advice = k.Advice()
		}
	}
	v := struct {
		File, Table, BillingMode string
		Prices                   any
		HoursPerMonth            int
		Patterns                 []design.PatternCost
		Storage                  []EntityStorage
		Cost                     Cost
		Keys                     []key
	}{a.File, a.Table, a.BillingMode, a.Prices, HoursPerMonth, a.Patterns, a.Storage, a.Cost, keys}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// WriteSVG writes a bar chart of each partition key's hottest-value load
// as a multiple of a partition's limits, with the limit drawn at 1×:
// bars past it are red.
func (a *Analysis) WriteSVG(w io.Writer) error {
	const left, barH, gap, plotW, top = 420.0, 22.0, 8.0, 460.0, 56.0
	scale := 2.0
	for _, k := range a.Keys {
		scale = max(scale, math.Ceil(k.Multiple))
	}
	// Past 10× a linear axis hides every other bar: the axis is then
	// logarithmic from 0.01× (bars below that are drawn at it).
	logAxis := scale > 10
	logMax := math.Ceil(math.Log10(scale))
	height := top + float64(len(a.Keys))*(barH+gap) + 40
	var b strings.Builder
	// The viewBox lets a page scale the chart (design show's HTML puts
	// it beside the views).
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0[1]f %.0[2]f" font-family="sans-serif" font-size="12">`+"\n", left+plotW+120, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="10" y="20" font-size="15" font-weight="bold">%s: hottest partition key values at peak</text>`+"\n", html.EscapeString(a.Table))
	axis := "linear axis"
	if logAxis {
		axis = "logarithmic axis"
	}
	fmt.Fprintf(&b, `<text x="10" y="38" fill="#555">load as a multiple of a partition's limit (3,000 RCU, 1,000 WCU a second), %s; %s</text>`+"\n", axis, html.EscapeString(a.File))
	x := func(m float64) float64 {
		if logAxis {
			return left + plotW*(math.Log10(math.Max(m, 0.01))+2)/(logMax+2)
		}
		return left + plotW*m/scale
	}
	for i, k := range a.Keys {
		y := top + float64(i)*(barH+gap)
		label := fmt.Sprintf("%s %s", design.IndexName(k.Index), k.Template)
		short := label
		if r := []rune(label); len(r) > 60 {
			short = string(r[:59]) + "…"
		}
		fmt.Fprintf(&b, `<text x="%.0f" y="%.1f" text-anchor="end"><title>%s</title>%s</text>`+"\n", left-8, y+barH*0.7, html.EscapeString(label), html.EscapeString(short))
		color := "#4a7fb5"
		if k.Hot() {
			color = "#c62828"
		}
		fmt.Fprintf(&b, `<rect x="%.0f" y="%.1f" width="%.1f" height="%.0f" fill="%s"><title>%s</title></rect>`+"\n", left, y, math.Max(1, x(k.Multiple)-left), barH, color,
			html.EscapeString(fmt.Sprintf("%s RCU/s, %s WCU/s", num(k.ReadUnits), num(k.WriteUnits))))
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%.2f×</text>`+"\n", x(k.Multiple)+6, y+barH*0.7, k.Multiple)
	}
	bottom := top + float64(len(a.Keys))*(barH+gap)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.1f" stroke="black" stroke-dasharray="4 3"/>`+"\n", x(1), top-6, x(1), bottom)
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">partition limit (1×)</text>`+"\n", x(1), bottom+16)
	fmt.Fprintf(&b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.1f" stroke="#999"/>`+"\n", left, top-6, left, bottom)
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// num prints a count or rate without needless decimals.
func num(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func money(v float64) string { return fmt.Sprintf("%.2f", v) }

func bytesText(v float64) string {
	switch {
	case v >= 1<<30:
		return fmt.Sprintf("%.1f GiB", v/(1<<30))
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

func writesText(ws []design.IndexUnits) string {
	var parts []string
	for _, x := range ws {
		parts = append(parts, design.IndexName(x.Index)+" "+num(x.Units))
	}
	return strings.Join(parts, ", ")
}

func unitsText(us []design.IndexUnits) string {
	var parts []string
	for _, x := range us {
		parts = append(parts, num(x.Units)+" "+design.IndexName(x.Index))
	}
	return strings.Join(parts, " + ")
}

func valuesCount(v float64) string {
	if v == 0 {
		return "unbounded"
	}
	return num(v)
}

func shareText(s float64) string {
	switch {
	case s == 0:
		return "~0"
	case s >= 0.1:
		return fmt.Sprintf("%.0f%%", s*100)
	}
	return fmt.Sprintf("%.2g%%", s*100)
}

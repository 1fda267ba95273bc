package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/dynago/dynago/internal/design/analyze"
	"github.com/dynago/dynago/internal/pricing"
)

// newDesignAnalyzeCommand is dynago design analyze FILE: the design's
// capacity, storage, monthly cost and hot partition keys, before any item
// is written (issue 9).
func newDesignAnalyzeCommand(stdout io.Writer) *cobra.Command {
	var format, prices, chart string
	cmd := &cobra.Command{
		Use:   "analyze FILE",
		Short: "Cost a design and find its hot partition keys from its patterns' rates",
		Long: `Analyze a design file with DynamoDB's capacity rules: per access pattern the
read and write units a request takes (4 KB reads, halved when eventually
consistent, doubled in a transaction; 1 KB writes for the table and each
index entry, two for an update that moves an entry; a TransactWriteItems
its actions' writes with the table's doubled and its ConditionChecks at
twice the item's write units, a batch its items one by one) and a second at its
average and peak rates (rate: {average, peak}); the storage of the item
counts in the workload section (100 bytes of overhead per item and index
entry); the monthly cost on demand (average rates) and provisioned
(capacity for the peak, no auto scaling) at a price table (us-east-1 by
default, --prices FILE); and, for every partition key template on the
table and each GSI, the load on its hottest value at the peak against a
partition's 3,000 RCU and 1,000 WCU a second, using the workload's skew
(uniform, {zipf: S} or {top: {value: share}}) and each attribute's values
or cardinality. A key past the limits is HOT, with the variable that
concentrates it and the shard count that fixes it.

--format text (default), json or svg (a bar chart of each key's load
against the limit); --chart FILE also writes the SVG chart beside the
text or JSON. Exits 1 when the file does not parse or a key is HOT.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" && format != "svg" {
				return usageError{fmt.Errorf("--format is text, json or svg, not %q", format)}
			}
			p := pricing.Default()
			if prices != "" {
				var err error
				if p, err = pricing.Load(prices); err != nil {
					return usageError{fmt.Errorf("--prices: %w", err)}
				}
			}
			d, err := loadDesign(args[0], stdout)
			if err != nil {
				return err
			}
			a := analyze.Analyze(d, p)
			switch format {
			case "json":
				err = a.WriteJSON(stdout)
			case "svg":
				err = a.WriteSVG(stdout)
			default:
				err = a.WriteText(stdout)
			}
			if err != nil {
				return err
			}
			if chart != "" {
				f, err := os.Create(chart)
				if err != nil {
					return err
				}
				if err := a.WriteSVG(f); err != nil {
					f.Close()
					return err
				}
				if err := f.Close(); err != nil {
					return err
				}
			}
			hot := 0
			for _, k := range a.Keys {
				if k.Hot() {
					hot++
				}
			}
			if hot > 0 {
				return errHot{hot}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text, json or svg")
	cmd.Flags().StringVar(&prices, "prices", "", "JSON price table (default: us-east-1; shape: internal/pricing/us-east-1.json)")
	cmd.Flags().StringVar(&chart, "chart", "", "also write the load chart as SVG to this file")
	return cmd
}

// errHot makes analyze exit 1 after its report when a key runs hot.
type errHot struct{ keys int }

func (e errHot) Error() string { return count(e.keys, "hot partition key") }

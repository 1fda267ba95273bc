package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dynago/dynago/internal/design/analyze"
	"github.com/dynago/dynago/internal/design/check"
	"github.com/dynago/dynago/internal/design/show"
	"github.com/dynago/dynago/internal/pricing"
)

// newDesignShowCommand is dynago design show FILE: the items the
// design's table and indexes would hold, with check's findings pinned to
// their rows (issue 24 point 5).
func newDesignShowCommand(stdout io.Writer) *cobra.Command {
	var format, index string
	var items int
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Draw the items the design's table and each index hold, with check's findings on their rows",
		Long: `Draw a design as the items its table and indexes would hold: generated items
(those of design run, --items per entity) grouped by partition in key order,
each partition's items in sort-key order, one view for the table and one for
each index (or only --index NAME; "table" for the table), in the layout of
seed 001's single-table.txt: the view's key attributes, the type (the
discriminator's value, else the entity), and the attributes the view holds
(plain ones by name, keys of the table and other indexes with their values).
What NoSQL Workbench's facets and aggregate view show, driven by the file.

The findings of design check are numbered and pinned to the rows they
concern: a finding on an entity's key to its rows in each view keyed by it,
on the rest of an entity or a write pattern to its table rows, on a read
pattern to the rows it reads in the partition its values ask for, on an
index's definition to that view.

--format text (default) or html: one self-contained file to open in a
browser (inline CSS, no script, nothing fetched), the views beside the load
chart of design analyze. Exits 1 when the file does not parse; findings do
not change the exit code (design check is the gate).`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "html" {
				return usageError{fmt.Errorf("--format is text or html, not %q", format)}
			}
			if items < 1 || items > 100 {
				return usageError{fmt.Errorf("--items must be from 1 to 100")}
			}
			d, err := loadDesign(args[0], stdout)
			if err != nil {
				return err
			}
			pic, err := show.Build(d, check.Check(d, check.Rules), show.Options{Index: index, Items: items})
			if err != nil {
				return usageError{fmt.Errorf("--index: %w", err)}
			}
			if format == "text" {
				return pic.WriteText(stdout)
			}
			var chart bytes.Buffer
			if err := analyze.Analyze(d, pricing.Default()).WriteSVG(&chart); err != nil {
				return err
			}
			return pic.WriteHTML(stdout, chart.Bytes())
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or html")
	cmd.Flags().StringVar(&index, "index", "", `draw only this index ("table" for the table)`)
	cmd.Flags().IntVar(&items, "items", 3, "items to generate per entity, 1 to 100")
	return cmd
}

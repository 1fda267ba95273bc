package cli

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/dynago/dynago/internal/design"
)

func newDesignCommand(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "design",
		Short: "Check a single-table design file and write its worksheet",
		Long: `Work with a single-table design file (*.design.yaml): the table and its
indexes, the entities with their key templates (USER#<UserName>), and the
access patterns with their key conditions. Format: README.md and
schema/design.schema.json; examples in examples/.`,
	}
	cmd.AddCommand(newDesignCheckCommand(stdout), newDesignWorksheetCommand(stdout))
	return cmd
}

// errFindings makes check exit 1 after printing its findings.
type errFindings struct{ errors int }

func (e errFindings) Error() string { return fmt.Sprintf("%d errors in the design", e.errors) }

func oneFile(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError{fmt.Errorf("%s takes one design file, got %d arguments", cmd.Name(), len(args))}
	}
	return nil
}

func newDesignCheckCommand(stdout io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Prove every access pattern is a GetItem or Query, and check the design's keys",
		Long: `Check a design file: every read pattern must resolve to GetItem or Query (never
a Scan or a filter), entity types must not leak into each other's queries,
sort keys must order as intended, indexes must hold what their patterns
need, updates must rewrite every key they change, and partition keys must
stay under DynamoDB's per-partition limits at the declared peak rates.

Prints one line per finding (FILE:LINE:COL: severity: message [rule]) and
a count; exits 1 when there is an error, 0 otherwise (warnings are advice).
--format json prints {"file", "diagnostics", "errors", "warnings"}.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return usageError{fmt.Errorf("--format must be text or json, not %q", format)}
			}
			d, diags, err := design.Load(args[0])
			if err != nil {
				return err
			}
			if len(diags) == 0 {
				diags = design.Check(d, design.Rules)
			}
			errs, warns := 0, 0
			for _, dg := range diags {
				if dg.Severity == design.Error {
					errs++
				} else {
					warns++
				}
			}
			if format == "json" {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				if diags == nil {
					diags = []design.Diagnostic{}
				}
				if err := enc.Encode(map[string]any{"file": args[0], "diagnostics": diags, "errors": errs, "warnings": warns}); err != nil {
					return err
				}
			} else {
				for _, dg := range diags {
					fmt.Fprintln(stdout, dg)
				}
				fmt.Fprintf(stdout, "%s: %d errors, %d warnings (%d entities, %d access patterns)\n", args[0], errs, warns, len(d.Entities), len(d.Patterns))
			}
			if errs > 0 {
				return errFindings{errs}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

func newDesignWorksheetCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "worksheet FILE",
		Short: "Write the design's entity key table and access-pattern table as Markdown",
		Args:  oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, diags, err := design.Load(args[0])
			if err != nil {
				return err
			}
			if len(diags) > 0 {
				return fmt.Errorf("%s (fix the file, then write its worksheet)", diags[0])
			}
			return design.Worksheet(stdout, d)
		},
	}
}

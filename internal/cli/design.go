package cli

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/spf13/cobra"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/check"
	"github.com/dynago/dynago/internal/design/interop"
	"github.com/dynago/dynago/internal/design/run"
	"github.com/dynago/dynago/internal/inproc"
	"github.com/dynago/dynago/internal/sdkhttp"
)

func newDesignCommand(stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "design",
		Short: "Check, document and run a single-table design file",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError{fmt.Errorf("unknown design command %q (check, worksheet, show, run, analyze, export, import, traffic or gen-go)", args[0])}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			cmd.Help()
			return usageError{fmt.Errorf("design needs a command: check, worksheet, show, run, analyze, export, import, traffic or gen-go")}
		},
		Long: `Work with a single-table design file (*.design.yaml): the table and its
indexes, the entities with their key templates (USER#<UserName>), and the
access patterns with their key conditions. Format: docs/design-workbench.md and
schema/design.schema.json; examples in examples/.`,
	}
	cmd.AddCommand(newDesignCheckCommand(stdout), newDesignWorksheetCommand(stdout), newDesignShowCommand(stdout), newDesignRunCommand(stdout), newDesignAnalyzeCommand(stdout),
		newDesignExportCommand(stdout), newDesignImportCommand(stdout, stderr), newDesignTrafficCommand(stdout), newDesignGenGoCommand(stdout))
	return cmd
}

// count writes n and a noun, plural unless n is 1.
func count(n int, noun string) string {
	switch {
	case n == 1:
		return "1 " + noun
	case strings.HasSuffix(noun, "y"):
		return fmt.Sprintf("%d %sies", n, noun[:len(noun)-1])
	}
	return fmt.Sprintf("%d %ss", n, noun)
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
	var disable []string
	cmd := &cobra.Command{
		Use:   "check FILE",
		Short: "Prove every access pattern is a GetItem or Query, and check the design's keys",
		Long: `Check a design file: every read pattern must resolve to GetItem or Query (never
a Scan or a filter) whose key can match the entities it returns and be
built from what the pattern is given (given: [orderId]); entity types must
not leak into each other's queries, sort keys must order as intended,
indexes must hold what their patterns need, updates must rewrite every key
they change, one key must be spelled one way, partition keys (skewed,
time-bucketed or sharded) must stay under DynamoDB's per-partition limits
at the declared peak rates, item collections under 10 GB on a table
with a local index, and transactions and batches under DynamoDB's limits
on one request (100 actions and 4 MB a TransactWriteItems, 25 writes and
16 MB a BatchWriteItem, 100 gets a BatchGetItem).

Prints one line per finding (FILE:LINE:COL: severity: message [rule]) and
a count; exits 1 when there is an error, 0 otherwise (warnings are advice).
--format json prints {"file", "diagnostics", "errors", "warnings"}.

--disable RULE (repeatable, or RULE,RULE) runs every rule but those. To
silence one finding in the file, write the rule and a reason in a comment
on its line, or on the line above it:

    - id: all-orders   # dynago:ignore key-condition nightly export, off-peak

On the first line of a pattern (its "- id:" line) or of an entity (its
name) the comment covers every finding of that rule in the pattern or
entity. An ignore comment that silences nothing is a warning [ignore].`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			d, diags, err := design.Load(args[0])
			if err != nil {
				return err
			}
			rules, err := check.Without(splitList(disable))
			if err != nil {
				return usageError{fmt.Errorf("--disable: %w", err)}
			}
			if len(diags) == 0 {
				diags = check.Check(d, rules)
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
				width := terminalWidth(stdout)
				for _, dg := range diags {
					fmt.Fprintln(stdout, wrap(dg.String(), width, "    "))
				}
				fmt.Fprintf(stdout, "%s: %s, %s (%s, %s)\n", args[0], count(errs, "error"), count(warns, "warning"), count(len(d.Entities), "entity"), count(len(d.Patterns), "access pattern"))
			}
			if errs > 0 {
				return errFindings{errs}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	cmd.Flags().StringSliceVar(&disable, "disable", nil, "a rule not to run (repeatable, or comma-separated; the rule is in brackets at the end of each finding)")
	return cmd
}

// splitList trims the names of a list flag and drops empty ones.
func splitList(names []string) []string {
	var out []string
	for _, n := range names {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	return out
}

func newDesignWorksheetCommand(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "worksheet FILE",
		Short: "Write the design's entity key table and access-pattern table as Markdown",
		Long: `Write the design as Markdown in the seeds' worksheet layout: the table and its
indexes, each entity's key templates, which entities land in each index, and
the access patterns with their inputs (the pattern's given values, or, marked
*, the variables of its key when it declares none) and key conditions.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, diags, err := design.Load(args[0])
			if err != nil {
				return err
			}
			if len(diags) > 0 {
				return fmt.Errorf("%s (fix the file, then write its worksheet)", diags[0])
			}
			return interop.Worksheet(stdout, d)
		},
	}
}

type designRunOptions struct {
	endpoint, table, format string
	items                   int
	keep                    bool
}

// tableName is DynamoDB's table name rule.
var tableName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_.-]{3,255}$`) })

func newDesignRunCommand(stdout io.Writer) *cobra.Command {
	var o designRunOptions
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run every read pattern, transaction and batch of a design against generated data",
		Long: `Create the design's table in an in-process dynago (or at --endpoint, any
DynamoDB endpoint, real DynamoDB included: the table must not exist there),
write generated items for every entity (the same items on every run), and
run every read pattern as a GetItem or Query. Each must return items, only
of the entity types it declares, in its declared order (by the values'
types: ISSUE#10 before ISSUE#2 fails), and a lookup by id at most one
(expects: one, inferred for a GetItem and for a key that binds the
returned entity's id). The items look like a real table's: each has its
own ids, and children sit in their parents' collections as many to a
parent as the workload's item counts say. Then run each transaction and
batch: a TransactWriteItems must commit with its counters moved by their
add and its versions by one, and run again be refused by its
attribute_not_exists guards and versions; a batch must write, or return,
every item. Prints one line per pattern with the units it consumed (read
units for a read, write units for a write); exits 1 if a pattern does not
hold, or if the
design does not pass check first. At an --endpoint the table is deleted
after the run unless --keep; an existing table is never touched.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDesign(cmd.Context(), o, args[0], stdout, cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "", "run against this DynamoDB endpoint instead of an in-process dynago (credentials and region from the AWS environment; dummy credentials for a loopback endpoint when none are set)")
	f.StringVar(&o.table, "table", "", "the table name to create (default: the design's)")
	f.IntVar(&o.items, "items", 6, "items to generate per entity, 1 to 1000")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	f.BoolVar(&o.keep, "keep", false, "with --endpoint, keep the table after the run (by default it is deleted)")
	return cmd
}

func runDesign(ctx context.Context, o designRunOptions, file string, stdout, stderr io.Writer) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.items < 1 || o.items > 1000 {
		return usageError{fmt.Errorf("--items must be from 1 to 1000")}
	}
	if o.table != "" && !tableName().MatchString(o.table) {
		return usageError{fmt.Errorf("--table %q: a table name has 3 to 255 letters, digits, '_', '-' or '.'", o.table)}
	}
	d, diags, err := design.Load(file)
	if err != nil {
		return err
	}
	if len(diags) == 0 {
		diags = check.Check(d, check.Rules)
	}
	errs := 0
	for _, dg := range diags {
		if dg.Severity == design.Error {
			fmt.Fprintln(stdout, dg)
			errs++
		}
	}
	if errs > 0 {
		fmt.Fprintf(stdout, "%s: %s: run needs a design that passes check\n", file, count(errs, "error"))
		return errFindings{errs}
	}
	endpoint, where := o.endpoint, o.endpoint
	var progress io.Writer // at an endpoint, each step can take seconds
	opts := dynamodb.Options{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("dynago", "dynago", "")}
	if endpoint == "" {
		srv, err := inproc.Start(inproc.Options{})
		if err != nil {
			return err
		}
		defer srv.Close()
		endpoint, where = srv.Endpoint(), srv.Endpoint()+" (in-process dynago)"
	} else {
		if u, err := url.Parse(endpoint); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usageError{fmt.Errorf("--endpoint must be an http(s) URL, not %q", endpoint)}
		}
		cfg, err := endpointConfig(ctx, endpoint)
		if err != nil {
			return err
		}
		opts = dynamodb.Options{Region: cfg.Region, Credentials: cfg.Credentials}
		progress = stderr
	}
	opts.BaseEndpoint = aws.String(endpoint)
	// A request that gets no answer fails within 20 s instead of
	// hanging (10 s, one retry).
	opts.HTTPClient = sdkhttp.NoWriteTo{Doer: &http.Client{Timeout: 10 * time.Second}}
	opts.RetryMaxAttempts = 2
	client := dynamodb.New(opts)
	table := cmp.Or(o.table, d.Table.Name)
	results, created, err := run.Run(ctx, d, client, run.Options{TableName: table, ItemsPerEntity: o.items, Progress: progress})
	if o.endpoint != "" && !o.keep && created {
		// Leave nothing behind at an endpoint that bills for it, and
		// delete only the table this run created.
		if _, derr := client.DeleteTable(context.Background(), &dynamodb.DeleteTableInput{TableName: aws.String(table)}); derr != nil && err == nil {
			fmt.Fprintf(stdout, "note: could not delete table %s: %v\n", table, derr)
		}
	}
	if err != nil {
		return err
	}
	failed := 0
	for _, r := range results {
		if len(r.Problems) > 0 {
			failed++
		}
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(map[string]any{"file": file, "endpoint": endpoint, "patterns": results, "failed": failed}); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s: table %s at %s, up to %d items per entity\n", file, table, where, o.items)
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "pattern\toperation\tindex\titems\ttypes\tunits\tresult")
		for _, r := range results {
			result := "ok"
			if len(r.Problems) > 0 {
				result = strings.Join(r.Problems, "; ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%g\t%s\n", r.ID, r.Operation, cmp.Or(r.Index, "-"), r.Items, typesText(r.Types), r.ConsumedCapacity, result)
		}
		tw.Flush()
		fmt.Fprintf(stdout, "%d patterns run, %d did not hold\n", len(results), failed)
	}
	if failed > 0 {
		return errFindings{failed}
	}
	return nil
}

// typesText summarizes the entity types of a result in order, runs of
// one type collapsed: User, Order x5.
func typesText(ts []string) string {
	var parts []string
	for i := 0; i < len(ts); {
		j := i
		for j < len(ts) && ts[j] == ts[i] {
			j++
		}
		if j-i > 1 {
			parts = append(parts, fmt.Sprintf("%s x%d", ts[i], j-i))
		} else {
			parts = append(parts, ts[i])
		}
		i = j
	}
	if len(parts) == 0 {
		return "-"
	}
	if len(parts) > 4 {
		parts = append(parts[:4], fmt.Sprintf("... (%d items)", len(ts)))
	}
	return strings.Join(parts, ", ")
}

// awsConfig loads the AWS SDK's configuration from the environment (for
// design run --endpoint, load and dump), with us-east-1 when no region is
// set; opts are extra load options (load and dump turn off the EC2
// metadata lookup for a loopback endpoint).
func awsConfig(ctx context.Context, opts ...func(*config.LoadOptions) error) (aws.Config, error) {
	cfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return cfg, fmt.Errorf("AWS configuration: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	return cfg, nil
}

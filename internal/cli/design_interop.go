package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/check"
	"github.com/dynago/dynago/internal/design/gengo"
	"github.com/dynago/dynago/internal/design/interop"
)

// newDesignExportCommand is dynago design export FILE: the design as a
// NoSQL Workbench data model, a CloudFormation template or a Terraform
// resource (issue 9).
func newDesignExportCommand(stdout io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "export FILE",
		Short: "Write a design as a NoSQL Workbench model, CloudFormation or Terraform",
		Long: `--format workbench (default): write a design file as a NoSQL Workbench for DynamoDB data model (Version
3.0): the table, its key attributes and typed attributes, its indexes, one
facet per entity (its table key templates as the key aliases, its
attributes), and three sample items per entity (TableData) that carry the
entities' index key values. Import it in NoSQL Workbench with "Import data
model". Access patterns, the workload, value lists, shards, TTL and stream
have no place in the format and are left out; a multi-attribute key is an
error.

--format cloudformation: a CloudFormation template (JSON) with the table as
one AWS::DynamoDB::Table resource: key schema, attribute definitions, GSIs
and LSIs with their projections, billing mode, TimeToLiveSpecification and
StreamSpecification. --format terraform: the same as a Terraform
aws_dynamodb_table resource (HCL): each GSI's key as key_schema blocks
(the AWS provider's form, which multi-attribute keys need), the table's
and LSIs' as hash_key and range_key.
A PROVISIONED design gets the capacity dynago design analyze computes for
its peak rates.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "workbench" && format != "cloudformation" && format != "terraform" {
				return usageError{fmt.Errorf("--format is workbench, cloudformation or terraform, not %q", format)}
			}
			d, err := loadDesign(args[0], stdout)
			if err != nil {
				return err
			}
			warnFindings(cmd.ErrOrStderr(), d, "exported")
			var raw []byte
			switch format {
			case "cloudformation":
				raw, err = interop.ExportCloudFormation(d)
			case "terraform":
				raw, err = interop.ExportTerraform(d)
			default:
				raw, err = interop.ExportWorkbench(d, time.Now())
			}
			if err != nil {
				return err
			}
			_, err = stdout.Write(raw)
			return err
		},
	}
	cmd.Flags().StringVar(&format, "format", "workbench", "output format: workbench (NoSQL Workbench data model JSON), cloudformation (JSON template) or terraform (HCL)")
	return cmd
}

// newDesignImportCommand is dynago design import FILE: a NoSQL Workbench
// data model as a design file.
func newDesignImportCommand(stdout, stderr io.Writer) *cobra.Command {
	var from, table, queries string
	cmd := &cobra.Command{
		Use:   "import FILE",
		Short: "Write a NoSQL Workbench model, OneTable schema, MCP schema.json or SQL schema as a design file",
		Long: `--from workbench (default): read a NoSQL Workbench for DynamoDB data model (JSON; unknown fields are
ignored) and write a design file to stdout: the table and its indexes, one
entity per facet with the key aliases as its table key templates
(USER#<UserName>; an alias that names an attribute is that attribute), the
attributes with their types, a discriminator when the sample items show one
attribute with one value per facet, and each entity's index key templates
read from the sample items (PRODUCT#Widget with ProductName Widget is
PRODUCT#<ProductName>). What had to be inferred is listed on stderr. The
format has no access patterns: add them, then run dynago design check.

--from onetable: a OneTable schema (JSON): its indexes (primary, GSIs, LSIs
with type: local, project), one entity per model with its key properties'
${var} value templates, and the model name in typeField (default _type) as
the discriminator; a unique property is a guard entity
(_unique#Model#attr#<value>) put in the model's transaction. --from mcp:
the awslabs DynamoDB MCP server's schema.json: the table (--table NAME
when it has several), gsi_list, each entity's pk/sk templates and
gsi_mappings in {var} notation, its fields, and its access patterns as the
design's patterns (parameters as given; a mixed_data Query returns every
entity sharing its key). What an import drops or changes is on stderr.

--from sql: a PostgreSQL or MySQL schema (CREATE TABLE, CREATE [UNIQUE]
INDEX, ALTER TABLE ... ADD CONSTRAINT; a pg_dump --schema-only or mysqldump
--no-data file reads as it is) drafted as one table keyed PK and SK, as seed
002's migration does: each table an entity, a foreign key an item
collection under the parent (PK = USER#<user_id>, SK = ORDER#<order_id>),
a UNIQUE index a guard item (PK = USER_EMAIL#<email>) put in the owner's
transaction, and each primary key, foreign key, index and, with --queries
FILE, each SELECT of a query log (WHERE col = ? [AND ...] [ORDER BY ...])
a draft access pattern, on a GSI when the table's keys do not answer it.
Statements and queries it does not read are listed on stderr with their
line. Then run dynago design check on the draft.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			imports := map[string]func(string, []byte, string) (*design.Design, []string, error){
				"workbench": interop.ImportWorkbench, "onetable": interop.ImportOneTable, "mcp": interop.ImportMCP,
			}
			raw, err := os.ReadFile(args[0])
			if from == "sql" {
				var log []byte
				if err == nil && queries != "" {
					if log, err = os.ReadFile(queries); err == nil && log == nil {
						log = []byte{}
					}
				}
				imports["sql"] = func(file string, raw []byte, table string) (*design.Design, []string, error) {
					return interop.ImportSQL(file, raw, table, queries, log)
				}
			} else if queries != "" {
				return usageError{fmt.Errorf("--queries goes with --from sql")}
			}
			importer, ok := imports[from]
			if !ok {
				return usageError{fmt.Errorf("--from is workbench, onetable, mcp or sql, not %q", from)}
			}
			if err != nil {
				return err
			}
			d, notes, err := importer(args[0], raw, table)
			if err != nil {
				return err
			}
			for _, n := range notes {
				fmt.Fprintln(stderr, "dynago: import:", n)
			}
			out, err := interop.YAML(d, []string{
				"Imported by dynago design import --from " + from + " from " + args[0] + ".",
				"Check the access patterns (list them under patterns if the source had none), then run dynago design check.",
			})
			if err != nil {
				return err
			}
			_, err = stdout.Write(out)
			return err
		},
	}
	cmd.Flags().StringVar(&from, "from", "workbench", "input format: workbench (NoSQL Workbench data model JSON), onetable (OneTable schema JSON), mcp (DynamoDB MCP server schema.json) or sql (PostgreSQL or MySQL DDL)")
	cmd.Flags().StringVar(&queries, "queries", "", "with --from sql, a query log whose SELECTs become draft access patterns")
	cmd.Flags().StringVar(&table, "table", "", "the table to import, when the file has several (for onetable: the table's name, default onetable)")
	return cmd
}

// newDesignTrafficCommand is dynago design traffic: what a running
// server's --design classifier has seen (issue 9).
func newDesignTrafficCommand(stdout io.Writer) *cobra.Command {
	var endpoint, table, format string
	cmd := &cobra.Command{
		Use:   "traffic",
		Short: "Show live traffic against the designs a server runs with (serve --design)",
		Long: `Ask a dynago server started with --design FILE what it has seen on each
designed table: the requests of each declared access pattern, the
undeclared access paths by shape (Query GSI1: GSI1PK = PRODUCT#<ProductName>,
or PRODUCT#<…> for a value no entity template builds),
undeclared Scans, Queries and Scans whose filters read far more items than
they return (FILTER-HEAVY, with the read amplification), and written items
whose keys match no entity's templates. --format json gives the server's
JSON (GET /design/traffic).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(format); err != nil {
				return err
			}
			q := url.Values{}
			if table != "" {
				q.Set("table", table)
			}
			var rep struct {
				Tables []design.TableTraffic `json:"tables"`
			}
			if err := getJSON(endpoint, "/design/traffic", q, "a traffic report", &rep); err != nil {
				return err
			}
			if format == "json" {
				enc := json.NewEncoder(stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(rep)
			}
			return design.WriteTrafficText(stdout, rep.Tables)
		},
	}
	cmd.Flags().StringVar(&endpoint, "endpoint", "http://127.0.0.1:8000", "the dynago server's URL")
	cmd.Flags().StringVar(&table, "table", "", "only this table")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json")
	return cmd
}

// newDesignGenGoCommand is dynago design gen-go FILE: typed Go code on
// aws-sdk-go-v2 for a design (issue 9).
func newDesignGenGoCommand(stdout io.Writer) *cobra.Command {
	var pkg, out string
	cmd := &cobra.Command{
		Use:   "gen-go FILE",
		Short: "Write a Go package on aws-sdk-go-v2 for a design: typed entities, key builders, one method per pattern",
		Long: `Write a Go package (one file, gofmt-ed) for a design: a struct per entity with
Item() and a decoder, key builders per key template (sharded keys computed
as dynago design run writes them), Decode for item collections (by the
discriminator, else by the table keys' literal prefixes), and one Client
method per access pattern: GetItem returns the entity, a Query returns an
iter.Seq2 that pages through LastEvaluatedKey, PutItem and DeleteItem take
the entity, and an UpdateItem method SETs the pattern's updates and every
key built from one of them. A TransactWriteItems pattern is one method and
one TransactWriteItems call (its conditions, ADD counters and version
locks included); a BatchWriteItem or BatchGetItem method sends requests of
at most 25 or 100 items and again what comes back unprocessed. The code uses only aws-sdk-go-v2, so it runs
against DynamoDB as against dynago. --package names it (default: the table
name); --out FILE writes it there instead of stdout.`,
		Args: oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := loadDesign(args[0], stdout)
			if err != nil {
				return err
			}
			warnFindings(cmd.ErrOrStderr(), d, "generated")
			name := pkg
			if name == "" {
				name = gengo.PackageName(d.Table.Name)
				if !gengo.ValidPackageName(name) {
					return usageError{fmt.Errorf("table %s gives the package name %q, which Go does not allow: choose one with --package", d.Table.Name, name)}
				}
			}
			if !gengo.ValidPackageName(name) {
				return usageError{fmt.Errorf("--package %q is not a Go package name (lower-case letters, digits and _)", name)}
			}
			src, err := gengo.Generate(d, name)
			if err != nil {
				return err
			}
			if out != "" {
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return err
				}
				return os.WriteFile(out, src, 0o644)
			}
			_, err = stdout.Write(src)
			return err
		},
	}
	cmd.Flags().StringVar(&pkg, "package", "", "the Go package name (default: the table name, lower-case)")
	cmd.Flags().StringVar(&out, "out", "", "write the code to this file instead of stdout")
	return cmd
}

// warnFindings tells stderr when d, which parsed, has check errors: the
// command goes on (what it writes follows the design as written, done
// says how), but the user should know before relying on it.
func warnFindings(stderr io.Writer, d *design.Design, done string) {
	errs := 0
	for _, dg := range check.Check(d, check.Rules) {
		if dg.Severity == design.Error {
			errs++
		}
	}
	if errs > 0 {
		fmt.Fprintf(stderr, "warning: %s has %s (dynago design check %s): %s as written\n", d.File, count(errs, "error"), d.File, done)
	}
}

// loadDesign loads a design file for a command that needs it whole: its
// syntax problems are printed to stdout and make the command exit 1.
func loadDesign(path string, stdout io.Writer) (*design.Design, error) {
	d, diags, err := design.Load(path)
	if err != nil {
		return nil, err
	}
	for _, dg := range diags {
		fmt.Fprintln(stdout, dg)
	}
	if len(diags) > 0 {
		return nil, errFindings{len(diags)}
	}
	return d, nil
}

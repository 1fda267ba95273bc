package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design/designtest"
	"github.com/dynago/dynago/internal/inproc"
)

// TestDesignCommands: check exits 0 on a clean design and 1 with its
// findings on a broken one (text and JSON); worksheet writes Markdown;
// usage errors exit 2.
func TestDesignCommands(t *testing.T) {
	const ok = "../design/check/testdata/ok.design.yaml"
	const hot = "../design/check/testdata/hotkeys.design.yaml"
	for _, tc := range []struct {
		args       []string
		code       int
		out, err   string
		jsonErrors int
	}{
		{[]string{"design", "check", ok}, 0, "ok.design.yaml: 0 errors, 0 warnings (2 entities, 5 access patterns)\n", "", -1},
		{[]string{"design", "check", hot}, 1, "hotkeys.design.yaml:22:15: error: hot partition key: GSI1PK = ALL_POSTS", "", -1},
		{[]string{"design", "check", "--format", "json", hot}, 1, `"rule": "hot-keys"`, "", 3},
		{[]string{"design", "check", "--format", "json", ok}, 0, `"diagnostics": []`, "", 0},
		{[]string{"design", "check", "--disable", "hot-keys", hot}, 0, "hotkeys.design.yaml: 0 errors, 0 warnings", "", -1},
		{[]string{"design", "check", "--disable", "limits,hot-key", hot}, 2, "", `--disable: no rule "hot-key" (did you mean hot-keys?)`, -1},
		{[]string{"design", "check", "../design/check/testdata/ignore/ignore.design.yaml"}, 0, "0 errors, 3 warnings", "", -1},
		{[]string{"design", "worksheet", ok}, 0, "| get-user | Get a user's profile | `UserId`* | Base table: PK = `USER#<UserId>`, SK = `PROFILE` |", "", -1},
		{[]string{"design", "worksheet", "../design/check/testdata/syntax.design.yaml"}, 1, "", "(fix the file, then write its worksheet)", -1},
		{[]string{"design", "check"}, 2, "", "check takes one design file, got 0 arguments", -1},
		{[]string{"design", "check", "--format", "xml", ok}, 2, "", "--format must be text or json", -1},
		{[]string{"design", "check", "/nonexistent.design.yaml"}, 1, "", "open /nonexistent.design.yaml", -1},
		{[]string{"design", "analyze", "../../examples/orders.design.yaml"}, 0, "GSI2   GSI2PK  STATUS#<status>#shard-<shard>  Order            10        10%", "", -1},
		{[]string{"design", "analyze", "../design/analyze/testdata/orders-unsharded.design.yaml"}, 1, "HOT GSI2PK = STATUS#<status> on GSI2", "dynago: 1 hot partition key", -1},
		{[]string{"design", "analyze", "--format", "svg", ok}, 0, "<svg xmlns=", "", -1},
		{[]string{"design", "analyze", "--format", "json", ok}, 0, `"Keys": [`, "", -1},
		{[]string{"design", "analyze", "--format", "csv", ok}, 2, "", "--format is text, json or svg", -1},
		{[]string{"design", "analyze", "--prices", "/nonexistent.json", ok}, 2, "", "--prices: open /nonexistent.json", -1},
		{[]string{"design", "analyze", "../design/check/testdata/syntax.design.yaml"}, 1, "syntax.design.yaml:", "", -1},
		{[]string{"design", "export", "../../examples/ecommerce.design.yaml"}, 0, `"Version": "3.0"`, "", -1},
		{[]string{"design", "export", "--format", "cloudformation", ok}, 0, `"Type": "AWS::DynamoDB::Table"`, "", -1},
		{[]string{"design", "export", "--format", "terraform", ok}, 0, `resource "aws_dynamodb_table"`, "", -1},
		{[]string{"design", "export", "--format", "sam", ok}, 2, "", "--format is workbench, cloudformation or terraform", -1},
		{[]string{"design", "import", "../design/interop/testdata/workbench/music.json"}, 0, "      DownloadsByMonth: <Month>\n", "dynago: import: MonthlyDownloads: DownloadsByMonth = <Month>, read from 2 sample items", -1},
		{[]string{"design", "import", "--table", "Nope", "../design/interop/testdata/workbench/music.json"}, 1, "", `no table "Nope" in the model (Songs)`, -1},
		{[]string{"design", "import", "../design/check/testdata/ok.design.yaml"}, 1, "", "not a NoSQL Workbench model", -1},
		{[]string{"design", "import", "--from", "onetable", "--table", "crm", "../design/interop/testdata/onetable/crm.json"}, 0, "      gs1pk: user#<email>\n", "OneTable schemas hold no access patterns", -1},
		{[]string{"design", "import", "--from", "mcp", "../design/interop/testdata/mcp/shop.json"}, 0, "key: pk = CUSTOMER#<customer_id> AND sk begins_with ORDER#", `pattern weird: operation "PartiQL": left out`, -1},
		{[]string{"design", "import", "--from", "dynamoose", "../design/interop/testdata/mcp/shop.json"}, 2, "", "--from is workbench, onetable, mcp or sql", -1},
		{[]string{"design", "import", "--from", "sql", "--queries", "../design/interop/testdata/sql/queries.sql", "../design/interop/testdata/sql/shop.pg.sql"}, 0, "      SK: ORDER#<order_date>#<order_id>\n", "queries.sql:10:1: query not read: SELECT u.name", -1},
		{[]string{"design", "import", "--from", "sql", "--queries", "/nonexistent.sql", "../design/interop/testdata/sql/shop.pg.sql"}, 1, "", "open /nonexistent.sql", -1},
		{[]string{"design", "import", "--queries", "q.sql", "../design/interop/testdata/mcp/shop.json"}, 2, "", "--queries goes with --from sql", -1},
		{[]string{"design", "gen-go", ok}, 0, "func (c *Client) ShipOrder(ctx context.Context, x Order) error {", "", -1},
		{[]string{"design", "gen-go", "--package", "Bad-Name", ok}, 2, "", `--package "Bad-Name" is not a Go package name`, -1},
	} {
		var out, errOut bytes.Buffer
		code := Main(tc.args, &out, &errOut)
		if code != tc.code || !strings.Contains(out.String(), tc.out) || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%v: exit %d\nstdout %s\nstderr %s\nwant exit %d, stdout with %q, stderr with %q", tc.args, code, out.String(), errOut.String(), tc.code, tc.out, tc.err)
		}
		if tc.jsonErrors >= 0 {
			var rep struct {
				Errors      int
				Diagnostics []map[string]any
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Errors != tc.jsonErrors || len(rep.Diagnostics) != tc.jsonErrors {
				t.Errorf("%v: JSON %s (%v)", tc.args, out.String(), err)
			}
		}
	}
}

// TestDesignRun: run creates the table in an in-process dynago, writes
// generated items and runs every read pattern (JSON: each has items of
// its declared types and consumed capacity); a design that fails check
// is not run.
func TestDesignRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main([]string{"design", "run", "--format", "json", "../design/check/testdata/ok.design.yaml"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	var rep struct {
		Failed   int
		Patterns []struct {
			ID               string
			Items            int
			Types            []string
			ConsumedCapacity float64
			Problems         []string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Failed != 0 || len(rep.Patterns) != 3 {
		t.Fatalf("report %s (%v)", out.String(), err)
	}
	for _, p := range rep.Patterns {
		if p.Items == 0 || p.ConsumedCapacity <= 0 || len(p.Problems) != 0 {
			t.Errorf("pattern %+v", p)
		}
	}
	if got := strings.Join(rep.Patterns[1].Types, ","); got != "User,Order,Order,Order" {
		t.Errorf("user-orders (descending) returned %s, want the profile then the orders", got)
	}
	out.Reset()
	if code := Main([]string{"design", "run", "../design/check/testdata/hotkeys.design.yaml"}, &out, &errOut); code != 1 || !strings.Contains(out.String(), "3 errors: run needs a design that passes check") {
		t.Fatalf("run of a failing design: exit %d, %s", code, out.String())
	}
	for _, args := range [][]string{{"design", "run", "--items", "0", "x"}, {"design", "run", "--endpoint", "localhost:8000", "../design/check/testdata/ok.design.yaml"}} {
		if code := Main(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestDesignRun_Endpoint: design run --endpoint at a local dynago needs
// no AWS setup (with no credentials anywhere, dummy ones are used and the
// EC2 instance metadata service is not asked: here it points at a closed
// port, which the SDK's chain would otherwise fail on), says each step on
// stderr, and deletes the table it made.
func TestDesignRun_Endpoint(t *testing.T) {
	srv, err := inproc.Start(inproc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	for k, v := range map[string]string{
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_CONFIG_FILE": os.DevNull, "AWS_SHARED_CREDENTIALS_FILE": os.DevNull,
		"AWS_EC2_METADATA_SERVICE_ENDPOINT": "http://127.0.0.1:1", "AWS_EC2_METADATA_DISABLED": "",
	} {
		t.Setenv(k, v)
	}
	var out, errOut bytes.Buffer
	if code := Main([]string{"design", "run", "--endpoint", srv.Endpoint(), "../design/check/testdata/ok.design.yaml"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s %s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"creating table ", "waiting for table ", " is ACTIVE after ", "writing 12 generated items", "running 3 read patterns"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if !strings.Contains(out.String(), "3 patterns run, 0 did not hold") {
		t.Errorf("stdout: %s", out.String())
	}
}

// TestDesignExportGenGo_Warnings: export and gen-go write what a design
// with check errors says, and warn on stderr that it has them; a clean
// design gets no warning.
func TestDesignExportGenGo_Warnings(t *testing.T) {
	for _, tc := range []struct {
		args []string
		warn string
	}{
		{[]string{"design", "gen-go", "../design/check/testdata/hotkeys.design.yaml"}, "hotkeys.design.yaml has 3 errors (dynago design check ../design/check/testdata/hotkeys.design.yaml): generated as written"},
		{[]string{"design", "export", "--format", "terraform", "../design/check/testdata/hotkeys.design.yaml"}, "has 3 errors (dynago design check ../design/check/testdata/hotkeys.design.yaml): exported as written"},
		{[]string{"design", "gen-go", "../design/check/testdata/ok.design.yaml"}, ""},
		{[]string{"design", "export", "../design/check/testdata/ok.design.yaml"}, ""},
	} {
		var out, errOut bytes.Buffer
		if code := Main(tc.args, &out, &errOut); code != 0 || out.Len() == 0 {
			t.Errorf("%v: exit %d, %d bytes written: %s", tc.args, code, out.Len(), errOut.String())
		}
		if got := errOut.String(); (tc.warn == "") != (got == "") || !strings.Contains(got, tc.warn) {
			t.Errorf("%v: stderr %q, want %q", tc.args, got, tc.warn)
		}
	}
}

// TestDesignImportSQL_Runs: the draft design --from sql makes of seed
// 002's schema passes check without errors and design run, its
// transactions of guarded puts included (issue 24: "the result is a
// design file that check then critiques").
func TestDesignImportSQL_Runs(t *testing.T) {
	for _, schema := range []string{"shop.pg.sql", "shop.mysql.sql"} {
		var out, errOut bytes.Buffer
		if code := Main([]string{"design", "import", "--from", "sql", "--queries", "../design/interop/testdata/sql/queries.sql", "../design/interop/testdata/sql/" + schema}, &out, &errOut); code != 0 {
			t.Fatalf("%s: import exit %d: %s", schema, code, errOut.String())
		}
		file := filepath.Join(t.TempDir(), "shop.design.yaml")
		if err := os.WriteFile(file, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if code := Main([]string{"design", "run", file}, &out, &errOut); code != 0 || !strings.Contains(out.String(), ", 0 did not hold") || !strings.Contains(out.String(), "TransactWriteItems") {
			t.Errorf("%s: run exit %d:\n%s%s", schema, code, out.String(), errOut.String())
		}
	}
}

// TestDesignExamples: every seed design in examples/ passes check (no
// errors) and run (every read pattern holds) against an in-process
// dynago.
func TestDesignExamples(t *testing.T) {
	files, _ := filepath.Glob("../../examples/*.design.yaml")
	if len(files) != 3 {
		t.Fatalf("want the three seed designs, found %v", files)
	}
	for _, f := range files {
		for _, cmd := range []string{"check", "run"} {
			var out, errOut bytes.Buffer
			if code := Main([]string{"design", cmd, f}, &out, &errOut); code != 0 {
				t.Errorf("design %s %s: exit %d\n%s%s", cmd, f, code, out.String(), errOut.String())
			}
		}
	}
}

// TestDesignRun_IntendedOrder: an unpadded number in a sort key passes
// check with a warning, and run shows what it means: ISSUE#38 before
// ISSUE#8. Ranges with free variables (SK < ISSUE#<upTo>) and a full-key
// pattern (run as the inferred GetItem) run.
func TestDesignRun_IntendedOrder(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Main([]string{"design", "run", "--items", "12", "--format", "json", "../design/check/testdata/runorder.design.yaml"}, &out, &errOut)
	var rep struct {
		Failed   int
		Patterns []struct {
			ID, Operation string
			Items         int
			Problems      []string
		}
	}
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil || code != 1 || rep.Failed != 3 || len(rep.Patterns) != 4 {
		t.Fatalf("exit %d, %s (%v)", code, out.String(), err)
	}
	for _, p := range rep.Patterns[:3] {
		if p.Items == 0 || len(p.Problems) != 1 || !regexp.MustCompile(`^Issue SK "ISSUE#\d+" came before "ISSUE#\d+", out of the (ascending|descending) order`).MatchString(p.Problems[0]) {
			t.Errorf("pattern %+v", p)
		}
	}
	if p := rep.Patterns[3]; p.Operation != "GetItem" || p.Items != 1 || len(p.Problems) != 0 {
		t.Errorf("by-key: %+v", p)
	}
}

// TestGolden_DesignShow: design show draws the seed designs' tables and
// indexes (text, one index, and the HTML page with analyze's load chart
// and check's findings pinned), matching testdata/golden/show (go test
// -run TestGolden_DesignShow -update rewrites them); usage errors exit 2
// and a file that does not parse 1.
func TestGolden_DesignShow(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{"../../examples/orders.design.yaml"}, "orders.txt"},
		{[]string{"--format", "html", "../../examples/orders.design.yaml"}, "orders.html"},
		{[]string{"--index", "GSI1", "../../examples/social.design.yaml"}, "social-gsi1.txt"},
		{[]string{"../../examples/ecommerce.design.yaml"}, "ecommerce.txt"},
		{[]string{"../design/check/testdata/hotkeys.design.yaml"}, "hotkeys.txt"},
	} {
		var out, errOut bytes.Buffer
		if code := Main(append([]string{"design", "show"}, tc.args...), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut.String())
		}
		designtest.Golden(t, "show/"+tc.golden, out.Bytes())
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"--format", "svg", "../../examples/orders.design.yaml"}, 2, "--format is text or html"},
		{[]string{"--index", "GSI9", "../../examples/orders.design.yaml"}, 2, `--index: no index "GSI9" in the design (table, GSI1, GSI2)`},
		{[]string{"--items", "0", "../../examples/orders.design.yaml"}, 2, "--items must be from 1 to 100"},
		{[]string{"../design/check/testdata/syntax.design.yaml"}, 1, ""},
	} {
		var out, errOut bytes.Buffer
		if code := Main(append([]string{"design", "show"}, tc.args...), &out, &errOut); code != tc.code || !strings.Contains(errOut.String(), tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, errOut.String(), tc.code, tc.err)
		}
	}
}

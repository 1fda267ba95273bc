package run_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
	"github.com/dynago/dynago/internal/design/run"
	"github.com/dynago/dynago/internal/inproc"
)

// runDesign runs d's read patterns in an in-process dynago and returns
// the results by pattern id.
func runDesign(t testing.TB, d *design.Design) map[string]run.Result {
	t.Helper()
	srv, err := inproc.Start(inproc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := dynamodb.New(dynamodb.Options{Region: "us-east-1", BaseEndpoint: aws.String(srv.Endpoint()),
		Credentials: credentials.NewStaticCredentialsProvider("dynago", "dynago", "")})
	results, _, err := run.Run(context.Background(), d, c, run.Options{})
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]run.Result{}
	for _, r := range results {
		byID[r.ID] = r
	}
	return byID
}

// TestRun_ExpectsOne: a lookup whose key binds its entity's identity
// (an invoice number, unique only within a branch) and one that says
// expects: one fail when they find several items; reads that may find
// several, or find one, hold.
func TestRun_ExpectsOne(t *testing.T) {
	res := runDesign(t, designtest.Load(t, "testdata/byid.design.yaml"))
	for id, want := range map[string]string{
		"invoice-by-number":            "returned 2 items, but expects one (its key binds Invoice's identity (invoiceNo))",
		"open-invoice":                 "returned 3 items, but expects one (it says expects: one)",
		"branch-invoices":              "",
		"invoice-by-branch-and-number": "",
	} {
		r := res[id]
		got := strings.Join(r.Problems, "; ")
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%s: %d items, problems %q; want %q", id, r.Items, got, want)
		}
	}
}

// TestRun_OrderByID: seed 001's order by id (GSI1PK = ORDER#<orderId>)
// finds its one order, now that every order has an id of its own (the
// sample data gave 500 orders two ids between them), and the customer's
// collection holds the profile and the orders the workload's counts give
// a customer (50, so all six generated).
func TestRun_OrderByID(t *testing.T) {
	d := designtest.Load(t, "../../../examples/orders.design.yaml")
	res := runDesign(t, d)
	if r := res["3"]; r.Items != 1 || len(r.Problems) > 0 {
		t.Errorf("order by id: %+v", r)
	}
	if one, by := d.ExpectsOne(d.Patterns[2]); !one || strings.Join(by, ",") != "orderId" {
		t.Errorf("order by id: ExpectsOne = %v %v, want true by orderId", one, by)
	}
	if r := res["1"]; r.Items != 7 || len(r.Problems) > 0 {
		t.Errorf("customer and orders: %+v", r)
	}
	if r := res["2"]; r.Items != 3 || len(r.Problems) > 0 {
		t.Errorf("order items (three an order in the workload): %+v", r)
	}
}

package engine

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/ddberr"
)

// TestTTL_Settings walks UpdateTimeToLive and DescribeTimeToLive through
// their states with an injected clock: DISABLED, ENABLING (during the
// engine's CreateDelay), ENABLED, enabling twice, disabling under another
// name, DISABLING, DISABLED, disabling twice.
func TestTTL_Settings(t *testing.T) {
	clock := newFakeClock()
	e, _ := openEngine(t, Options{Now: clock.Now, CreateDelay: time.Minute}, "")
	mustRun(t, e, (*Engine).CreateTable, accountsTable)
	if _, err := run(e, (*Engine).DescribeTimeToLive, `{"TableName":"accounts"}`); !isCancelled(err, ddberr.ValidationException) ||
		!strings.Contains(err.Error(), "Cannot describe time to live while table is in CREATING state") {
		t.Fatalf("DescribeTimeToLive of a CREATING table: %v", err)
	}
	clock.Advance(time.Minute)
	status := func() string {
		out := mustRun(t, e, (*Engine).DescribeTimeToLive, `{"TableName":"accounts"}`)
		return out.Status + "/" + out.AttributeName
	}
	update := func(name string, on bool) error {
		en := "false"
		if on {
			en = "true"
		}
		_, err := run(e, (*Engine).UpdateTimeToLive, `{"TableName":"accounts","TimeToLiveSpecification":{"AttributeName":"`+name+`","Enabled":`+en+`}}`)
		return err
	}
	wantErr := func(err error, msg string) {
		t.Helper()
		if !isCancelled(err, ddberr.ValidationException) || !strings.Contains(err.Error(), msg) {
			t.Fatalf("got %v, want ValidationException %q", err, msg)
		}
	}
	steps := []struct {
		do   func() error
		err  string
		want string
		wait time.Duration
	}{
		{nil, "", "DISABLED/", 0},
		{func() error { return update("expires", false) }, "TimeToLive is already disabled", "DISABLED/", 0},
		{func() error { return update("expires", true) }, "", "ENABLING/expires", 0},
		{func() error { return update("other", true) }, "different AttributeName: current AttributeName is expires", "ENABLING/expires", 0},
		{func() error { return update("expires", false) }, "multiple times within a fixed interval", "ENABLING/expires", time.Minute},
		{nil, "", "ENABLED/expires", 0},
		{func() error { return update("expires", true) }, "TimeToLive is already enabled", "ENABLED/expires", 0},
		{func() error { return update("other", false) }, "different AttributeName", "ENABLED/expires", 0},
		{func() error { return update("expires", false) }, "", "DISABLING/expires", time.Minute},
		{nil, "", "DISABLED/", 0},
	}
	for i, s := range steps {
		if s.do != nil {
			err := s.do()
			if s.err == "" && err != nil {
				t.Fatalf("step %d: %v", i, err)
			}
			if s.err != "" {
				wantErr(err, s.err)
			}
		}
		if got := status(); got != s.want {
			t.Fatalf("step %d: status %s, want %s", i, got, s.want)
		}
		clock.Advance(s.wait)
	}
}

// TestTTL_Sweep: with TTL on "expires", a sweep deletes exactly the items
// whose expires is a Number of epoch seconds in the past and not more
// than five years old (injected clock), through the delete path: index
// entries go too. Expired items are readable until swept.
func TestTTL_Sweep(t *testing.T) {
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	e, st := openEngine(t, Options{Now: func() time.Time { return now }}, "")
	mustRun(t, e, (*Engine).CreateTable, indexedTable)
	mustRun(t, e, (*Engine).UpdateTimeToLive, `{"TableName":"ixt","TimeToLiveSpecification":{"AttributeName":"expires","Enabled":true}}`)
	past, future, ancient := now.Add(-time.Hour).Unix(), now.Add(time.Hour).Unix(), now.AddDate(-6, 0, 0).Unix()
	items := map[int]string{
		1: `"expires":{"N":"` + itoa64(past) + `"}`,         // expired
		2: `"expires":{"N":"` + itoa64(past) + `.5"}`,       // expired, fractional
		3: `"expires":{"N":"` + itoa64(future) + `"}`,       // not yet
		4: `"expires":{"S":"` + itoa64(past) + `"}`,         // not a Number
		5: `"expires":{"N":"` + itoa64(ancient) + `"}`,      // over five years old: ignored
		6: `"other":{"N":"1"}`,                              // no TTL attribute
		7: `"expires":{"NS":["` + itoa64(past) + `"]}`,      // a set
		8: `"expires":{"N":"` + itoa64(past*1000) + `"}`,    // milliseconds: far future
		9: `"expires":{"N":"` + itoa64(now.Unix()-1) + `"}`, // just expired
	}
	for sk, a := range items {
		mustRun(t, e, (*Engine).PutItem, `{"TableName":"ixt","Item":{"pk":{"S":"p"},"sk":{"N":"`+itoa64(int64(sk))+`"},"g":{"S":"g"},"n":{"N":"1"},`+a+`}}`)
	}
	if out := mustRun(t, e, (*Engine).GetItem, `{"TableName":"ixt","Key":{"pk":{"S":"p"},"sk":{"N":"1"}}}`); out.Item == nil {
		t.Fatal("an expired item must stay readable until it is swept")
	}
	n, err := e.sweepTTL(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Fatalf("swept %d items, want 3", n)
	}
	for sk := range items {
		out := mustRun(t, e, (*Engine).GetItem, `{"TableName":"ixt","Key":{"pk":{"S":"p"},"sk":{"N":"`+itoa64(int64(sk))+`"}}}`)
		gone := out.Item == nil
		if want := sk == 1 || sk == 2 || sk == 9; gone != want {
			t.Errorf("item %d: deleted %v, want %v", sk, gone, want)
		}
	}
	checkIndexes(t, e, st, "ixt")
	if n, _ := e.sweepTTL(t.Context()); n != 0 {
		t.Fatalf("a second sweep deleted %d", n)
	}
}

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

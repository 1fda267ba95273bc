package pricing

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOf: the worked figures at the shipped us-east-1 prices ($0.625 per
// million write request units, $0.125 per million read request units,
// $0.00065 per WCU-hour, $0.00013 per RCU-hour).
func TestOf(t *testing.T) {
	p := Default()
	for _, tc := range []struct {
		read, write          float64
		odHour, provHour     float64
		odMonth, provMonthOK float64
	}{
		// Seed 001's peak: 5,000 writes a second of 1 unit each.
		{0, 5000, 5000 * 3600 * 0.625 / 1e6, 5000 * 0.00065, 11.25 * 730, 3.25 * 730},
		{1000, 0, 1000 * 3600 * 0.125 / 1e6, 1000 * 0.00013, 0.45 * 730, 0.13 * 730},
		{0.5, 0.2, (0.5*0.125 + 0.2*0.625) * 3600 / 1e6, 0.00013 + 0.00065, 0, 0},
	} {
		c := p.Of(tc.read, tc.write)
		if !near(c.OnDemandHour, tc.odHour) || !near(c.ProvisionedHour, tc.provHour) || c.Currency != "USD" {
			t.Errorf("Of(%v, %v) = %+v, want on-demand %v/h, provisioned %v/h", tc.read, tc.write, c, tc.odHour, tc.provHour)
		}
		if tc.odMonth != 0 && (!near(c.OnDemandMonth, tc.odMonth) || !near(c.ProvisionedMonth, tc.provMonthOK)) {
			t.Errorf("Of(%v, %v) month = %v / %v, want %v / %v", tc.read, tc.write, c.OnDemandMonth, c.ProvisionedMonth, tc.odMonth, tc.provMonthOK)
		}
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9*max(1, math.Abs(b)) }

func TestParse_Errors(t *testing.T) {
	full := func(extra string) string {
		return `{"region":"r","onDemandReadPerMillion":1,"onDemandWritePerMillion":1,"provisionedRCUHour":1,"provisionedWCUHour":1` + extra + `}`
	}
	for _, tc := range []struct{ in, want string }{
		{full(`,"storageGBMonth":-1`), "storageGBMonth must be from 0 to 1e+06, not -1"},
		{full(`,"storageGBMonth":1e308`), "storageGBMonth must be from 0 to 1e+06, not 1e+308"},
		{full(`,"storageGBMonth":1,"onDemandReadPerMilion":1`), "unknown field"},
		{full(``), "storageGBMonth is missing"},
		{`{}`, "region is missing"},
		{full(`,"storageGBMonth":1`) + `{"region":"x"}`, "more than one JSON object"},
		{`{`, "unexpected EOF"},
	} {
		if _, err := Parse([]byte(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
	path := filepath.Join(t.TempDir(), "eu.json")
	if err := os.WriteFile(path, []byte(`{"region":"eu-west-1","onDemandReadPerMillion":0.1413,"onDemandWritePerMillion":0.7063,
		"provisionedRCUHour":0.000147,"provisionedWCUHour":0.000735,"storageGBMonth":0.283}`), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil || p.Region != "eu-west-1" || p.Currency != "USD" || p.OnDemandWritePerMillion != 0.7063 {
		t.Fatalf("Load = %+v, %v", p, err)
	}
}

// FuzzParse: any input parses or is refused with an error, never a
// panic; a table that parses has no negative price and a currency.
func FuzzParse(f *testing.F) {
	f.Add(defaultJSON)
	f.Add([]byte(`{"onDemandReadPerMillion": 1e308, "currency": ""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := Parse(raw)
		if err != nil {
			return
		}
		if p.Currency == "" || p.Region == "" || p.OnDemandReadPerMillion < 0 || p.OnDemandWritePerMillion < 0 || p.ProvisionedRCUHour < 0 || p.ProvisionedWCUHour < 0 || p.StorageGBMonth < 0 {
			t.Fatalf("Parse(%q) = %+v", raw, p)
		}
		if c := p.Of(1e9, 1e9); math.IsInf(c.OnDemandMonth, 0) || math.IsInf(c.ProvisionedMonth, 0) {
			t.Fatalf("Parse(%q): a billion units a second cost %+v", raw, c)
		}
	})
}

package run_test

import (
	"context"
	"strings"
	"testing"

	"github.com/dynago/dynago/dynagotest"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/run"
)

// TestRun_MultiItem: design run runs each transaction and batch on the
// generated items and checks what it did (a guard or a version refusing
// a second run included); where a request held every item the pattern
// declares, the units dynago reports are the ones the capacity model
// (analyze) computes. A guard on an item that is there fails the run.
func TestRun_MultiItem(t *testing.T) {
	for _, tc := range []struct {
		file string
		want map[string]string // pattern id → a problem it must have ("" for none)
	}{
		{"../../../examples/social.design.yaml", map[string]string{"get-users": "", "create-users": "", "like-post": ""}},
		{"../gengo/testdata/accounts.design.yaml", map[string]string{"sign-up": "", "rename": "", "change-email": "", "close-account": ""}},
		{"testdata/planted.design.yaml", map[string]string{"sign-up-again": "ConditionalCheckFailed", "bump-logins": ""}},
		{"testdata/numberkey.design.yaml", map[string]string{"put-user": ""}},
	} {
		d, diags, err := design.Load(tc.file)
		if err != nil || len(diags) > 0 {
			t.Fatal(err, diags)
		}
		results, _, err := run.Run(context.Background(), d, dynagotest.New(t).Client(), run.Options{})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, res := range results {
			want, ok := tc.want[res.ID]
			if !ok {
				if len(res.Problems) > 0 {
					t.Errorf("%s: %s: %v", tc.file, res.ID, res.Problems)
				}
				continue
			}
			seen++
			problems := strings.Join(res.Problems, "; ")
			switch {
			case want == "" && problems != "":
				t.Errorf("%s: %s: %s", tc.file, res.ID, problems)
			case want != "" && !strings.Contains(problems, want):
				t.Errorf("%s: %s: problems %q, want %q", tc.file, res.ID, problems, want)
			}
			p := patternByID(d, res.ID)
			if pc := d.PatternCost(p); want == "" && res.Items == p.Items() && res.ConsumedCapacity != pc.ReadUnits+pc.WriteUnits {
				t.Errorf("%s: %s consumed %g units, the model says %g", tc.file, res.ID, res.ConsumedCapacity, pc.ReadUnits+pc.WriteUnits)
			}
		}
		if seen != len(tc.want) {
			t.Errorf("%s: %d of the %d multi-item patterns ran", tc.file, seen, len(tc.want))
		}
	}
}

func patternByID(d *design.Design, id string) *design.Pattern {
	for _, p := range d.Patterns {
		if p.ID == id {
			return p
		}
	}
	return nil
}

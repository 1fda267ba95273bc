package design

import (
	"math"
	"testing"
)

// TestHarmonic: the busiest value's share under Zipf's law, 1/H(n, s),
// against sums worked out term by term.
func TestHarmonic(t *testing.T) {
	for _, tc := range []struct{ n, s, want float64 }{
		{1, 1, 1},
		{4, 1, 1 + 1.0/2 + 1.0/3 + 1.0/4},
		{10, 2, 1.5497677311665408},
		{1e6, 1, 14.392726722864},   // ln(1e6) + γ + 1/(2n)
		{1e6, 2, 1.6449330668482},   // π²/6 - 1/n
		{1e9, 1.5, 2.6123116228448}, // ζ(1.5) - 2/sqrt(n)
	} {
		if got := harmonic(tc.n, tc.s); math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("H(%g, %g) = %.12f, want %.12f", tc.n, tc.s, got, tc.want)
		}
	}
}

// TestVarSpread: the busiest value's share from an attribute's values and
// its skew: uniform over the values, the busiest listed top value, or an
// unlisted value sharing what the listed leave (top {open: 0.1} over two
// values leaves 0.9 to the other), and Zipf over the values.
func TestVarSpread(t *testing.T) {
	d, diags, err := Load("check/testdata/ok.design.yaml")
	if err != nil || len(diags) > 0 {
		t.Fatal(err, diags)
	}
	e := d.Entity("Order")
	for _, tc := range []struct {
		skew Skew
		want float64
	}{
		{Skew{}, 1.0 / 3},
		{Skew{Top: map[string]float64{"open": 0.8}}, 0.8},
		{Skew{Top: map[string]float64{"open": 0.1}}, 0.45},
		{Skew{Top: map[string]float64{"open": 0.1, "shipped": 0.1}}, 0.8},
		{Skew{Zipf: 1}, 1 / (1 + 0.5 + 1.0/3)},
	} {
		d.Workload.Skew = map[string]Skew{"OrderStatus": tc.skew}
		if n, got := d.VarSpread(e, nil, "OrderStatus"); n != 3 || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%+v: %d values, share %g, want 3 and %g", tc.skew, int(n), got, tc.want)
		}
	}
}

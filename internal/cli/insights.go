package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/dynago/dynago/internal/engine"
	"github.com/dynago/dynago/internal/pricing"
)

type insightsOptions struct {
	endpoint string
	window   time.Duration
	top      int
	format   string
	prices   string
}

func newInsightsCommand(stdout io.Writer) *cobra.Command {
	var o insightsOptions
	cmd := &cobra.Command{
		Use:   "insights TABLE",
		Short: "Show a table's hot keys, partition load and traffic cost from a running server",
		Long: `Show, for a table and each of its global secondary indexes, what a running
dynago server saw over a recent window:

  - the units consumed a second, and what that traffic costs on demand
    (and provisioned) at a price table; with --capacity-scale, also at the
    production rate it stands for;
  - the most accessed and most throttled partition keys and items, where
    Contributor Insights is enabled (aws dynamodb update-contributor-insights
    --table-name TABLE --contributor-insights-action ENABLE);
  - the load on each partition against its 3,000 read and 1,000 write units
    a second (divided by --capacity-scale), when the server runs with
    --throttle.

The same report is served as JSON at GET /insights?table=TABLE.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError{fmt.Errorf("insights takes one table name, got %d arguments", len(args))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInsights(o, args[0], stdout)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.endpoint, "endpoint", "http://127.0.0.1:8000", "the dynago server's URL")
	f.DurationVar(&o.window, "window", time.Minute, "how far back to look, 10s to 5m")
	f.IntVar(&o.top, "top", 10, "how many keys to show in each list, 1 to 100")
	f.StringVar(&o.format, "format", "text", "output format: text or json")
	f.StringVar(&o.prices, "prices", "", "JSON price table to cost the traffic at (default: the server's)")
	return cmd
}

func runInsights(o insightsOptions, table string, stdout io.Writer) error {
	if err := checkFormat(o.format); err != nil {
		return err
	}
	switch {
	case o.top < 1 || o.top > 100:
		return usageError{fmt.Errorf("--top must be from 1 to 100")}
	case o.window < 10*time.Second || o.window > 5*time.Minute:
		return usageError{fmt.Errorf("--window must be from 10s to 5m")}
	}
	var prices *pricing.Prices
	if o.prices != "" {
		p, err := pricing.Load(o.prices)
		if err != nil {
			return usageError{fmt.Errorf("--prices: %w", err)}
		}
		prices = &p
	}
	var rep engine.InsightsReport
	q := url.Values{"table": {table}, "window": {o.window.String()}, "top": {fmt.Sprint(o.top)}}
	if err := getJSON(o.endpoint, "/insights", q, "an insights report", &rep); err != nil {
		return err
	}
	if prices != nil {
		rep.Prices = *prices
		for i := range rep.KeySpaces {
			s := &rep.KeySpaces[i]
			s.Cost = prices.Of(s.ReadUnits, s.WriteUnits)
			if s.ProductionCost != nil {
				c := prices.Of(s.ReadUnits*rep.CapacityScale, s.WriteUnits*rep.CapacityScale)
				s.ProductionCost = &c
			}
		}
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	writeInsights(stdout, &rep)
	return nil
}

// hotShare is the share of a partition's limit that the text report
// marks as hot (as the limiter counts heat).
const hotShare = 0.8

// writeInsights prints the report for a person.
func writeInsights(w io.Writer, r *engine.InsightsReport) {
	fmt.Fprintf(w, "Table %s: the last %s to %s\n", r.Table, time.Duration(r.WindowSeconds*float64(time.Second)).Round(time.Second), r.At.Format(time.RFC3339))
	if r.Throttling {
		fmt.Fprintf(w, "Throttling on: DynamoDB's limits divided by %g (a partition serves %g read and %g write units a second).\n",
			r.CapacityScale, 3000/r.CapacityScale, 1000/r.CapacityScale)
	} else {
		fmt.Fprintln(w, "Throttling off: partitions are not modelled (run the server with --throttle to see their load).")
	}
	fmt.Fprintf(w, "Prices: %s %s (%g per million read and %g per million write request units).\n",
		r.Prices.Region, r.Prices.Currency, r.Prices.OnDemandReadPerMillion, r.Prices.OnDemandWritePerMillion)
	for _, s := range r.KeySpaces {
		fmt.Fprintln(w)
		if s.Index == "" {
			fmt.Fprintf(w, "table %s (%s)\n", r.Table, s.BillingMode)
		} else {
			fmt.Fprintf(w, "index %s\n", s.Index)
		}
		fmt.Fprintf(w, "  consumed: %.2f read and %.2f write units a second\n", s.ReadUnits, s.WriteUnits)
		switch {
		case s.BillingMode == "PROVISIONED" && r.Throttling:
			fmt.Fprintf(w, "  limit: %g read and %g write units a second provisioned%s, plus up to 300 s of unused capacity\n", s.ReadLimit, s.WriteLimit, scaled(r))
		case r.Throttling && (s.ReadLimit > 0 || s.WriteLimit > 0):
			fmt.Fprintf(w, "  limit: OnDemandThroughput maximum of %s read and %s write units a second%s\n", orNone(s.ReadLimit), orNone(s.WriteLimit), scaled(r))
		}
		fmt.Fprintf(w, "  cost: %s an hour on demand (%s a month); %s an hour provisioned at exactly this rate\n",
			money(s.Cost.OnDemandHour, s.Cost.Currency), money(s.Cost.OnDemandMonth, s.Cost.Currency), money(s.Cost.ProvisionedHour, s.Cost.Currency))
		if s.ProductionCost != nil {
			fmt.Fprintf(w, "  at production scale (x%g): %s an hour on demand (%s a month)\n",
				r.CapacityScale, money(s.ProductionCost.OnDemandHour, s.Cost.Currency), money(s.ProductionCost.OnDemandMonth, s.Cost.Currency))
		}
		if len(s.Partitions) > 0 {
			fmt.Fprintf(w, "  partitions (%d; HOT: at %g%% of its limit over the window, or throttled):\n", len(s.Partitions), hotShare*100)
			fmt.Fprintf(w, "    %-18s %16s %16s %10s\n", "hash from", "read/s (limit)", "write/s (limit)", "throttled")
			for _, p := range s.Partitions {
				mark := ""
				if p.ReadUnits >= hotShare*p.ReadLimit || p.WriteUnits >= hotShare*p.WriteLimit || p.ReadThrottled+p.WriteThrottled > 0 {
					mark = "  HOT"
				}
				if p.StartKey != nil {
					mark += "  from " + keyText(p.StartKey)
				}
				fmt.Fprintf(w, "    %-18s %16s %16s %10d%s\n", p.HashStart,
					fmt.Sprintf("%.1f (%g)", p.ReadUnits, p.ReadLimit), fmt.Sprintf("%.1f (%g)", p.WriteUnits, p.WriteLimit),
					p.ReadThrottled+p.WriteThrottled, mark)
			}
		}
		if s.ContributorInsights == "DISABLED" {
			if s.Index == "" {
				fmt.Fprintf(w, "  Contributor Insights is off: aws dynamodb update-contributor-insights --table-name %s --contributor-insights-action ENABLE\n", r.Table)
			} else {
				fmt.Fprintf(w, "  Contributor Insights is off: aws dynamodb update-contributor-insights --table-name %s --index-name %s --contributor-insights-action ENABLE\n", r.Table, s.Index)
			}
			continue
		}
		fmt.Fprintf(w, "  Contributor Insights: %s (%s)\n", s.ContributorInsights, s.Mode)
		keyList(w, "most accessed partition keys", s.MostAccessedPartitionKeys, false)
		keyList(w, "most accessed keys", s.MostAccessedKeys, false)
		keyList(w, "most throttled partition keys", s.MostThrottledPartitionKeys, true)
		keyList(w, "most throttled keys", s.MostThrottledKeys, true)
	}
}

// scaled says how the limits shown were scaled.
func scaled(r *engine.InsightsReport) string {
	if r.CapacityScale > 1 {
		return fmt.Sprintf(" (divided by %g)", r.CapacityScale)
	}
	return ""
}

// orNone renders a limit, 0 as "no".
func orNone(v float64) string {
	if v == 0 {
		return "no"
	}
	return fmt.Sprintf("%g", v)
}

func keyList(w io.Writer, title string, ks []engine.KeyInsights, throttled bool) {
	if len(ks) == 0 {
		fmt.Fprintf(w, "  %s: none\n", title)
		return
	}
	fmt.Fprintf(w, "  %s:\n", title)
	for _, k := range ks {
		missed := ""
		if throttled {
			if k.ErrorBound > 0 {
				missed = fmt.Sprintf(" (may have missed up to %g)", k.ErrorBound)
			}
			fmt.Fprintf(w, "    %-40s %d throttled%s\n", keyText(k.Key), k.Throttled, missed)
			continue
		}
		if k.ErrorBound > 0 {
			missed = fmt.Sprintf("; may have missed up to %.2f", k.ErrorBound)
		}
		fmt.Fprintf(w, "    %-40s %8.2f read/s %8.2f write/s  (%.2f consumed throughput units/s%s)\n", keyText(k.Key), k.ReadUnits, k.WriteUnits, k.ConsumedThroughputUnits, missed)
	}
}

// maxKeyText is how many bytes of a key value the text report shows.
const maxKeyText = 64

// keyText renders a DynamoDB JSON key as NAME=value pairs: strings
// quoted, numbers bare, binary as base64; a long value is cut at
// maxKeyText bytes and marked with "...".
func keyText(raw json.RawMessage) string {
	var m map[string]map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return string(raw)
	}
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	parts := make([]string, 0, len(names))
	for _, n := range names {
		for t, v := range m[n] {
			if len(v) > maxKeyText {
				v = strings.ToValidUTF8(v[:maxKeyText], "") + "..."
			}
			if t == "S" {
				v = fmt.Sprintf("%q", v)
			}
			parts = append(parts, n+"="+v)
		}
	}
	return strings.Join(parts, " ")
}

// money formats an amount: cents for whole amounts, more digits for
// small ones.
func money(v float64, currency string) string {
	sym := currency + " "
	if currency == "USD" {
		sym = "$"
	}
	switch {
	case v == 0:
		return sym + "0"
	case v < 0.01:
		return fmt.Sprintf("%s%.6f", sym, v)
	}
	return fmt.Sprintf("%s%.2f", sym, v)
}

// getJSON GETs path on a dynago server's endpoint and decodes its JSON
// answer into v (what names it in errors); the server's {"error": ...}
// answer is the error.
func getJSON(endpoint, path string, q url.Values, what string, v any) error {
	u, err := url.Parse(strings.TrimRight(endpoint, "/") + path)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usageError{fmt.Errorf("--endpoint must be an http(s) URL such as http://127.0.0.1:8000, not %q", endpoint)}
	}
	u.RawQuery = q.Encode()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	client, err := signRequest(ctx, req)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the server at %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error   string
			Type    string `json:"__type"`
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &e) == nil && e.Error != "" {
			return fmt.Errorf("%s", e.Error)
		}
		if e.Type != "" { // a signature the server refused (serve --credentials)
			_, code, _ := strings.Cut(e.Type, "#")
			return fmt.Errorf("%s refused the request: %s: %s (the AWS credentials are taken from the environment or AWS_PROFILE)", endpoint, code, e.Message)
		}
		return fmt.Errorf("%s answered %s (is it a dynago server?)", endpoint, resp.Status)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%s did not answer with %s: %w", endpoint, what, err)
	}
	return nil
}

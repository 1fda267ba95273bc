package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// result is one run's row; its JSON form is what -json and -out write.
type result struct {
	Label       string   `json:"label"`
	Op          string   `json:"op"`
	Concurrency int      `json:"concurrency"`
	Seconds     float64  `json:"seconds"`
	Ops         int      `json:"ops"`
	OpsPerSec   float64  `json:"ops_per_sec"`
	P50Ms       float64  `json:"p50_ms"`
	P99Ms       float64  `json:"p99_ms"`
	ServerUsOp  *float64 `json:"server_cpu_us_per_op"` // null: no -server-pid
	ServerCPU   *float64 `json:"server_cpu_pct"`       // % of one core
	ClientUsOp  float64  `json:"client_cpu_us_per_op"`
	OtherCPU    *float64 `json:"other_cpu_pct"` // machine busy minus server and client, % of one core
	Errors      int      `json:"errors"`
	FirstError  string   `json:"first_error,omitempty"`
	Time        string   `json:"time"`
}

// summarize turns a measured phase and CPU deltas into a result.
func summarize(cfg config, ph phaseResult, t cpuTimes) *result {
	lat := ph.latencies
	slices.Sort(lat)
	n := len(lat)
	r := &result{
		Label:       cfg.label,
		Op:          cfg.op,
		Concurrency: cfg.conc,
		Seconds:     ph.elapsed.Seconds(),
		Ops:         n,
		P50Ms:       ms(percentile(lat, 0.50)),
		P99Ms:       ms(percentile(lat, 0.99)),
		Errors:      ph.errors,
		FirstError:  ph.firstErr,
		Time:        time.Now().UTC().Format(time.RFC3339),
	}
	if n > 0 {
		r.OpsPerSec = float64(n) / ph.elapsed.Seconds()
		r.ClientUsOp = float64(t.client.Microseconds()) / float64(n)
		if t.server >= 0 {
			us := float64(t.server.Microseconds()) / float64(n)
			pct := 100 * t.server.Seconds() / ph.elapsed.Seconds()
			r.ServerUsOp, r.ServerCPU = &us, &pct
			if t.machine > 0 {
				other := 100 * max(t.machine-t.server-t.client, 0).Seconds() / ph.elapsed.Seconds()
				r.OtherCPU = &other
			}
		}
	}
	return r
}

// percentile returns the nearest-rank p-quantile of sorted d.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(d)))) - 1
	return d[max(i, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// noisyPct is the "other %" above which the report calls a row suspect.
const noisyPct = 25

const rowFormat = "%-16s %-5s %3s %9s %8s %8s %10s %6s %9s %7s %6s%s\n"

// printHeader writes the column names of the text table.
func printHeader(w io.Writer, ratio bool) {
	extra := ""
	if ratio {
		extra = fmt.Sprintf(" %7s", "x base")
	}
	fmt.Fprintf(w, rowFormat, "label", "op", "c", "ops/s", "p50 ms", "p99 ms", "srv us/op", "srv %", "cli us/op", "other %", "errors", extra)
}

// printRow writes r as a table row followed by extra.
func printRow(w io.Writer, r *result, extra string) {
	srv, pct, other := "-", "-", "-"
	if r.ServerUsOp != nil {
		srv = fmt.Sprintf("%.1f", *r.ServerUsOp)
		pct = fmt.Sprintf("%.0f", *r.ServerCPU)
	}
	if r.OtherCPU != nil {
		other = fmt.Sprintf("%.0f", *r.OtherCPU)
	}
	fmt.Fprintf(w, rowFormat, r.Label, r.Op, fmt.Sprint(r.Concurrency), fmt.Sprintf("%.0f", r.OpsPerSec),
		fmt.Sprintf("%.3f", r.P50Ms), fmt.Sprintf("%.3f", r.P99Ms), srv, pct,
		fmt.Sprintf("%.1f", r.ClientUsOp), other, fmt.Sprint(r.Errors), extra)
}

// appendJSON appends r as one JSON line to path.
func appendJSON(path string, r *result) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(r)
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printReport prints the JSON lines of path as one table, with each row's
// server CPU/op as a multiple of the baseline label's for the same op and
// concurrency, and the first error of any row that had errors.
func printReport(w io.Writer, path, baseline string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var rows []*result
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		r := new(result)
		if err := json.Unmarshal(sc.Bytes(), r); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rows = append(rows, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	base := map[string]float64{}
	for _, r := range rows {
		if r.Label == baseline && r.ServerUsOp != nil && *r.ServerUsOp > 0 {
			base[fmt.Sprint(r.Op, r.Concurrency)] = *r.ServerUsOp
		}
	}
	printHeader(w, true)
	for _, r := range rows {
		extra := fmt.Sprintf(" %7s", "-")
		if b, ok := base[fmt.Sprint(r.Op, r.Concurrency)]; ok && r.ServerUsOp != nil {
			extra = fmt.Sprintf(" %7.2f", *r.ServerUsOp/b)
		}
		printRow(w, r, extra)
	}
	var noisy []string
	for _, r := range rows {
		if r.OtherCPU != nil && *r.OtherCPU > noisyPct {
			noisy = append(noisy, fmt.Sprintf("%s %s c=%d", r.Label, r.Op, r.Concurrency))
		}
	}
	if len(noisy) > 0 {
		fmt.Fprintf(w, "other processes used more than %d%% of a core during %d row(s), whose numbers are suspect: %s\n",
			noisyPct, len(noisy), strings.Join(noisy, ", "))
	}
	for _, r := range rows {
		if r.Errors > 0 {
			fmt.Fprintf(w, "errors in %s %s c=%d: %d, first: %s\n", r.Label, r.Op, r.Concurrency, r.Errors, r.FirstError)
		}
	}
	return nil
}

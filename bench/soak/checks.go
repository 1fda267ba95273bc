package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// result is one check's verdict.
type result struct {
	n      int
	name   string
	pass   bool
	detail []string
}

// checker runs the final checks against the restarted server, once the
// clients have stopped.
type checker struct {
	db   *dynamodb.Client
	srv  *server
	viol *violations
	st   *stats
}

// retry runs a read until it succeeds or ctx ends.
func retry(ctx context.Context, srv *server, call func(ctx context.Context) error) error {
	for {
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := call(c)
		cancel()
		if err == nil || ctx.Err() != nil {
			return err
		}
		if cls, _ := classify(err); cls == definite {
			return err
		}
		_ = srv.waitUp(ctx)
		time.Sleep(50 * time.Millisecond)
	}
}

// scanAll reads the whole table, or an index, by base-table key.
func (c *checker) scanAll(ctx context.Context, indexName string, consistent bool) (map[string]item, error) {
	all := map[string]item{}
	in := &dynamodb.ScanInput{TableName: aws.String(tableName), ConsistentRead: aws.Bool(consistent)}
	if indexName != "" {
		in.IndexName = aws.String(indexName)
	}
	for {
		var out *dynamodb.ScanOutput
		err := retry(ctx, c.srv, func(ctx context.Context) error {
			var err error
			out, err = c.db.Scan(ctx, in)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("scan %s: %w", indexName, err)
		}
		for _, it := range out.Items {
			k := itemKey(it)
			if all[k] != nil {
				return nil, fmt.Errorf("scan %s: key %s returned twice", indexName, showKey(k))
			}
			all[k] = it
		}
		if len(out.LastEvaluatedKey) == 0 {
			return all, nil
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
}

// quiesce waits until the TTL sweep has deleted every expired item (no
// client writes any more, so the table is then still) and returns a
// strongly consistent Scan of the table.
func (c *checker) quiesce(ctx context.Context, timeout time.Duration) (map[string]item, int, error) {
	deadline := time.Now().Add(timeout)
	for {
		table, err := c.scanAll(ctx, "", true)
		if err != nil {
			return nil, 0, err
		}
		n := 0
		for _, it := range table {
			if expired(it) {
				n++
			}
		}
		if n == 0 || time.Now().After(deadline) {
			return table, n, nil
		}
		time.Sleep(500 * time.Millisecond)
	}
}

func canonMap(m map[string]item) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = canonItem(v)
	}
	return c
}

func withViolations(v *violations, n int, r *result) {
	count, first := v.get(n)
	if count > 0 {
		r.pass = false
		r.detail = append(r.detail, fmt.Sprintf("%d violations during the run, the first ones:", count))
		for _, f := range first {
			r.detail = append(r.detail, "  "+f)
		}
	}
}

// checkBank: the balances add up to the opening total exactly, every
// acknowledged transfer has its record and every cancelled one has none,
// and each balance is its opening balance plus the credits minus the
// debits of the records that exist.
func (c *checker) checkBank(ctx context.Context, table map[string]item, xfers []*xfer) result {
	r := result{n: 1, name: "bank total holds, every acknowledged transfer applied exactly once", pass: true}
	bal := make([]int64, accounts)
	var sum int64
	for a := 0; a < accounts; a++ {
		var out *dynamodb.GetItemOutput
		err := retry(ctx, c.srv, func(ctx context.Context) error {
			var err error
			out, err = c.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableName), Key: accountKey(a), ConsistentRead: aws.Bool(true)})
			return err
		})
		if err != nil {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("GetItem account %d: %v", a, err))
			return r
		}
		b, ok := num(out.Item, "bal")
		if !ok {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("account %d: no balance: %s", a, showItem(out.Item)))
		}
		if b < 0 {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("account %d: negative balance %d", a, b))
		}
		bal[a] = b
		sum += b
	}
	want := int64(accounts * openingBal)
	if sum != want {
		r.pass = false
		r.detail = append(r.detail, fmt.Sprintf("balances sum to %d, want %d", sum, want))
	}
	records := map[string]item{}
	for _, it := range table {
		if pk := str(it, "PK"); strings.HasPrefix(pk, "X#") {
			records[pk[2:]] = it
		}
	}
	expect := make([]int64, accounts)
	for a := range expect {
		expect[a] = openingBal
	}
	for id, rec := range records {
		from, _ := num(rec, "from")
		to, _ := num(rec, "to")
		amt, _ := num(rec, "amt")
		if from < 0 || from >= accounts || to < 0 || to >= accounts {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("record %s: bad accounts %s", id, showItem(rec)))
			continue
		}
		expect[from] -= amt
		expect[to] += amt
	}
	for a := range bal {
		if bal[a] != expect[a] {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("account %d: balance %d, but opening balance + credits - debits of the %d transfer records is %d", a, bal[a], len(records), expect[a]))
		}
	}
	var acked, rejected, unresolvedApplied, unresolvedNot int
	issued := map[string]bool{}
	for _, x := range xfers {
		issued[x.id] = true
		rec := records[x.id]
		switch {
		case x.applied():
			acked++
			if rec == nil {
				r.pass = false
				r.detail = append(r.detail, fmt.Sprintf("transfer %s (%s, %d from %d to %d): no record: an acknowledged transfer is lost", x.id, x.status, x.amt, x.from, x.to))
				continue
			}
			from, _ := num(rec, "from")
			to, _ := num(rec, "to")
			amt, _ := num(rec, "amt")
			if from != int64(x.from) || to != int64(x.to) || amt != x.amt {
				r.pass = false
				r.detail = append(r.detail, fmt.Sprintf("transfer %s: record %s, sent %d from %d to %d", x.id, showItem(rec), x.amt, x.from, x.to))
			}
		case x.rejected():
			rejected++
			if rec != nil {
				r.pass = false
				r.detail = append(r.detail, fmt.Sprintf("transfer %s (%s) has a record: a cancelled transfer applied", x.id, x.status))
			}
		default:
			if rec != nil {
				unresolvedApplied++
			} else {
				unresolvedNot++
			}
		}
	}
	for id := range records {
		if !issued[id] {
			r.pass = false
			r.detail = append(r.detail, fmt.Sprintf("record %s: no client issued this transfer", id))
		}
	}
	r.detail = append([]string{fmt.Sprintf(
		"%d accounts sum to %d (opening %d); %d transfers issued: %d acknowledged, %d cancelled, %d unresolved (%d of them applied, by their records); each balance = opening + credits - debits of the %d records",
		accounts, sum, want, len(xfers), acked, rejected, unresolvedApplied+unresolvedNot, unresolvedApplied, len(records))}, r.detail...)
	withViolations(c.viol, 1, &r)
	return r
}

// checkModel: a strongly consistent GetItem of every owned key gives the
// state the client's model holds (the last acknowledged write, or what
// the client read after a lost answer; an expired item may be gone).
func (c *checker) checkModel(ctx context.Context, workers []*worker) result {
	r := result{n: 2, name: "no acknowledged write lost (GetItem of every key = the clients' model)", pass: true}
	keys, bad := 0, 0
	for _, w := range workers {
		for _, es := range [][]*entry{w.keys, w.ttls} {
			for _, e := range es {
				keys++
				var out *dynamodb.GetItemOutput
				err := retry(ctx, c.srv, func(ctx context.Context) error {
					var err error
					out, err = c.db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(tableName), Key: keyOf(e.pk, e.sk), ConsistentRead: aws.Bool(true)})
					return err
				})
				if err != nil {
					r.pass = false
					r.detail = append(r.detail, fmt.Sprintf("GetItem %s: %v", showKey(e.id()), err))
					return r
				}
				got := out.Item
				if len(got) == 0 {
					got = nil
				}
				if !matches(got, e.states) {
					bad++
					r.pass = false
					if bad <= 10 {
						r.detail = append(r.detail, fmt.Sprintf("%s: GetItem gives %s, the model holds %s", showKey(e.id()), showItem(got), showStates(e.states)))
					}
				}
			}
		}
	}
	writes := c.st.ok["PutItem"] + c.st.ok["UpdateItem"] + c.st.ok["DeleteItem"] + c.st.ok["BatchWriteItem"] +
		c.st.ok["PutItem (TTL)"] + c.st.ok["DeleteItem (TTL)"]
	r.detail = append([]string{fmt.Sprintf("%d keys read, %d differ; %d acknowledged writes, %d reads and write results compared with the model during the run",
		keys, bad, writes, c.st.readChecks)}, r.detail...)
	withViolations(c.viol, 2, &r)
	return r
}

// checkStream: replaying every stream record gives the table (the
// reader keeps reading; wait until it has caught up, or timeout).
func (c *checker) checkStream(ctx context.Context, reader *streamReader, table map[string]item, timeout time.Duration) result {
	r := result{n: 3, name: "stream replayed = table", pass: true}
	want := canonMap(table)
	deadline := time.Now().Add(timeout)
	var n int
	var diffs []string
	var records int64
	var shards int
	for {
		var replay map[string]string
		replay, records, shards, _ = reader.snapshot()
		n, diffs = showDiff(replay, want, 10)
		if n == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	_, _, _, events, _ := reader.figures()
	r.detail = append(r.detail, fmt.Sprintf("%d records from %d shards replayed onto %d items: %d differ; %d REMOVE records by the TTL sweep (Service dynamodb.amazonaws.com)",
		records, shards, len(want), n, events["REMOVE by TTL"]))
	if n > 0 {
		r.pass = false
		r.detail = append(r.detail, diffs...)
	}
	if events["REMOVE by TTL"] == 0 {
		r.pass = false
		r.detail = append(r.detail, "no TTL deletion came through the stream")
	}
	withViolations(c.viol, 3, &r)
	return r
}

// checkIndexes: a Scan of each index equals the projection of the table
// items that have its key attributes (GSIs are read until they match, or
// timeout; the LSI with ConsistentRead).
func (c *checker) checkIndexes(ctx context.Context, table map[string]item, timeout time.Duration) result {
	r := result{n: 4, name: "every index = the projection of its table", pass: true}
	for _, ix := range indexes {
		want := map[string]string{}
		for k, it := range table {
			if p := ix.project(it); p != nil {
				want[k] = canonItem(p)
			}
		}
		deadline := time.Now().Add(timeout)
		start := time.Now()
		for {
			got, err := c.scanAll(ctx, ix.name, ix.local)
			if err != nil {
				r.pass = false
				r.detail = append(r.detail, fmt.Sprintf("%s: %v", ix.name, err))
				break
			}
			n, diffs := showDiff(canonMap(got), want, 10)
			if n == 0 {
				r.detail = append(r.detail, fmt.Sprintf("%s (%s): %d entries match (after %.1f s)", ix.name, ix.proj, len(want), time.Since(start).Seconds()))
				break
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				r.pass = false
				r.detail = append(r.detail, fmt.Sprintf("%s (%s): %d of %d entries differ after %v (index vs table):", ix.name, ix.proj, n, len(want), timeout))
				for _, d := range diffs {
					r.detail = append(r.detail, "  "+strings.Replace(d, "stream ", "index ", 1))
				}
				break
			}
			time.Sleep(500 * time.Millisecond)
		}
	}
	return r
}

package check

import (
	"fmt"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// ShardedReadRule checks reads of write-sharded keys: a key spread over
// N shards (STATUS#open#<shard>) holds one logical result in N
// partitions, so a read that wants it in sort-key order or a page of it
// (order, pageSize) must query every shard and merge their pages: N
// queries a request, N times the read units. The pattern must say which
// it does (shards: all, costed at N queries, or shards: one, a request
// reads one shard and its rate counts shard queries); a shards field on
// a read of no sharded key is an error.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-sharding.html
// (with a random suffix, reading all the items for one logical key means
// querying each suffix and merging the results).
var ShardedReadRule = &Rule{
	Name: "sharded-read",
	Doc: `Write sharding (shard: {count: N, by: ID}) spreads one logical key over N
partition keys. A read of it in sort-key order, or of a page of it, must
query all N and merge: each request is N Queries and N times the read
units, and a page of P items reads up to N×P. A pattern with order or
pageSize on a sharded key must say so: shards: all (costed at N queries a
request), or shards: one (each request reads one shard; its rate counts
the shards' queries, and its order is a shard's).`,
	Run: func(pass *Pass) {
		d := pass.Design
		for _, p := range d.Patterns {
			if p.Kind != "read" {
				continue
			}
			n := d.ShardCount(p)
			switch {
			case n < 2 && p.Shards != "":
				pass.Reportf(p.Pos, design.Error, "pattern %s says shards: %s, but its key condition %q reads no sharded key (<shard> on a key with a shard rule)", p.ID, p.Shards, p.KeyCondition)
			case n >= 2 && p.Shards == "" && (p.Order != "" || p.PageSize > 0):
				pc := d.PatternCost(p)
				var what []string
				if p.Order != "" {
					what = append(what, "order: "+p.Order)
				}
				if p.PageSize > 0 {
					what = append(what, fmt.Sprintf("pageSize: %d", p.PageSize))
				}
				pass.Reportf(p.Pos, design.Warning, "pattern %s reads %s, sharded %d ways, with %s: one logical page takes a Query of each of the %d shards and a merge of their pages, %d × %g = %g RCU a request instead of %g; say shards: all (costed so) or shards: one (a request reads one shard, and its rate counts the shards' queries)",
					p.ID, condText(p.Conditions), n, strings.Join(what, ", "), n, n, pc.ReadUnits, float64(n)*pc.ReadUnits, pc.ReadUnits)
			}
		}
	},
}

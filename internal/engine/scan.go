package engine

import (
	"bytes"
	"context"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// Scan reads a whole table (or one segment of a parallel scan) in
// partition-hash order, a page at a time. Segment i of n covers the
// partition hashes [i·2⁶⁴/n, (i+1)·2⁶⁴/n), so the segments together cover
// every item exactly once.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_Scan.html
func (e *Engine) Scan(ctx context.Context, in *api.ScanInput) (*api.ReadOutput, error) {
	var out *api.ReadOutput
	err := e.readTable(ctx, *in.TableName, &in.ReadRequest, func(tx storage.Txn, plan *keyPlan) error {
		s := plan.space
		lo, hi := keycodec.SpaceBounds(s)
		if in.TotalSegments != nil && *in.TotalSegments > 1 {
			lo, hi = segmentBounds(s, uint64(*in.Segment), uint64(*in.TotalSegments))
		}
		if in.ExclusiveStartKey != nil {
			start, err := startKey(plan, in.ExclusiveStartKey)
			if err != nil {
				return err
			}
			if bytes.Compare(start, lo) < 0 || bytes.Compare(start, hi) >= 0 {
				// Source: scylladb/scylladb#9270, quoting DynamoDB.
				return ddberr.Validationf("The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct Segment. TotalSegments: %d Segment: %d", *in.TotalSegments, *in.Segment)
			}
			lo, hi = resume(lo, hi, start, true)
		}
		var err error
		out, err = e.readSpan(ctx, tx, plan, &in.ReadRequest, keySpan{lo: lo, hi: hi, from: lo})
		return err
	})
	return out, err
}

// segmentBounds returns the key range of segment seg of total.
func segmentBounds(s keycodec.Space, seg, total uint64) (lo, hi []byte) {
	// Boundary of segment i: floor(i·2⁶⁴/total), computed without overflow.
	bound := func(i uint64) uint64 {
		q, r := ^uint64(0)/total, ^uint64(0)%total
		return i*q + (i*(r+1))/total
	}
	lo = keycodec.HashBound(s, bound(seg))
	if seg+1 == total {
		_, hi = keycodec.SpaceBounds(s)
	} else {
		hi = keycodec.HashBound(s, bound(seg+1))
	}
	return lo, hi
}

package console

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
)

// Reading a table's stream as a client does: DescribeStream for the
// shards (following LastEvaluatedShardId), then for each shard
// GetShardIterator and GetRecords, following NextShardIterator to the
// end of a closed shard or the tip of an open one. Where each shard was
// read to is the page's, not the server's: a streamPos, sent back by the
// page with every poll.
//
// Sources: https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html,
// API_streams_GetShardIterator.html, API_streams_GetRecords.html, API_streams_Shard.html.

// streamPos is where the page has read each shard to: the sequence
// number of the last record read, or posDone for a closed shard read to
// its end. A shard not in it is read from TRIM_HORIZON.
type streamPos map[string]string

// posDone marks a closed shard read to its end.
const posDone = "~"

// parseStreamPos reads a streamPos as String writes it: shard:seq pairs
// separated by commas. Malformed pairs are dropped (their shards are read
// again from TRIM_HORIZON).
func parseStreamPos(s string) streamPos {
	p := streamPos{}
	for _, pair := range strings.Split(s, ",") {
		shard, seq, ok := strings.Cut(pair, ":")
		if ok && shard != "" && seq != "" {
			p[shard] = seq
		}
	}
	return p
}

// String writes p, its shards sorted.
func (p streamPos) String() string {
	shards := make([]string, 0, len(p))
	for s := range p {
		shards = append(shards, s)
	}
	sort.Strings(shards)
	var b strings.Builder
	for i, s := range shards {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s + ":" + p[s])
	}
	return b.String()
}

// streamDescription is DescribeStream's StreamDescription, every shard in
// it.
type streamDescription struct {
	StreamArn, StreamLabel, StreamStatus, StreamViewType, TableName string
	CreationRequestDateTime                                         float64
	KeySchema                                                       []KeySchemaElement
	Shards                                                          []streamShard
}

// streamShard is one Shard of a stream description.
type streamShard struct {
	ShardId             string
	ParentShardId       string
	SequenceNumberRange struct {
		StartingSequenceNumber, EndingSequenceNumber string
	}
}

// streamRecord is one record GetRecords returns.
type streamRecord struct {
	EventID   string `json:"eventID"`
	EventName string `json:"eventName"`
	Dynamodb  struct {
		ApproximateCreationDateTime float64
		Keys, NewImage, OldImage    Item
		SequenceNumber              string
		SizeBytes                   int64
		StreamViewType              string
	} `json:"dynamodb"`
	// Shard is the shard it was read from (not in the wire record).
	Shard string `json:"-"`
}

// describeStream returns the stream with every shard.
func (c *Console) describeStream(ctx context.Context, arn string) (streamDescription, error) {
	var all streamDescription
	in := map[string]any{"StreamArn": arn}
	for {
		var out struct {
			StreamDescription struct {
				streamDescription
				LastEvaluatedShardId string
			}
		}
		if err := c.callStreams(ctx, "DescribeStream", in, &out); err != nil {
			return all, err
		}
		shards := append(all.Shards, out.StreamDescription.Shards...)
		all = out.StreamDescription.streamDescription
		all.Shards = shards
		last := out.StreamDescription.LastEvaluatedShardId
		if last == "" || len(out.StreamDescription.Shards) == 0 {
			return all, nil
		}
		in["ExclusiveStartShardId"] = last
	}
}

// streamRead is what one read of a stream found.
type streamRead struct {
	Stream  streamDescription
	Records []streamRecord
	// Pos is where every shard of the stream has been read to.
	Pos streamPos
	// More says the read stopped at its bound with records left.
	More bool
	// Err is the first error reading a shard (the others were read).
	Err *APIError
}

// Reading bounds: the records one read returns at most, and the
// GetRecords calls it makes on one shard.
const (
	maxReadRecords = 500
	maxShardCalls  = 8
)

// readStream reads stream arn's records after pos, shards in lineage
// order (a parent before its children), up to maxReadRecords.
func (c *Console) readStream(ctx context.Context, arn string, pos streamPos) (streamRead, error) {
	desc, err := c.describeStream(ctx, arn)
	if err != nil {
		return streamRead{}, err
	}
	rd := streamRead{Stream: desc, Pos: streamPos{}}
	for _, n := range lineage(desc.Shards) {
		sh := n.Shard
		at := pos[sh.ShardId]
		if at == posDone || len(rd.Records) >= maxReadRecords {
			if at != "" {
				rd.Pos[sh.ShardId] = at
			}
			rd.More = rd.More || at != posDone
			continue
		}
		at, err := c.readShard(ctx, arn, sh, at, &rd)
		if at != "" {
			rd.Pos[sh.ShardId] = at
		}
		if err != nil && rd.Err == nil {
			rd.Err = asAPIError(err)
		}
	}
	return rd, nil
}

// readShard reads shard sh after sequence number at ("": from
// TRIM_HORIZON) into rd.Records and returns where it got to.
func (c *Console) readShard(ctx context.Context, arn string, sh streamShard, at string, rd *streamRead) (string, error) {
	iter, err := c.shardIterator(ctx, arn, sh.ShardId, at)
	if err != nil {
		if e, ok := err.(*APIError); ok && e.Type == "TrimmedDataAccessException" && at != "" {
			// The records after at are past the 24-hour retention.
			at = ""
			iter, err = c.shardIterator(ctx, arn, sh.ShardId, "")
		}
		if e, ok := err.(*APIError); ok && e.Type == "ResourceNotFoundException" {
			return "", nil // the shard was trimmed away since DescribeStream
		}
		if err != nil {
			return at, err
		}
	}
	closed := sh.SequenceNumberRange.EndingSequenceNumber != ""
	for calls := 0; calls < maxShardCalls && len(rd.Records) < maxReadRecords; calls++ {
		var out struct {
			Records           []streamRecord
			NextShardIterator string
		}
		in := map[string]any{"ShardIterator": iter, "Limit": min(1000, maxReadRecords-len(rd.Records))}
		if err := c.callStreams(ctx, "GetRecords", in, &out); err != nil {
			return at, err
		}
		for _, r := range out.Records {
			r.Shard = sh.ShardId
			rd.Records = append(rd.Records, r)
			at = r.Dynamodb.SequenceNumber
		}
		if out.NextShardIterator == "" {
			return posDone, nil // a closed shard, read to its end
		}
		iter = out.NextShardIterator
		if len(out.Records) == 0 && !closed {
			return at, nil // the tip of an open shard
		}
	}
	rd.More = true
	return at, nil
}

// shardIterator returns an iterator after sequence number at, or at
// TRIM_HORIZON for "".
func (c *Console) shardIterator(ctx context.Context, arn, shard, at string) (string, error) {
	in := map[string]any{"StreamArn": arn, "ShardId": shard, "ShardIteratorType": "TRIM_HORIZON"}
	if at != "" {
		in["ShardIteratorType"], in["SequenceNumber"] = "AFTER_SEQUENCE_NUMBER", at
	}
	var out struct{ ShardIterator string }
	err := c.callStreams(ctx, "GetShardIterator", in, &out)
	return out.ShardIterator, err
}

// shardNode is a shard in the lineage: its depth under its oldest
// ancestor in the stream.
type shardNode struct {
	Shard streamShard
	Depth int
	// Orphan says its parent is no longer in the stream (trimmed).
	Orphan bool
}

// Open says the shard is open (no EndingSequenceNumber).
func (n shardNode) Open() bool { return n.Shard.SequenceNumberRange.EndingSequenceNumber == "" }

// lineage orders shards as a tree, depth first: each root (a shard whose
// parent is not in the stream), then its children, oldest first (a
// shard id starts with its creation time).
func lineage(shards []streamShard) []shardNode {
	byID := map[string]bool{}
	for _, s := range shards {
		byID[s.ShardId] = true
	}
	children := map[string][]streamShard{}
	var roots []streamShard
	for _, s := range shards {
		if s.ParentShardId != "" && byID[s.ParentShardId] {
			children[s.ParentShardId] = append(children[s.ParentShardId], s)
		} else {
			roots = append(roots, s)
		}
	}
	byShardID := func(l []streamShard) {
		sort.Slice(l, func(i, j int) bool { return l[i].ShardId < l[j].ShardId })
	}
	byShardID(roots)
	out := make([]shardNode, 0, len(shards))
	seen := map[string]bool{}
	// An explicit stack, not recursion: a stream rolled over every second
	// has long chains.
	type frame struct {
		s     streamShard
		depth int
	}
	var stack []frame
	for i := len(roots) - 1; i >= 0; i-- {
		stack = append(stack, frame{roots[i], 0})
	}
	for len(stack) > 0 {
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[f.s.ShardId] {
			continue
		}
		seen[f.s.ShardId] = true
		out = append(out, shardNode{Shard: f.s, Depth: f.depth, Orphan: f.depth == 0 && f.s.ParentShardId != ""})
		kids := children[f.s.ShardId]
		byShardID(kids)
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, frame{kids[i], f.depth + 1})
		}
	}
	return out
}

// seqLess orders sequence numbers (decimal digits) numerically.
func seqLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// newestFirst sorts records newest first: by approximate creation time,
// then sequence number.
func newestFirst(rs []streamRecord) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i].Dynamodb, rs[j].Dynamodb
		if a.ApproximateCreationDateTime != b.ApproximateCreationDateTime {
			return a.ApproximateCreationDateTime > b.ApproximateCreationDateTime
		}
		return seqLess(b.SequenceNumber, a.SequenceNumber)
	})
}

// sameValue says two AttributeValues are equal as JSON.
func sameValue(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xb, _ := json.Marshal(x) // maps marshal with sorted keys
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}

package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/dynago/dynago/internal/api"
	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/insights"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/pricing"
	"github.com/dynago/dynago/internal/throttle"
)

// InsightsReport is what `dynago insights TABLE` and GET /insights show
// for one table: for the table and each GSI, the units consumed a
// second, the most accessed and most throttled keys (where Contributor
// Insights is on), the load on each partition against its limits (where
// throttling is on) and what the traffic would cost.
type InsightsReport struct {
	Table string    `json:"table"`
	At    time.Time `json:"at"`
	// WindowSeconds is the time the figures are averaged over: from the
	// start of the 10-second slot that holds the time asked back to (or
	// the table's creation, if later) up to now.
	WindowSeconds float64 `json:"windowSeconds"`
	// Throttling says the server models partitions and throttles
	// (serve --throttle); CapacityScale is its --capacity-scale.
	Throttling    bool            `json:"throttling"`
	CapacityScale float64         `json:"capacityScale"`
	Prices        pricing.Prices  `json:"prices"`
	KeySpaces     []SpaceInsights `json:"keySpaces"`
}

// SpaceInsights is the report of the table (Index "") or one GSI.
type SpaceInsights struct {
	Index       string `json:"index,omitempty"`
	BillingMode string `json:"billingMode"`
	// ContributorInsights is its status (ENABLED, DISABLED, ...) and
	// Mode its mode.
	ContributorInsights string `json:"contributorInsights"`
	Mode                string `json:"contributorInsightsMode,omitempty"`
	// ReadUnits and WriteUnits are the units consumed a second.
	ReadUnits  float64 `json:"readUnitsPerSecond"`
	WriteUnits float64 `json:"writeUnitsPerSecond"`
	// ReadLimit and WriteLimit are the key space's own limits a second,
	// divided by the capacity scale: its provisioned throughput (plus
	// up to 300 s of burst) or its OnDemandThroughput maximum; absent
	// for on-demand without a maximum (only partitions limit it).
	ReadLimit  float64 `json:"readLimit,omitempty"`
	WriteLimit float64 `json:"writeLimit,omitempty"`
	// The four Contributor Insights views, each largest first; absent
	// while Contributor Insights is DISABLED, and the most accessed ones
	// in THROTTLED_KEYS mode.
	MostAccessedPartitionKeys  []KeyInsights `json:"mostAccessedPartitionKeys,omitempty"`
	MostAccessedKeys           []KeyInsights `json:"mostAccessedKeys,omitempty"`
	MostThrottledPartitionKeys []KeyInsights `json:"mostThrottledPartitionKeys,omitempty"`
	MostThrottledKeys          []KeyInsights `json:"mostThrottledKeys,omitempty"`
	// Partitions is the load on each partition (throttling on only).
	Partitions []PartitionInsights `json:"partitions,omitempty"`
	// Cost is what the observed traffic costs; ProductionCost what it
	// would at the production rate it stands for (CapacityScale times
	// more), present when the scale is above 1.
	Cost           pricing.Cost  `json:"cost"`
	ProductionCost *pricing.Cost `json:"productionCost,omitempty"`
}

// KeyInsights is one key of a Contributor Insights view.
type KeyInsights struct {
	// Key is the partition key (or partition and sort key) attributes in
	// DynamoDB JSON.
	Key        json.RawMessage `json:"key"`
	ReadUnits  float64         `json:"readUnitsPerSecond"`
	WriteUnits float64         `json:"writeUnitsPerSecond"`
	// ConsumedThroughputUnits is read units plus three times write
	// units, a second: what DynamoDB's rules rank by.
	ConsumedThroughputUnits float64 `json:"consumedThroughputUnits"`
	Throttled               int     `json:"throttledRequests"`
	// ErrorBound bounds what the figures may miss (ConsumedThroughputUnits
	// a second, or throttled requests): dynago keeps a bounded number of
	// keys, and a key it dropped and picked up again was not counted in
	// between. Absent when the figures are exact; they never overstate.
	ErrorBound float64 `json:"errorBound,omitempty"`
}

// PartitionInsights is the load on one partition over the window.
type PartitionInsights struct {
	// HashStart is the first partition-key hash of its range (16 hex
	// digits); StartKey, for a partition split between the sort keys of
	// one partition key, its first key.
	HashStart string          `json:"hashStart"`
	StartKey  json.RawMessage `json:"startKey,omitempty"`
	// Units a second and the partition's limits (scaled).
	ReadUnits      float64 `json:"readUnitsPerSecond"`
	WriteUnits     float64 `json:"writeUnitsPerSecond"`
	ReadLimit      float64 `json:"readLimit"`
	WriteLimit     float64 `json:"writeLimit"`
	ReadThrottled  int     `json:"readThrottled"`
	WriteThrottled int     `json:"writeThrottled"`
}

// Insights reports on table (a name or table ARN) over the window
// ending now (at most five minutes), with the top n keys of each view.
// A name that is not a valid table name is ValidationException, a
// missing table ResourceNotFoundException.
func (e *Engine) Insights(ctx context.Context, table string, window time.Duration, n int) (*InsightsReport, error) {
	name := e.tableNameOf(ctx, table)
	if !tableArnPattern().MatchString(table) {
		in := api.TableNameInput{TableName: &name}
		if err := in.Prepare(); err != nil {
			return nil, err
		}
	}
	t, err := e.namedTable(ctx, name)
	if err != nil {
		return nil, err
	}
	now := e.opts.Now()
	w := insights.NewWindow(now, window, time.Unix(0, t.Created))
	r := &InsightsReport{Table: t.Name, At: now.UTC(), WindowSeconds: w.Seconds(), Throttling: e.limiter != nil, CapacityScale: 1, Prices: e.opts.Prices}
	if e.opts.Throttle != nil {
		r.CapacityScale = max(e.opts.Throttle.Scale, 1)
	}
	spaces := []*catalog.Index{nil}
	spaces = append(spaces, t.GSIs...)
	for _, ix := range spaces {
		sp := throttle.Space{Table: t.Number}
		s := SpaceInsights{BillingMode: t.BillingMode}
		setting := t.Insights
		hash, rng := t.KeySchema[:1], t.KeySchema[1:]
		if ix != nil {
			sp.Index, s.Index, setting = ix.Number, ix.Name, ix.Insights
			hash, rng = ix.HashKeys(), ix.RangeKeys()
		}
		if s.BillingMode == "" {
			s.BillingMode = catalog.BillingProvisioned
		}
		s.ContributorInsights = setting.Status(now)
		if setting != nil {
			s.Mode = setting.Mode
		}
		isp := insights.Space(sp)
		s.ReadUnits, s.WriteUnits = e.insights.Usage(isp, w)
		set := settingsOf(t, ix)
		if set.OnDemand {
			s.ReadLimit, s.WriteLimit = float64(set.MaxReadUnits)/r.CapacityScale, float64(set.MaxWriteUnits)/r.CapacityScale
		} else {
			s.ReadLimit, s.WriteLimit = float64(set.ReadUnits)/r.CapacityScale, float64(set.WriteUnits)/r.CapacityScale
		}
		if s.ContributorInsights != catalog.Disabled {
			top := e.insights.Top(isp, w, n)
			if s.Mode != catalog.InsightsThrottledOnly {
				s.MostAccessedPartitionKeys = keyInsights(t, hash, nil, top.PartitionKeys, false)
				s.MostAccessedKeys = keyInsights(t, hash, rng, top.Keys, false)
			}
			s.MostThrottledPartitionKeys = keyInsights(t, hash, nil, top.ThrottledPartitionKeys, true)
			s.MostThrottledKeys = keyInsights(t, hash, rng, top.ThrottledKeys, true)
		}
		if e.limiter != nil {
			if load, ok := e.limiter.Load(sp, w.From, w.To); ok {
				for _, p := range load.Partitions {
					pi := PartitionInsights{
						HashStart: hex.EncodeToString(hashBytes(p.Start)),
						ReadUnits: p.ReadUnits, WriteUnits: p.WriteUnits, ReadLimit: p.ReadLimit, WriteLimit: p.WriteLimit,
						ReadThrottled: p.ReadThrottled, WriteThrottled: p.WriteThrottled,
					}
					if p.StartKey != nil {
						pi.StartKey = decodeKeyJSON(t, slices.Concat(hash, rng), p.StartKey)
					}
					s.Partitions = append(s.Partitions, pi)
				}
			}
		}
		s.Cost = e.opts.Prices.Of(s.ReadUnits, s.WriteUnits)
		if r.CapacityScale > 1 {
			c := e.opts.Prices.Of(s.ReadUnits*r.CapacityScale, s.WriteUnits*r.CapacityScale)
			s.ProductionCost = &c
		}
		r.KeySpaces = append(r.KeySpaces, s)
	}
	return r, nil
}

func hashBytes(h uint64) []byte {
	var b [8]byte
	for i := range b {
		b[i] = byte(h >> (56 - 8*i))
	}
	return b[:]
}

// keyInsights decodes the contributors of one view.
func keyInsights(t *catalog.Table, hash, rng []catalog.KeyElement, cs []insights.Contributor, throttled bool) []KeyInsights {
	out := make([]KeyInsights, 0, len(cs))
	for _, c := range cs {
		ki := KeyInsights{
			Key:       decodeKeyJSON(t, slices.Concat(hash, rng), c.Key),
			ReadUnits: c.ReadUnits, WriteUnits: c.WriteUnits, ConsumedThroughputUnits: c.ConsumedThroughputUnits(),
			Throttled: c.Throttled, ErrorBound: c.Error,
		}
		if throttled {
			ki.ReadUnits, ki.WriteUnits, ki.ConsumedThroughputUnits = 0, 0, 0
		}
		out = append(out, ki)
	}
	return out
}

// decodeKeyJSON decodes a key position (hash, then the values of keys in
// order, as many as it holds) into a DynamoDB JSON object of those
// attributes; undecodable bytes come out as {"undecodable": "<hex>"}.
func decodeKeyJSON(t *catalog.Table, keys []catalog.KeyElement, pos []byte) json.RawMessage {
	item := attr.Item{}
	rest := pos
	if len(rest) >= 8 {
		rest = rest[8:]
		for _, k := range keys {
			if len(rest) == 0 {
				break
			}
			v, r, err := keycodec.DecodeValue(rest, t.AttributeType(k.AttributeName))
			if err != nil {
				break
			}
			item[k.AttributeName], rest = v, r
		}
	}
	if len(rest) > 0 && len(item) == 0 {
		b, _ := json.Marshal(map[string]string{"undecodable": hex.EncodeToString(pos)})
		return b
	}
	return attr.AppendItem(nil, item)
}

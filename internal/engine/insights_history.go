package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"slices"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/insights"
	"github.com/dynago/dynago/internal/throttle"
)

// InsightsHistory is an insights report with the series behind its
// averages, for the web console's charts: what the table and each GSI
// consumed in each 10-second slot of the window, and, with throttling
// on, what each partition served and throttled step by step.
type InsightsHistory struct {
	// Report is Insights' report for the same window, at the same time.
	Report *InsightsReport `json:"report"`
	// From is the window's start (To is Report.At).
	From time.Time `json:"from"`
	// KeySpaces are in the report's order: the table, then its GSIs.
	KeySpaces []SpaceHistory `json:"keySpaces"`
}

// SpaceHistory is the series of the table (Index "") or one GSI.
type SpaceHistory struct {
	Index string `json:"index,omitempty"`
	// Slots are what it consumed in each slot, oldest first: their
	// units summed and divided by the report's WindowSeconds are the
	// report's ReadUnits and WriteUnits.
	Slots []UsageSlot `json:"slots"`
	// Heat is each partition's load step by step (throttling on, and
	// once the key space has served a request); nil otherwise.
	Heat *PartitionHeat `json:"heat,omitempty"`
}

// UsageSlot is one slot's consumption.
type UsageSlot struct {
	Start time.Time `json:"start"`
	// Seconds is how much of the window the slot holds.
	Seconds float64 `json:"seconds"`
	// ReadUnits and WriteUnits are the units consumed in the slot.
	ReadUnits  float64 `json:"readUnits"`
	WriteUnits float64 `json:"writeUnits"`
}

// PartitionHeat is the partitions of a key space over the window, step
// by step.
type PartitionHeat struct {
	// Start is the first step's start, StepSeconds each step's length,
	// Seconds how much of the window each step holds.
	Start       time.Time          `json:"start"`
	StepSeconds float64            `json:"stepSeconds"`
	Seconds     []float64          `json:"seconds"`
	Partitions  []PartitionHistory `json:"partitions"`
}

// PartitionHistory is one partition's load, step by step.
type PartitionHistory struct {
	// HashStart, StartKey and the limits are as in PartitionInsights.
	HashStart  string          `json:"hashStart"`
	StartKey   json.RawMessage `json:"startKey,omitempty"`
	ReadLimit  float64         `json:"readLimit"`
	WriteLimit float64         `json:"writeLimit"`
	// ReadUnits and WriteUnits are the units served a second in each
	// step; ReadThrottled and WriteThrottled the requests throttled.
	ReadUnits      []float64 `json:"readUnitsPerSecond"`
	WriteUnits     []float64 `json:"writeUnitsPerSecond"`
	ReadThrottled  []int     `json:"readThrottled"`
	WriteThrottled []int     `json:"writeThrottled"`
}

// InsightsHistory is Insights (table, window, n) with the series behind
// the report, partitions in steps of step (at least a second). Errors
// are Insights'.
func (e *Engine) InsightsHistory(ctx context.Context, table string, window time.Duration, n int, step time.Duration) (*InsightsHistory, error) {
	r, err := e.Insights(ctx, table, window, n)
	if err != nil {
		return nil, err
	}
	t, err := e.namedTable(ctx, r.Table)
	if err != nil {
		return nil, err
	}
	// The report's window, from its own time.
	w := insights.NewWindow(r.At, window, time.Unix(0, t.Created))
	h := &InsightsHistory{Report: r, From: w.From.UTC()}
	spaces := append([]*catalog.Index{nil}, t.GSIs...)
	for _, ix := range spaces {
		sp := throttle.Space{Table: t.Number}
		s := SpaceHistory{}
		keys := t.KeySchema
		if ix != nil {
			sp.Index, s.Index = ix.Number, ix.Name
			keys = slices.Concat(ix.HashKeys(), ix.RangeKeys())
		}
		for _, u := range e.insights.UsageSlots(insights.Space(sp), w) {
			s.Slots = append(s.Slots, UsageSlot{Start: u.Start.UTC(), Seconds: u.Seconds, ReadUnits: u.ReadUnits, WriteUnits: u.WriteUnits})
		}
		if e.limiter != nil {
			if lh, ok := e.limiter.History(sp, w.From, w.To, step); ok {
				heat := &PartitionHeat{Start: lh.Start.UTC(), StepSeconds: lh.Step.Seconds(), Seconds: lh.Seconds}
				for _, p := range lh.Partitions {
					ph := PartitionHistory{
						HashStart: hex.EncodeToString(hashBytes(p.Start)), ReadLimit: p.ReadLimit, WriteLimit: p.WriteLimit,
						ReadUnits: p.ReadUnits, WriteUnits: p.WriteUnits, ReadThrottled: p.ReadThrottled, WriteThrottled: p.WriteThrottled,
					}
					if p.StartKey != nil {
						ph.StartKey = decodeKeyJSON(t, keys, p.StartKey)
					}
					heat.Partitions = append(heat.Partitions, ph)
				}
				s.Heat = heat
			}
		}
		h.KeySpaces = append(h.KeySpaces, s)
	}
	return h, nil
}

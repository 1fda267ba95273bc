// Package pricing owns dynago's DynamoDB price tables: what a read or
// write request unit, a provisioned capacity unit-hour and a GB-month of
// storage cost in one region and table class, and the cost of a rate of
// traffic at those prices. The default table (us-east-1, Standard) ships
// as data; a JSON file of the same shape replaces it.
//
// Source: https://aws.amazon.com/dynamodb/pricing/on-demand/ and
// https://aws.amazon.com/dynamodb/pricing/provisioned/; the figures and
// their sources are in docs/research-contributor-insights.md §6.
package pricing

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Prices is a price table, in Currency (US dollars by default).
type Prices struct {
	Region     string `json:"region"`
	Currency   string `json:"currency"`
	TableClass string `json:"tableClass"`
	// OnDemandReadPerMillion and OnDemandWritePerMillion are the prices
	// of a million read and write request units.
	OnDemandReadPerMillion  float64 `json:"onDemandReadPerMillion"`
	OnDemandWritePerMillion float64 `json:"onDemandWritePerMillion"`
	// ProvisionedRCUHour and ProvisionedWCUHour are the prices of one
	// read or write capacity unit provisioned for an hour.
	ProvisionedRCUHour float64 `json:"provisionedRCUHour"`
	ProvisionedWCUHour float64 `json:"provisionedWCUHour"`
	// StorageGBMonth is the price of a GB stored for a month.
	StorageGBMonth float64 `json:"storageGBMonth"`
	// Source says where the figures come from.
	Source string `json:"source,omitempty"`
}

//go:embed us-east-1.json
var defaultJSON []byte

// Default returns the shipped price table (us-east-1, Standard).
func Default() Prices {
	p, err := Parse(defaultJSON)
	if err != nil {
		panic("pricing: shipped table: " + err.Error())
	}
	return p
}

// Load reads a price table from a JSON file shaped as Prices.
func Load(path string) (Prices, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Prices{}, err
	}
	p, err := Parse(raw)
	if err != nil {
		return Prices{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// MaxPrice bounds every price: a million a unit is far above any real
// one, and keeps every cost Of computes finite.
const MaxPrice = 1e6

// Parse decodes a price table: one JSON object with region and every
// price; currency defaults to USD. Unknown fields, missing prices,
// prices below 0 or above MaxPrice, and anything after the object are
// errors.
func Parse(raw []byte) (Prices, error) {
	var p Prices
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Prices{}, fmt.Errorf("price table: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Prices{}, fmt.Errorf("price table: more than one JSON object")
	}
	// Which members the object has: a price left out is an error, not 0.
	var present map[string]json.RawMessage
	if err := json.Unmarshal(raw, &present); err != nil {
		return Prices{}, fmt.Errorf("price table: %w", err)
	}
	if p.Region == "" {
		return Prices{}, fmt.Errorf("price table: region is missing")
	}
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"onDemandReadPerMillion", p.OnDemandReadPerMillion}, {"onDemandWritePerMillion", p.OnDemandWritePerMillion},
		{"provisionedRCUHour", p.ProvisionedRCUHour}, {"provisionedWCUHour", p.ProvisionedWCUHour}, {"storageGBMonth", p.StorageGBMonth},
	} {
		if _, ok := present[f.name]; !ok {
			return Prices{}, fmt.Errorf("price table: %s is missing", f.name)
		}
		if !(f.v >= 0 && f.v <= MaxPrice) {
			return Prices{}, fmt.Errorf("price table: %s must be from 0 to %g, not %g", f.name, float64(MaxPrice), f.v)
		}
	}
	if p.Currency == "" {
		p.Currency = "USD"
	}
	return p, nil
}

// HoursPerMonth is the month AWS prices by (730 hours).
const HoursPerMonth = 730

// Cost is the price of a steady rate of traffic.
type Cost struct {
	// OnDemandHour and OnDemandMonth are what the rate costs in on-demand
	// mode, per hour and per 730-hour month.
	OnDemandHour  float64 `json:"onDemandPerHour"`
	OnDemandMonth float64 `json:"onDemandPerMonth"`
	// ProvisionedHour and ProvisionedMonth are what provisioning exactly
	// the rate (rounded up to whole units) costs: a floor, since a
	// provisioned table needs headroom for its peaks.
	ProvisionedHour  float64 `json:"provisionedPerHour"`
	ProvisionedMonth float64 `json:"provisionedPerMonth"`
	Currency         string  `json:"currency"`
}

// Of returns the cost of serving read and write units a second.
func (p Prices) Of(readPerSecond, writePerSecond float64) Cost {
	c := Cost{Currency: p.Currency}
	c.OnDemandHour = 3600 * (readPerSecond*p.OnDemandReadPerMillion + writePerSecond*p.OnDemandWritePerMillion) / 1e6
	c.ProvisionedHour = ceil(readPerSecond)*p.ProvisionedRCUHour + ceil(writePerSecond)*p.ProvisionedWCUHour
	c.OnDemandMonth = c.OnDemandHour * HoursPerMonth
	c.ProvisionedMonth = c.ProvisionedHour * HoursPerMonth
	return c
}

func ceil(f float64) float64 {
	n := float64(int64(f))
	if n < f {
		n++
	}
	return n
}

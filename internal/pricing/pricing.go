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

// Parse decodes a price table. Unknown fields and negative prices are
// errors.
func Parse(raw []byte) (Prices, error) {
	var p Prices
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Prices{}, fmt.Errorf("price table: %w", err)
	}
	for name, v := range map[string]float64{
		"onDemandReadPerMillion": p.OnDemandReadPerMillion, "onDemandWritePerMillion": p.OnDemandWritePerMillion,
		"provisionedRCUHour": p.ProvisionedRCUHour, "provisionedWCUHour": p.ProvisionedWCUHour, "storageGBMonth": p.StorageGBMonth,
	} {
		if v < 0 {
			return Prices{}, fmt.Errorf("price table: %s is negative (%g)", name, v)
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
